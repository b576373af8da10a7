import { createSeededRandom, type EmbeddingProvider, type Logger } from '@memory/core';
import { createHashingEmbedder } from '@memory/providers';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../src/index.js';
import { createTestEngine } from './helpers.js';

/** Only the semantic channel orders results, so recall@10 measures the vector search alone. */
const SEMANTIC_ONLY = {
  recall: {
    searchWindowDays: null,
    channels: { lexical: false, hints: false },
    dampening: { gravity: false, hub: false, resolution: false, currentness: false },
    recencyBoost: 0,
    minScore: 0,
  },
  traversal: { enabled: false },
};

const NAMES = ['Alice', 'Bob', 'Carmen', 'Dana', 'Elif', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Kemal', 'Lena'];
const PROJECTS = ['Atlas', 'Borealis', 'Cobalt', 'Delta', 'Ember', 'Falcon', 'Granite', 'Harbor', 'Iris', 'Juniper'];
const VERBS = ['leads', 'reviews', 'deploys', 'tests', 'documents', 'migrates', 'monitors', 'designs', 'funds'];
const THINGS = ['database', 'pipeline', 'dashboard', 'release', 'budget', 'roadmap', 'cluster', 'api', 'backlog'];
const CITIES = ['Lisbon', 'Berlin', 'Nairobi', 'Osaka', 'Toronto', 'Warsaw', 'Mumbai', 'Bogota'];
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'weekends', 'mornings', 'evenings'];

/** Distinct template memories (the shape of the synthetic bench corpus) and short questions about them. */
function corpus(count: number) {
  const random = createSeededRandom(20);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random.float() * xs.length)] as T;
  const texts = new Set<string>();
  while (texts.size < count) {
    texts.add(
      `${pick(NAMES)} ${pick(VERBS)} the ${pick(PROJECTS)} ${pick(THINGS)} from ${pick(CITIES)} on ${pick(DAYS)} with ${pick(NAMES)} ${texts.size % 97}`,
    );
  }
  const question = () =>
    pick([
      () => `who ${pick(VERBS)} the ${pick(PROJECTS)} ${pick(THINGS)}?`,
      () => `${pick(NAMES)} ${pick(PROJECTS)} ${pick(CITIES)}`,
      () => `what happens to the ${pick(THINGS)} on ${pick(DAYS)}`,
    ])();
  return { texts: [...texts], questions: Array.from({ length: 200 }, question) };
}

async function drain(engine: MemoryEngine): Promise<void> {
  for (let i = 0; i < 100; i++) if ((await engine.runDue()).ran === 0) return;
}

describe('the vector index through the engine', () => {
  it('finds the true neighbours of 20k hashing vectors in an ivf partition: recall@10 ≥ 0.95, reported as approximate with its measured recall', async () => {
    const embedder = createHashingEmbedder();
    const { engine } = await createTestEngine({
      embedder,
      config: { ...SEMANTIC_ONLY, vectors: { exactMaxVectors: 5000 } },
    });
    const { texts, questions } = corpus(20_000);
    const ids = (await engine.rememberMany({ agentId: 'a', memories: texts.map((content) => ({ content })) })).map(
      (r) => r.id,
    );
    // Small: exact until the background upkeep rebuilds the partition as ivf.
    let response = await engine.recall({ agentId: 'a', query: questions[0] as string, limit: 10, explain: true });
    expect(response.vectorCompleteness).toBe('exact');
    await drain(engine);
    // Real questions (not the measured ones) are audited against an exact search, which sets the probe count.
    for (const query of questions.slice(100)) await engine.recall({ agentId: 'a', query, limit: 10 });
    await drain(engine);

    const vectors = await embedder.embed(texts);
    const vectorOf = new Map(ids.map((id, i) => [id, vectors[i] as Float32Array]));
    const cos = (a: Float32Array, b: Float32Array) => {
      let s = 0;
      for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
      return s;
    };
    let recall = 0;
    const measured = questions.slice(0, 60);
    for (const query of measured) {
      response = await engine.recall({ agentId: 'a', query, limit: 10, explain: true });
      expect(response.vectorCompleteness).toBe('approximate');
      const [q] = await embedder.embed([query]);
      // The 10th best exact score, by a full scan.
      const best = new Float64Array(10).fill(Number.NEGATIVE_INFINITY);
      for (const v of vectors) {
        const s = cos(v, q as Float32Array);
        if (s <= (best[9] as number)) continue;
        let at = 9;
        while (at > 0 && s > (best[at - 1] as number)) {
          best[at] = best[at - 1] as number;
          at--;
        }
        best[at] = s;
      }
      const tenth = best[9] as number;
      // Ties count: any memory as near as the 10th exact neighbour is a true neighbour.
      const hits = response.results.filter(
        (r) => cos(vectorOf.get(r.id) as Float32Array, q as Float32Array) >= tenth - 1e-6,
      );
      recall += Math.min(10, hits.length) / 10;
    }
    recall /= measured.length;
    expect(recall).toBeGreaterThanOrEqual(0.95);
    expect(response.vectorRecall).toBeGreaterThanOrEqual(0.9);
    expect(response.vectorSearch).toMatchObject({ layout: 'ivf', vectors: 20_000, pool: 50 });
    expect(response.vectorSearch?.searched).toBeLessThan(20_000);
    expect(response.vectorSearch?.probes).toBeLessThan(response.vectorSearch?.lists ?? 0);
    await engine.close();
  }, 120_000);

  it('reports the scan fallback without sqlite-vec as exact while it covers every vector, recent-window beyond', async () => {
    const { engine } = await createTestEngine({
      embedder: createHashingEmbedder({ dimensions: 64 }),
      config: {
        ...SEMANTIC_ONLY,
        store: { vectorExtension: 'off' },
        recall: { ...SEMANTIC_ONLY.recall, vectorScanWindow: 3 },
      },
    });
    for (const word of ['apple', 'banana', 'cherry'])
      await engine.remember({ agentId: 'a', content: `${word} orchard` });
    let response = await engine.recall({ agentId: 'a', query: 'orchard', explain: true });
    expect(response).toMatchObject({
      vectorCompleteness: 'exact',
      vectorSearch: { layout: 'scan', vectors: 3, searched: 3 },
    });
    await engine.remember({ agentId: 'a', content: 'damson orchard' });
    response = await engine.recall({ agentId: 'a', query: 'orchard', explain: true });
    expect(response).toMatchObject({
      vectorCompleteness: 'recent-window',
      searchedWindow: 3,
      vectorSearch: { layout: 'scan', vectors: 4, searched: 3 },
    });
    expect(response.vectorRecall).toBeUndefined();
    await engine.close();
  });
});

describe('embedder output is untrusted', () => {
  function warnings(): Logger & { messages: string[] } {
    const messages: string[] = [];
    return {
      messages,
      debug: () => {},
      info: () => {},
      warn: (message) => messages.push(message),
      error: (message) => messages.push(message),
    };
  }

  it('accepts plain number[] vectors of the declared dimension and searches them', async () => {
    const base = createHashingEmbedder({ dimensions: 32 });
    const plain = {
      model: 'plain-arrays',
      dimensions: 32,
      embed: async (texts: readonly string[]) => (await base.embed(texts)).map((v) => [...v]),
    } as unknown as EmbeddingProvider;
    const db = new Database(':memory:');
    const { engine } = await createTestEngine({ database: { database: db }, embedder: plain, config: SEMANTIC_ONLY });
    const { id } = await engine.remember({ agentId: 'a', content: 'the harbor database migrates on fridays' });
    await engine.rememberMany({ agentId: 'a', memories: [{ content: 'lunch is at noon' }, { content: 'green tea' }] });
    expect(db.prepare('SELECT count(*) AS n FROM embeddings').get()).toEqual({ n: 3 });
    const response = await engine.recall({ agentId: 'a', query: 'harbor database', limit: 1 });
    expect(response.vectorCompleteness).toBe('exact');
    expect(response.results[0]?.id).toBe(id);
    await engine.close();
  });

  it('stores every memory when vectors are unusable (wrong length, NaN, wrong count), logs it, and fills them in later', async () => {
    let mode: 'bad' | 'good' = 'bad';
    const base = createHashingEmbedder({ dimensions: 16 });
    const flaky: EmbeddingProvider = {
      model: 'flaky',
      dimensions: 16,
      async embed(texts) {
        const good = await base.embed(texts);
        if (mode === 'good') return good;
        return good.map((v, i) => {
          if (texts[i]?.includes('poison')) return v.map(() => Number.NaN);
          return i % 2 === 0 ? v.slice(0, 8) : v;
        });
      },
    };
    const logger = warnings();
    const db = new Database(':memory:');
    const { engine } = await createTestEngine({
      database: { database: db },
      embedder: flaky,
      logger,
      config: { ...SEMANTIC_ONLY, vectors: { fillMaxAttempts: 2 } },
    });
    const results = await engine.rememberMany({
      agentId: 'a',
      memories: ['alpha notes', 'beta notes', 'gamma notes', 'poison notes'].map((content) => ({ content })),
    });
    expect(results).toHaveLength(4);
    expect(db.prepare('SELECT count(*) AS n FROM memories').get()).toEqual({ n: 4 });
    // Only the well-formed vector (beta, odd index) was stored; the problem was logged.
    expect(db.prepare('SELECT count(*) AS n FROM embeddings').get()).toEqual({ n: 1 });
    expect(logger.messages.some((m) => /unusable vectors/.test(m))).toBe(true);

    // A wrong number of vectors: none stored, the memory still is.
    const wrongCount: EmbeddingProvider = { model: 'flaky', dimensions: 16, embed: async () => [] };
    const second = await createTestEngine({ embedder: wrongCount, logger });
    expect((await second.engine.remember({ agentId: 'a', content: 'kept anyway' })).deduped).toBe(false);
    await second.engine.close();

    // The embedder recovers: the fill-in job gives the missing vectors (not the poisoned text's).
    mode = 'good';
    await engine.runDue();
    const missing = () =>
      db
        .prepare('SELECT content FROM memories WHERE is_deleted = 0 AND embedding_model IS NULL ORDER BY content')
        .all();
    expect(missing()).toEqual([]);
    expect(db.prepare('SELECT count(*) AS n FROM embeddings').get()).toEqual({ n: 4 });
    const response = await engine.recall({ agentId: 'a', query: 'gamma notes', limit: 1 });
    expect(response.results[0]?.content).toBe('gamma notes');
    await engine.close();
  });

  it('leaves a text the embedder always rejects alone after the configured attempts', async () => {
    const base = createHashingEmbedder({ dimensions: 16 });
    let calls = 0;
    const rejecting: EmbeddingProvider = {
      model: 'strict',
      dimensions: 16,
      async embed(texts) {
        calls++;
        return (await base.embed(texts)).map((v, i) => (texts[i]?.includes('poison') ? v.map(() => Number.NaN) : v));
      },
    };
    const db = new Database(':memory:');
    const { engine } = await createTestEngine({
      database: { database: db },
      embedder: rejecting,
      config: { vectors: { fillMaxAttempts: 2 } },
    });
    await engine.remember({ agentId: 'a', content: 'poison pill' });
    await engine.runDue();
    await engine.runDue();
    expect(db.prepare('SELECT attempts FROM embedding_failures').all()).toEqual([{ attempts: 2 }]);
    const before = calls;
    await engine.runDue();
    expect(calls).toBe(before);
    expect(db.prepare('SELECT count(*) AS n FROM memory_jobs WHERE status = ?').get('pending')).toEqual({ n: 0 });
    await engine.close();
  });
});
