import { createManualClock, createMemoryEngine, createSequentialIds } from '@memory/engine';
import { createHashingEmbedder } from '@memory/providers';

export const T0 = Date.UTC(2026, 0, 1);

/** A real engine on in-memory SQLite with a deterministic embedder and clock. */
export async function testEngine() {
  const clock = createManualClock(T0);
  return createMemoryEngine({
    database: { path: ':memory:' },
    clock,
    ids: createSequentialIds('m'),
    embedder: createHashingEmbedder({ dimensions: 64 }),
  });
}

/** The usage block every mock answer carries (the SDK requires one). */
export const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
