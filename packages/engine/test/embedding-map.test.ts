import { createSeededRandom } from '@memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { exactNeighbours } from '../src/nearest-neighbours.js';
import { createBagOfWordsEmbedder, createTestEngine } from './helpers.js';

const TOPICS = {
  tea: ['green tea', 'black tea', 'oolong tea', 'tea kettle', 'tea leaves'],
  deploy: ['deploy pipeline', 'deploy rollback', 'deploy canary', 'deploy freeze', 'deploy window'],
  budget: ['budget review', 'budget forecast', 'budget approval', 'budget cuts', 'budget quarter'],
};

async function world() {
  const db = new Database(':memory:');
  const { engine } = await createTestEngine({
    database: { database: db },
    embedder: createBagOfWordsEmbedder(64),
    config: { hints: { enabled: false } },
  });
  const topicOf = new Map<string, string>();
  for (const [topic, phrases] of Object.entries(TOPICS)) {
    for (const phrase of phrases) {
      for (const n of [1, 2]) {
        const { id } = await engine.remember({
          agentId: 'a',
          content: `${phrase} ${topic} ${topic} note ${n}`,
          type: topic === 'budget' ? 'decision' : 'fact',
          // Near-twin notes on purpose: conflict detection would merge the two decisions.
          conflict: false,
        });
        topicOf.set(id, topic);
      }
    }
  }
  return { db, engine, topicOf };
}

describe('engine.embeddingMap', () => {
  it('projects the agent’s memory vectors to 2-D, keeps similar memories together, and caches per model', async () => {
    const { db, engine, topicOf } = await world();
    const map = await engine.embeddingMap({ agentId: 'a' });
    expect(map).toMatchObject({ model: 'bow-test', cached: false });
    expect(map.points).toHaveLength(30);
    expect(map.points.every((p) => Number.isFinite(p.x) && Number.isFinite(p.y))).toBe(true);
    expect(new Set(map.points.map((p) => p.type))).toEqual(new Set(['fact', 'decision']));
    // Memories of one topic sit closer to each other than to the others'.
    const distance = (a: { x: number; y: number }, b: { x: number; y: number }) => Math.hypot(a.x - b.x, a.y - b.y);
    let within = 0;
    let across = 0;
    let nWithin = 0;
    let nAcross = 0;
    for (const a of map.points)
      for (const b of map.points) {
        if (a.id >= b.id) continue;
        if (topicOf.get(a.id) === topicOf.get(b.id)) {
          within += distance(a, b);
          nWithin++;
        } else {
          across += distance(a, b);
          nAcross++;
        }
      }
    expect(within / nWithin).toBeLessThan((across / nAcross) * 0.5);

    const again = await engine.embeddingMap({ agentId: 'a' });
    expect(again).toMatchObject({ cached: true, computedMs: map.computedMs });
    expect(again.points).toEqual(map.points);
    // A new memory changes the vectors: the projection is computed again.
    const added = await engine.remember({ agentId: 'a', content: 'green tea tea tea note 3' });
    const grown = await engine.embeddingMap({ agentId: 'a' });
    expect(grown.cached).toBe(false);
    expect(grown.points.map((p) => p.id)).toContain(added.id);
    await engine.forget({ agentId: 'a', id: added.id, reason: 'test' });
    expect((await engine.embeddingMap({ agentId: 'a' })).points.map((p) => p.id)).not.toContain(added.id);
    expect(db.prepare('SELECT agent_id, model FROM embedding_projections').all()).toEqual([
      { agent_id: 'a', model: 'bow-test' },
    ]);
    // Scoped: another agent has an empty map.
    expect(await engine.embeddingMap({ agentId: 'b' })).toMatchObject({ points: [], reason: expect.any(String) });
    expect((await engine.embeddingMap({ agentId: 'a', limit: 5 })).points).toHaveLength(5);
  });

  it('is empty, with the reason, without an embedder', async () => {
    const { engine } = await createTestEngine();
    await engine.remember({ agentId: 'a', content: 'no vectors here' });
    expect(await engine.embeddingMap({ agentId: 'a' })).toEqual({
      model: null,
      points: [],
      cached: false,
      computedMs: 0,
      reason: 'no embedder configured',
    });
  });
});

describe('exact nearest neighbours', () => {
  it('finds each point’s k nearest, itself first, nearest first, like a plain sort', async () => {
    const random = createSeededRandom(3);
    const points = Array.from({ length: 60 }, () => Float32Array.from({ length: 5 }, () => random.float()));
    const { indices, distances } = await exactNeighbours(points, 6);
    points.forEach((p, i) => {
      const sorted = points
        .map((q, j) => ({ j, d: Math.hypot(...Array.from(p, (v, k) => v - (q[k] ?? 0))) }))
        .sort((a, b) => a.d - b.d)
        .slice(0, 6);
      expect(indices[i]).toEqual(sorted.map((s) => s.j));
      expect(distances[i]?.[0]).toBe(0);
      sorted.forEach((s, k) => {
        expect(distances[i]?.[k]).toBeCloseTo(s.d, 5);
      });
    });
  });

  it('yields to the event loop while a map is computed', async () => {
    const { engine } = await createTestEngine({ embedder: createBagOfWordsEmbedder(64) });
    const words = ['tea', 'deploy', 'budget', 'launch', 'review', 'north', 'wind', 'cache', 'queue', 'lease'];
    await engine.rememberMany({
      agentId: 'a',
      memories: Array.from({ length: 400 }, (_, i) => ({
        content: `${words[i % 10]} ${words[(i * 7) % 10]} ${words[(i * 3) % 10]} note ${i}`,
      })),
    });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const map = await engine.embeddingMap({ agentId: 'a' });
    clearInterval(timer);
    expect(map.points).toHaveLength(400);
    // One synchronous computation would let the timer run once at most.
    expect(ticks).toBeGreaterThanOrEqual(10);
  });
});
