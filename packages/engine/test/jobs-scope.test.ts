import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isMemoryError } from '../src/index.js';
import { createTestEngine } from './helpers.js';

// Issue 11, item 5: jobs.get answers within a scope and never hands out the engine's own jobs'
// payloads; the engine's job types are reserved for enqueue too.

const ENGINE_JOB_TYPES = [
  'document_ingest',
  'prospective_index',
  'dreaming',
  'maintenance',
  'transcript_import',
  'embedding_migration',
];

async function engineWithDb() {
  const db = new Database(':memory:');
  const { engine } = await createTestEngine({ database: { database: db } });
  const jobCount = () => (db.prepare('SELECT count(*) AS n FROM memory_jobs').get() as { n: number }).n;
  return { engine, db, jobCount };
}

describe('jobs.enqueue', () => {
  it.each(ENGINE_JOB_TYPES)('refuses the engine job type %s with INVALID_INPUT, queuing nothing', async (jobType) => {
    const { engine, jobCount } = await engineWithDb();
    const before = jobCount();
    await expect(
      engine.jobs.enqueue({ jobType, payload: { documentId: 'x', agentId: 'victim' }, agentId: 'victim' }),
    ).rejects.toSatisfy((e) => isMemoryError(e, 'INVALID_INPUT'));
    expect(jobCount()).toBe(before);
  });

  it('keeps dedup keys apart per scope: another agent’s key is neither reused nor revealed', async () => {
    const { engine } = await engineWithDb();
    const mine = await engine.jobs.enqueue({ jobType: 'digest', dedupKey: 'daily', agentId: 'a', payload: { n: 1 } });
    const theirs = await engine.jobs.enqueue({ jobType: 'digest', dedupKey: 'daily', agentId: 'b', payload: { n: 2 } });
    const fresh = await engine.jobs.enqueue({ jobType: 'digest', dedupKey: 'never-used', agentId: 'b' });
    expect(theirs).toEqual({ id: expect.any(String), deduped: false });
    expect(theirs.id).not.toBe(mine.id);
    expect(fresh.deduped).toBe(false);
    expect(await engine.jobs.enqueue({ jobType: 'digest', dedupKey: 'daily', agentId: 'a' })).toEqual({
      id: mine.id,
      deduped: true,
    });
    expect(await engine.jobs.get({ id: mine.id, agentId: 'a' })).toMatchObject({
      dedupKey: 'daily',
      payload: { n: 1 },
    });
    expect(await engine.jobs.get({ id: theirs.id, agentId: 'b' })).toMatchObject({
      dedupKey: 'daily',
      payload: { n: 2 },
    });
  });
});

describe('jobs.get', () => {
  it('answers a host job only within its scope, and the same way as for a missing job elsewhere', async () => {
    const { engine } = await engineWithDb();
    const scoped = await engine.jobs.enqueue({ jobType: 'send', agentId: 'a', payload: { apiKey: 'sk-secret' } });
    const unscoped = await engine.jobs.enqueue({ jobType: 'send', payload: { apiKey: 'host-secret' } });

    expect(await engine.jobs.get({ id: scoped.id, agentId: 'a' })).toMatchObject({
      agentId: 'a',
      payload: { apiKey: 'sk-secret' },
    });
    expect(await engine.jobs.get({ id: unscoped.id })).toMatchObject({ payload: { apiKey: 'host-secret' } });

    const missing = await engine.jobs.get({ id: 'id-404', agentId: 'b' });
    expect(missing).toBeUndefined();
    expect(await engine.jobs.get({ id: scoped.id, agentId: 'b' })).toEqual(missing);
    expect(await engine.jobs.get({ id: scoped.id })).toEqual(missing);
    expect(await engine.jobs.get({ id: unscoped.id, agentId: 'a' })).toEqual(missing);
  });

  it('never returns the engine’s own jobs’ payloads, even in scope', async () => {
    const { engine } = await engineWithDb();
    const { jobId } = await engine.documents.add({ agentId: 'a', content: 'A short handbook about kettles.' });
    expect(await engine.jobs.get({ id: jobId })).toBeUndefined();
    expect(await engine.jobs.get({ id: jobId, agentId: 'b' })).toBeUndefined();
    const view = await engine.jobs.get({ id: jobId, agentId: 'a' });
    expect(view).toMatchObject({ jobType: 'document_ingest', status: 'pending', payload: null, result: null });
    await engine.runDue();
    expect(await engine.jobs.get({ id: jobId, agentId: 'a' })).toMatchObject({
      status: 'completed',
      payload: null,
      result: null,
    });
  });

  it('still hands the payload to the job’s handler', async () => {
    const { engine } = await engineWithDb();
    const seen: unknown[] = [];
    engine.jobs.registerHandler({ jobTypes: ['send'], handler: async (job) => seen.push(job.payload) });
    const { id } = await engine.jobs.enqueue({ jobType: 'send', agentId: 'a', payload: { to: 'dana' } });
    await engine.runDue();
    expect(seen).toEqual([{ to: 'dana' }]);
    expect(await engine.jobs.get({ id, agentId: 'a' })).toMatchObject({ status: 'completed' });
  });

  it('refuses a malformed scope', async () => {
    const { engine } = await engineWithDb();
    await expect(engine.jobs.get({ id: 'x', agentId: '' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(engine.jobs.get({ id: 'x', owner: 'a' } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
