import fc from 'fast-check';
import { describe, it } from 'vitest';
import { controlResult, expectIsolated, OTHERS, readPaths, type SeedOrder } from './scope-isolation.js';

const ORDERS: readonly SeedOrder[] = ['mine-first', 'other-first'];

// For every read path that takes an agent: whatever another agent holds (nothing, an identical
// copy of this agent's data, many better-matching or newer items), written before or after this
// agent's data, this agent's result is the one it gets alone, and holds only its own items.
describe('another agent’s data can neither appear in, crowd out, nor block this agent’s result (property)', () => {
  for (const path of readPaths()) {
    it(path.name, async (ctx) => {
      const control = await controlResult(path);
      if (control === undefined) {
        ctx.skip();
        return;
      }
      // The worst cases first, every order and agent name (they kill the crowd-out and block bugs),
      // then random amounts of foreign data.
      for (const order of ORDERS)
        for (const other of OTHERS) await expectIsolated(path, control, { order, n: 12, identical: true, other });
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...ORDERS),
          fc.constantFrom(...OTHERS),
          fc.integer({ min: 0, max: 12 }),
          fc.boolean(),
          (order, other, n, identical) => expectIsolated(path, control, { order, n, identical, other }),
        ),
        { numRuns: 4 },
      );
    }, 120_000);
  }
});
