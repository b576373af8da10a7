import { createHash } from 'node:crypto';
import { createManualClock, createSeededRandom, createSequentialIds, type EmbeddingProvider } from '@memory/core';
import { createMemoryEngine, type MemoryEngine, type MemoryEngineOptions } from '../src/index.js';

/**
 * A deterministic offline embedder whose similar texts get similar vectors: words are hashed into
 * buckets (feature hashing) and the vector is L2-normalized. Texts sharing words have positive
 * cosine; disjoint texts are near-orthogonal.
 */
export function createBagOfWordsEmbedder(dimensions = 64, model = 'bow-test'): EmbeddingProvider & { calls: number } {
  const embedder = {
    model,
    dimensions,
    calls: 0,
    async embed(texts: readonly string[]): Promise<Float32Array[]> {
      embedder.calls++;
      return texts.map((text) => {
        const v = new Float32Array(dimensions);
        for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
          const h = createHash('sha1').update(word).digest();
          const bucket = h.readUInt32LE(0) % dimensions;
          v[bucket] = (v[bucket] ?? 0) + ((h[4] ?? 0) % 2 === 0 ? 1 : -1);
        }
        const norm = Math.hypot(...v) || 1;
        return v.map((x) => x / norm);
      });
    },
  };
  return embedder;
}

export const T0 = Date.UTC(2026, 0, 1);

/** Each test engine's own seeded random source (tokens' secrets, poll jitter): the same on every run. */
let engineSeeds = 0;

export async function createTestEngine(overrides: Partial<MemoryEngineOptions> = {}) {
  const clock = createManualClock(T0);
  const engine = await createMemoryEngine({
    database: { path: ':memory:' },
    clock,
    ids: createSequentialIds('id'),
    random: createSeededRandom(++engineSeeds),
    ...overrides,
  });
  return { engine, clock };
}

/** Row counts of every table an operation could touch, to prove bad input changed nothing. */
export function snapshotCounts(database: { prepare(sql: string): { get(): unknown } }): Record<string, number> {
  const tables = [
    'memories',
    'memory_history',
    'memory_links',
    'memory_entity_mentions',
    'embeddings',
    'text_postings',
  ];
  return Object.fromEntries(
    tables.map((t) => [t, (database.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]),
  );
}

/** The engine's jobs of one scope (none for unscoped host jobs) as `waitForJob` (from `@memory/queue/testing`) reads them: by bare id. */
export const jobsById = (engine: MemoryEngine, agentId?: string) => ({
  get: (id: string) => engine.jobs.get({ id, agentId }),
});
