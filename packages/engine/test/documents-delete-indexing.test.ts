import { createManualClock, createManualScheduler, type Logger } from '@memory/core';
import { settle } from '@memory/queue/testing';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder, createTestEngine, T0 } from './helpers.js';

const TEXT = Array.from(
  { length: 30 },
  (_, i) =>
    `Part ${i + 1}. The Kestrel migration plan, step ${i + 1}, covers the ledger cut-over and rollback rehearsal.`,
).join('\n\n');

describe('a document deleted while its chunks are being indexed', () => {
  it('stops quietly between index batches: nothing written after the delete, no failure logged or recorded', async () => {
    const db = new Database(':memory:');
    const clock = createManualClock(T0);
    const scheduler = createManualScheduler(clock);
    const logged: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (message) => logged.push(`warn ${message}`),
      error: (message) => logged.push(`error ${message}`),
    };
    const { engine } = await createTestEngine({
      database: { database: db },
      clock,
      scheduler,
      logger,
      embedder: createBagOfWordsEmbedder(),
      config: { documents: { chunkSize: 120, chunkOverlap: 0, indexBatchSize: 1 } },
    });
    const { id, jobId } = await engine.documents.add({ agentId: 'a', content: TEXT });
    const status = () =>
      (db.prepare('SELECT status FROM documents WHERE id = ?').get(id) as { status: string } | undefined)?.status;
    // Index batches yield to the event loop between them: delete as soon as indexing has begun.
    let deletedAfter = -1;
    const watch = (): void => {
      if (status() === 'indexing') {
        deletedAfter = (db.prepare('SELECT count(*) AS n FROM document_memories').get() as { n: number }).n;
        void engine.documents.delete({ agentId: 'a', id });
      } else setImmediate(watch);
    };
    setImmediate(watch);
    await engine.runDue();
    for (let i = 0; i < 5; i++) {
      await scheduler.advance(60_000);
      await settle();
      await engine.runDue();
    }
    expect(deletedAfter).toBeGreaterThanOrEqual(0);
    expect(status()).toBe('deleted');
    // At most the batch in flight when the delete landed; the document had 30 chunks.
    const linked = (db.prepare('SELECT count(*) AS n FROM document_memories').get() as { n: number }).n;
    expect(linked).toBeLessThanOrEqual(deletedAfter + 1);
    expect(linked).toBeLessThan(30);
    expect(
      db.prepare("SELECT count(*) AS n FROM memories WHERE is_deleted = 0 AND type = 'document_chunk'").get(),
    ).toEqual({
      n: 0,
    });
    const job = await engine.jobs.get({ id: jobId, agentId: 'a' });
    expect(job?.status === 'cancelled' || job?.status === 'completed').toBe(true);
    expect(job?.error ?? null).toBeNull();
    expect(logged).toEqual([]);
    expect((await engine.diagnostics()).workers.find((w) => w.workerId === 'document-ingest')).toMatchObject({
      failed: 0,
      lastError: null,
    });
    await engine.close();
  });
});
