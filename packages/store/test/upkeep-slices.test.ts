import { describe, expect, it } from 'vitest';
import { runSliced } from '../src/vector-index/upkeep.js';

/** Counts turns of the event loop (one per check phase) until stopped. */
function turnCounter(): { readonly turn: number; stop(): void } {
  let turn = 0;
  let ticking = true;
  const tick = () => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get turn() {
      return turn;
    },
    stop() {
      ticking = false;
    },
  };
}

const quietPacer = { start() {}, observe() {} };

describe('sliced upkeep work', () => {
  it('runs each slice on its own turn, apart from the synchronous work of its caller before and after', async () => {
    const counter = turnCounter();
    const turns: number[] = [];
    function* work(): Generator<void, string> {
      for (let i = 0; i < 3; i++) {
        turns.push(counter.turn);
        yield;
      }
      turns.push(counter.turn);
      return 'trained';
    }
    const calledAt = counter.turn;
    // stepMs 0: one step of the generator per slice, so four slices.
    const result = await runSliced(work(), 0, quietPacer, undefined);
    const resumedAt = counter.turn;
    counter.stop();
    expect(result).toBe('trained');
    expect(turns).toHaveLength(4);
    expect(turns[0]).toBeGreaterThan(calledAt);
    for (let i = 1; i < turns.length; i++) expect(turns[i]).toBeGreaterThan(turns[i - 1] as number);
    expect(resumedAt).toBeGreaterThan(turns[3] as number);
  });

  it('stops between slices when aborted, without finishing the work', async () => {
    const controller = new AbortController();
    let steps = 0;
    function* work(): Generator<void, string> {
      for (;;) {
        steps++;
        if (steps === 2) controller.abort();
        yield;
      }
    }
    expect(await runSliced(work(), 0, quietPacer, controller.signal)).toBeUndefined();
    expect(steps).toBe(2);
  });
});
