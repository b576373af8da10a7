import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import type { EmbedWorkerClient } from '../../providers/src/offline/embed-worker-client.js';
import { createTestEngine } from './helpers.js';

// Issue 11, item 13: the offline embedder's worker dying part-way through a rememberMany loses no
// memory and no vector: the batch in flight and every later one are embedded in this thread.
const calls = vi.hoisted(() => ({ batches: 0 }));
vi.mock('../../providers/src/offline/embed-worker-client.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../providers/src/offline/embed-worker-client.js')>();
  return {
    ...real,
    startEmbedWorker: (...args: Parameters<typeof real.startEmbedWorker>): EmbedWorkerClient | undefined => {
      const client = real.startEmbedWorker(...args);
      if (!client) return undefined;
      return {
        embed(texts) {
          calls.batches++;
          const answer = client.embed(texts);
          // The second batch's thread is terminated while it works on it.
          if (calls.batches === 2) void client.close();
          return answer;
        },
        close: () => client.close(),
      };
    },
  };
});

const { createOfflineEmbedder } = await import('@memory/providers');

const WORDS = ['kettle', 'cupboard', 'Kestrel', 'budget', 'tea', 'migration', 'Dana', 'review', 'ledger', 'rollout'];
const item = (n: number) =>
  Array.from({ length: 1500 }, (_, i) => `${WORDS[(n * 3 + i * 7 + (i >> 4)) % WORDS.length]}${n}`).join(' ');

describe('rememberMany with an embedding worker that dies', () => {
  it('stores every memory with the vector the in-thread embedder gives it', async () => {
    const db = new Database(':memory:');
    const embedder = createOfflineEmbedder();
    const { engine } = await createTestEngine({
      database: { database: db },
      embedder,
      // ~3 items (~40,000 characters) per batch: each batch is large enough for the worker.
      config: { remember: { batchBytes: 48 * 1024 }, hints: { enabled: false } },
    });
    const memories = Array.from({ length: 12 }, (_, n) => ({ content: item(n) }));
    const stored = await engine.rememberMany({ agentId: 'a', memories });
    expect(stored).toHaveLength(12);
    // Batch 1 went to the worker, batch 2 died there; later batches never tried it again.
    expect(calls.batches).toBe(2);
    const rows = db
      .prepare(
        `SELECT m.id, m.content, e.vector FROM memories m LEFT JOIN embeddings e
         ON e.source_type = 'memory' AND e.source_id = m.id WHERE m.agent_id = 'a' ORDER BY m.id`,
      )
      .all() as Array<{ id: string; content: string; vector: Buffer | null }>;
    expect(rows.map((r) => r.id).sort()).toEqual(stored.map((s) => s.id).sort());
    const inThread = createOfflineEmbedder({ worker: false, workerMinChars: Number.POSITIVE_INFINITY });
    const expected = await inThread.embed(rows.map((r) => r.content));
    for (const [i, row] of rows.entries()) {
      expect(row.vector).not.toBeNull();
      const vector = new Float32Array(new Uint8Array(row.vector as Buffer).buffer);
      expect([...vector]).toEqual([...(expected[i] as Float32Array)]);
    }
    await engine.close();
    await embedder.close();
  });
});
