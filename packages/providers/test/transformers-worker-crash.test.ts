import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryError } from '@memory/core';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ModelBackend } from '../src/transformers/worker-client.js';
import { tinyTokenizerJson } from './fixtures/tiny-model.js';

// A transformers worker that dies: the call in flight fails with PROVIDER_ERROR, the next call runs
// on a new worker with the same files. The real worker is wrapped so that its second batch is cut
// off by terminating the thread mid-flight; a worker that dies while loading means in-process.
const calls = vi.hoisted(() => ({ started: 0, batches: 0, failLoad: false }));
vi.mock('../src/transformers/worker-client.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/transformers/worker-client.js')>();
  return {
    ...real,
    startModelWorker: async (...args: Parameters<typeof real.startModelWorker>): Promise<ModelBackend | undefined> => {
      calls.started++;
      if (calls.failLoad) {
        throw new MemoryError('PROVIDER_ERROR', 'transformers embedder: worker exited (1)', {
          details: { reason: 'worker-failed' },
        });
      }
      const backend = await real.startModelWorker(...args);
      if (!backend) return undefined;
      return {
        info: backend.info,
        embed(texts) {
          calls.batches++;
          if (calls.batches !== 2) return backend.embed(texts);
          void backend.close();
          return Promise.reject(
            new MemoryError('PROVIDER_ERROR', 'transformers embedder: worker exited (1)', {
              details: { reason: 'worker-failed' },
            }),
          );
        },
        close: () => backend.close(),
      };
    },
  };
});

const { createTransformersEmbedder } = await import('../src/index.js');
const SHIPPED = new URL('./fixtures/tiny-bert', import.meta.url).pathname;
const closing: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closing) await close();
});

describe('transformers embedder whose worker dies', () => {
  it('fails the batch in flight, then starts a new worker on the next call', async () => {
    const embedder = await createTransformersEmbedder({ modelPath: SHIPPED });
    closing.push(() => embedder.close());
    const [first] = await embedder.embed(['coffee']);
    await expect(embedder.embed(['coffee'])).rejects.toMatchObject({
      code: 'PROVIDER_ERROR',
      details: { reason: 'worker-failed' },
    });
    const [again] = await embedder.embed(['coffee']);
    expect([...again!]).toEqual([...first!]);
    expect(calls.started).toBe(2);
  });

  it('refuses a replacement worker that finds other model files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tiny-bert-'));
    cpSync(SHIPPED, dir, { recursive: true });
    calls.batches = 0;
    const embedder = await createTransformersEmbedder({ modelPath: dir });
    closing.push(() => embedder.close());
    await embedder.embed(['coffee']);
    await expect(embedder.embed(['coffee'])).rejects.toMatchObject({ details: { reason: 'worker-failed' } });
    writeFileSync(join(dir, 'tokenizer.json'), tinyTokenizerJson().replace('"coffee"', '"espresso"'));
    await expect(embedder.embed(['coffee'])).rejects.toMatchObject({
      code: 'PROVIDER_ERROR',
      details: { reason: 'model-changed' },
    });
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  it('loads in-process when the worker dies while loading', async () => {
    calls.failLoad = true;
    const embedder = await createTransformersEmbedder({ modelPath: SHIPPED });
    closing.push(() => embedder.close());
    expect(embedder.dimensions).toBe(4);
    expect((await embedder.embed(['coffee']))[0]?.[3]).toBeCloseTo(2 / Math.sqrt(5), 6);
  });
});
