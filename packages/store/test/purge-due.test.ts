import { createSequentialIds } from '@memory/core';
import { describe, expect, it } from 'vitest';
import type { MemoryWriteDeps } from '../src/memory-writer/context.js';
import { createMemoriesProgram, type NewMemory, prepareContent } from '../src/memory-writer/create-memories.js';
import { forgetMemoryProgram } from '../src/memory-writer/forget-memory.js';
import { countDuePurgesProgram, duePurgesProgram } from '../src/repositories/purge.js';
import { openSqliteLifecycleBackend } from './postgres/lifecycle-backends.js';

// Which memories a purge batch takes: the edges the lifecycle contract does not pin. The cutoff is
// inclusive (a memory forgotten exactly the recover window ago is due), and a batch's limit holds
// for forgotten and expired memories together (docs/mutation-testing.md, "The memory lifecycle").

const NOW = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

const memory = (content: string, extra: Partial<NewMemory> = {}): NewMemory => ({
  agentId: 'q',
  content: prepareContent(content),
  type: 'fact',
  importance: 0.5,
  audit: { actor: { id: 'tester', type: 'operator' } },
  ...extra,
});

describe('memories due for purge', () => {
  it('forgotten or expired at or before the cutoff, oldest first, at most the limit in all, never pinned', async () => {
    const db = await openSqliteLifecycleBackend();
    const deps: MemoryWriteDeps = { ids: createSequentialIds('m'), vectorAvailable: false, inlineEntityLinking: true };
    const created = await db.write((t) =>
      createMemoriesProgram(
        t,
        deps,
        [
          memory('The first forgotten note about ferries.'),
          memory('The second forgotten note about trams.'),
          memory('The third forgotten note about buses.'),
          memory('A note about tolls that expires.', { expiresAt: NOW + DAY }),
          memory('A pinned note about bridges that expires.', { expiresAt: NOW + DAY, pinned: true }),
        ],
        NOW,
      ),
    );
    const [first, second, third, expiring] = created.map((c) => c.id as string);
    for (const [i, id] of [first, second, third].entries())
      await db.write((t) =>
        forgetMemoryProgram(t, deps, { agentId: 'q', id: id as string, audit: { reason: 'x' } }, NOW + i),
      );
    const due = (cutoff: number, limit: number) =>
      db.read(() => duePurgesProgram(cutoff, limit)).then((rows) => rows.map((r) => [r.id, r.reason]));

    // Forgotten at NOW and NOW + 1, cutoff NOW + 1: both (the cutoff is inclusive), not the third.
    expect(await due(NOW + 1, 10)).toEqual([
      [first, 'forgotten'],
      [second, 'forgotten'],
    ]);
    // Expired exactly at the cutoff: due; the pinned one never.
    expect(await due(NOW + DAY, 10)).toEqual([
      [first, 'forgotten'],
      [second, 'forgotten'],
      [third, 'forgotten'],
      [expiring, 'expired'],
    ]);
    expect(await db.read(() => countDuePurgesProgram(NOW + DAY))).toEqual({ forgotten: 3, expired: 1 });
    // A limit of two with four due: two in all, the oldest forgotten first.
    expect(await due(NOW + DAY, 2)).toEqual([
      [first, 'forgotten'],
      [second, 'forgotten'],
    ]);
    await db.close();
  });
});
