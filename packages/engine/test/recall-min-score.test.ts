import { createManualClock, type EmbeddingProvider } from '@memory/core';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTestEngine, T0 } from './helpers.js';

// recall.minScore is a floor on relevance: a result whose fused score (before dampening and boosts)
// is below it is dropped, unless the memory was reached structurally (a host link or the graph).
// With only the semantic channel on, a memory's fused score is semanticWeight (0.3) × its cosine,
// so an embedder that puts each memory at a chosen cosine to the query sets fused scores exactly.

const COSINES = [0.05, 0.1, 0.13, 0.2, 0.35, 0.5, 0.9] as const;
const content = (c: number) => `note at cosine ${c.toFixed(2)}`;

/** The query embeds to e1; "note at cosine c" to (c, √(1−c²), 0, 0). */
const angleEmbedder: EmbeddingProvider = {
  model: 'angle',
  dimensions: 4,
  embed: async (texts) =>
    texts.map((text) => {
      const m = /cosine (\d\.\d+)/.exec(text);
      const c = m ? Number(m[1]) : 1;
      return Float32Array.from([c, Math.sqrt(1 - c * c), 0, 0]);
    }),
};

async function engineWith(minScore: number) {
  const { engine } = await createTestEngine({
    database: { database: new Database(':memory:') },
    clock: createManualClock(T0),
    embedder: angleEmbedder,
    config: {
      store: { vectorExtension: 'off' },
      recall: { minScore, channels: { lexical: false, hints: false, semantic: true }, searchWindowDays: null },
    },
  });
  const ids = new Map<string, number>();
  for (const c of COSINES) ids.set((await engine.remember({ agentId: 'a', content: content(c) })).id, c);
  return { engine, ids };
}

const recalledCosines = async (engine: Awaited<ReturnType<typeof engineWith>>['engine'], ids: Map<string, number>) =>
  (await engine.recall({ agentId: 'a', query: 'probe', limit: 50 })).results.map((r) => ids.get(r.id)).sort();

describe('recall minScore', () => {
  it('drops results whose fused score is below the floor and keeps those at or above it (default 0.1)', async () => {
    const { engine, ids } = await engineWith(0.1);
    // Fused = 0.3 × cosine: 0.015 up to 0.06 fall under 0.1; 0.105 and up stay.
    expect(await recalledCosines(engine, ids)).toEqual([0.35, 0.5, 0.9]);
    await engine.close();
  });

  it('keeps exactly the memories whose fused score reaches the configured floor (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.double({ min: 0, max: 0.3, noNaN: true }), async (minScore) => {
        // Floats near a boundary would test float32 rounding, not the floor.
        fc.pre(COSINES.every((c) => Math.abs(0.3 * c - minScore) > 1e-3));
        const { engine, ids } = await engineWith(minScore);
        expect(await recalledCosines(engine, ids)).toEqual(COSINES.filter((c) => 0.3 * c >= minScore));
        await engine.close();
      }),
      { numRuns: 15 },
    );
  });

  it('keeps a memory reached through a host link even when the floor is above its score', async () => {
    const { engine, ids } = await engineWith(0.9);
    const linked = await engine.remember({
      agentId: 'a',
      content: `linked ${content(0.05)}`,
      linkedEntities: [{ type: 'ticket', refId: 'T-1' }],
    });
    ids.set(linked.id, -1);
    const response = await engine.recall({
      agentId: 'a',
      query: 'probe',
      limit: 50,
      linkedEntities: [{ type: 'ticket', refId: 'T-1' }],
    });
    // Every unlinked memory fuses under 0.9 (at most 0.63); the linked one stays.
    expect(response.results.map((r) => ids.get(r.id))).toEqual([-1]);
    await engine.close();
  });
});
