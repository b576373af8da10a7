import { afterAll, describe, expect, it, vi } from 'vitest';
import type { EmbedWorkerClient } from '../src/offline/embed-worker-client.js';

// Issue 11, item 13: a worker that dies part-way through a run costs no vectors. The embedder's
// worker is wrapped so that its second batch is cut off by terminating the thread mid-flight.
const calls = vi.hoisted(() => ({ batches: 0, started: 0 }));
vi.mock('../src/offline/embed-worker-client.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/offline/embed-worker-client.js')>();
  return {
    ...real,
    startEmbedWorker: (...args: Parameters<typeof real.startEmbedWorker>): EmbedWorkerClient | undefined => {
      const client = real.startEmbedWorker(...args);
      if (!client) return undefined;
      calls.started++;
      return {
        embed(texts) {
          calls.batches++;
          const answer = client.embed(texts);
          if (calls.batches === 2) void client.close();
          return answer;
        },
        close: () => client.close(),
      };
    },
  };
});

const { createOfflineEmbedder } = await import('../src/index.js');

const inThread = createOfflineEmbedder({ worker: false, workerMinChars: Number.POSITIVE_INFINITY });
const embedder = createOfflineEmbedder({ workerMinChars: 0 });
afterAll(() => embedder.close());

describe('offline embedder whose worker dies', () => {
  it('answers every batch with the in-thread vectors, and stops using the dead worker', async () => {
    const batches = Array.from({ length: 4 }, (_, b) =>
      Array.from({ length: 5 }, (_, i) => `batch ${b} text ${i}: the kettle budget review for Kestrel ${b * i}`),
    );
    for (const texts of batches) {
      const vectors = await embedder.embed(texts);
      const expected = await inThread.embed(texts);
      expect(vectors.map((v) => [...v])).toEqual(expected.map((v) => [...v]));
    }
    expect(calls.started).toBe(1);
    // The first batch went to the worker, the second died there; the last two never tried it.
    expect(calls.batches).toBe(2);
  });
});
