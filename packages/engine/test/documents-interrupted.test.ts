import { createManualClock, createManualScheduler, type EmbeddingProvider } from '@memory/core';
import { createQueue } from '@memory/queue';
import { settle } from '@memory/queue/testing';
import { openStore } from '@memory/store';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder, createTestEngine, T0 } from './helpers.js';

const TEXT = Array.from(
  { length: 12 },
  (_, i) =>
    `Section ${i}. The release checklist for team ${i} covers rollout, rollback and paging. ${'More. '.repeat(40)}`,
).join('\n\n');

async function docEngine(db: Database.Database, extra: Record<string, unknown> = {}) {
  const clock = createManualClock(T0);
  const scheduler = createManualScheduler(clock);
  const { engine } = await createTestEngine({
    database: { database: db },
    clock,
    scheduler,
    embedder: createBagOfWordsEmbedder(),
    config: { documents: { chunkSize: 400, chunkOverlap: 40 } },
    ...extra,
  });
  return { engine, clock, scheduler };
}

const job = (db: Database.Database) =>
  db
    .prepare("SELECT status, attempts, interruptions, error FROM memory_jobs WHERE job_type = 'document_ingest'")
    .get() as { status: string; attempts: number; interruptions: number; error: string | null };

describe('documents survive interruptions', () => {
  it('finishes a document whose process died holding it more often than it has attempts', async () => {
    const db = new Database(':memory:');
    const { engine, clock } = await docEngine(db);
    const { id } = await engine.documents.add({ agentId: 'a', content: TEXT });
    // Another process (on the same file) leases the ingest, gets halfway, and dies: five times.
    const doomed = createQueue({ store: await openStore({ database: db, clock }) });
    for (let crash = 0; crash < 5; crash++) {
      expect(doomed.lease(['document_ingest'], 'doomed-process')).toBeDefined();
      db.prepare("UPDATE documents SET status = 'embedding' WHERE id = ?").run(id);
      clock.advance(engine.config.queue.leaseMs + 1);
      expect(await engine.repair.reapExpiredLeases()).toEqual({ requeued: 1, dead: 0 });
    }
    expect(job(db)).toMatchObject({ status: 'pending', attempts: 0, interruptions: 5 });
    expect(await engine.runDue()).toMatchObject({ ran: 1 });
    expect(await engine.documents.get({ agentId: 'a', id })).toMatchObject({ status: 'done', error: null });
    expect(job(db)).toMatchObject({ status: 'completed', attempts: 1, interruptions: 5 });
  });

  it('gives a graceful close its attempt back, deploy after deploy', async () => {
    const db = new Database(':memory:');
    let id = '';
    for (let deploy = 0; deploy < 4; deploy++) {
      let reached: () => void = () => undefined;
      const embedding = new Promise<void>((resolve) => {
        reached = resolve;
      });
      const stuck: EmbeddingProvider = {
        model: 'bow-test',
        dimensions: 64,
        embed: () => {
          reached();
          return new Promise(() => undefined); // never answers: the deploy interrupts it
        },
      };
      const { engine, scheduler } = await docEngine(db, {
        embedder: stuck,
        config: { documents: { chunkSize: 400, chunkOverlap: 40 }, queue: { closeDeadlineMs: 0 } },
      });
      if (deploy === 0) id = (await engine.documents.add({ agentId: 'a', content: TEXT })).id;
      await engine.start();
      await scheduler.runDue();
      await embedding;
      await engine.close();
      await settle();
      expect(job(db)).toMatchObject({ status: 'pending', attempts: 0, interruptions: 0 });
    }
    const { engine } = await docEngine(db);
    await engine.runDue();
    expect(await engine.documents.get({ agentId: 'a', id })).toMatchObject({ status: 'done' });
  });

  it('marks a document whose job died as failed with the reason, and retries it with documents.retry', async () => {
    const db = new Database(':memory:');
    const { engine } = await docEngine(db);
    const { id } = await engine.documents.add({ agentId: 'a', content: TEXT });
    // Left mid-ingest with no attempts left (three interruptions under the old accounting):
    // startup recovery dead-letters the job.
    db.prepare("UPDATE documents SET status = 'embedding' WHERE id = ?").run(id);
    db.prepare("UPDATE memory_jobs SET attempts = max_attempts WHERE job_type = 'document_ingest'").run();
    await engine.runDue();
    expect(job(db).status).toBe('dead');
    expect(await engine.documents.get({ agentId: 'a', id })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/job .* (died|dead)/),
    });
    await expect(engine.documents.retry({ agentId: 'b', id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(engine.documents.retry({ agentId: 'a', id: 'no-such-document' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const retried = await engine.documents.retry({ agentId: 'a', id });
    expect(retried).toMatchObject({ id, jobId: expect.any(String) });
    expect(await engine.documents.get({ agentId: 'a', id })).toMatchObject({ status: 'queued', error: null });
    await engine.runDue();
    expect(await engine.documents.get({ agentId: 'a', id })).toMatchObject({ status: 'done', error: null });
    await expect(engine.documents.retry({ agentId: 'a', id })).rejects.toMatchObject({ code: 'CONFLICT' });
  });
});
