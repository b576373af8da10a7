import { createManualClock, createManualScheduler } from '@memory/core';
import { settle, waitForJob } from '@memory/queue/testing';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../ingest/test/http-server.js';
import { createBagOfWordsEmbedder, createTestEngine, jobsById, T0 } from './helpers.js';

let server: Awaited<ReturnType<typeof startServer>>;
let releaseSlow: () => void = () => undefined;
let slowHit: () => void = () => undefined;

const CODES = [
  'alpha',
  'bravo',
  'charlie',
  'delta',
  'echo',
  'foxtrot',
  'golf',
  'hotel',
  'india',
  'juliet',
  'kilo',
  'lima',
];
const LONG_TEXT = CODES.map(
  (code, i) =>
    `Section ${i + 1}. The quarterly planning review for project Kestrel covers budget line ${code} and hiring. ${'Details follow in prose. '.repeat(8)}`,
).join('\n\n');

beforeAll(async () => {
  server = await startServer({
    '/handbook': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<html><head><title>Team Handbook</title></head><body><h1>On-call</h1><p>The on-call engineer owns the status page.</p><script>track()</script></body></html>',
      );
    },
    '/always-503': (_req, res) => {
      res.writeHead(503);
      res.end();
    },
    '/slow-doc': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      releaseSlow = () => res.end('Secret roadmap text that must never be indexed after deletion.');
      slowHit();
    },
  });
});
afterAll(async () => {
  releaseSlow();
  await server.close();
});

async function docEngine(extra: Record<string, unknown> = {}) {
  const db = new Database(':memory:');
  const clock = createManualClock(T0);
  const scheduler = createManualScheduler(clock);
  const { engine } = await createTestEngine({
    database: { database: db },
    clock,
    scheduler,
    config: { documents: { allowList: ['127.0.0.1'], chunkSize: 400, chunkOverlap: 40 }, queue: { retryBaseMs: 1000 } },
    ...extra,
  });
  return { engine, clock, scheduler, db };
}

describe('documents', () => {
  it('ingests raw content into linked document_chunk memories, queued → done', async () => {
    const embedder = createBagOfWordsEmbedder();
    const { engine, db } = await docEngine({ embedder });
    const { id, jobId } = await engine.documents.add({
      agentId: 'a',
      content: LONG_TEXT,
      title: 'Kestrel planning',
      project: 'kestrel',
    });
    expect(await engine.documents.get({ agentId: 'a', id })).toMatchObject({
      status: 'queued',
      title: 'Kestrel planning',
      sourceType: 'text',
    });
    expect(await engine.runDue()).toEqual({ reaped: 0, ran: 1 });
    const doc = await engine.documents.get({ agentId: 'a', id });
    expect(doc).toMatchObject({ status: 'done', error: null, completedAt: T0 });
    expect(doc?.chunkCount).toBeGreaterThan(3);
    expect(doc?.memoryCount).toBe(doc?.chunkCount);
    expect(await engine.jobs.get({ id: jobId, agentId: 'a' })).toMatchObject({ status: 'completed' });
    const rows = db
      .prepare(
        'SELECT m.type, m.importance, m.project, m.source_type, m.source_id, d.chunk_index FROM document_memories d JOIN memories m ON m.id = d.memory_id WHERE d.document_id = ? ORDER BY d.chunk_index',
      )
      .all(id) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(doc?.chunkCount ?? -1);
    expect(rows[0]).toEqual({
      type: 'document_chunk',
      importance: 0.3,
      project: 'kestrel',
      source_type: 'document',
      source_id: id,
      chunk_index: 0,
    });
    expect(db.prepare('SELECT count(*) AS n FROM embeddings').get()).toEqual({ n: doc?.chunkCount });
    const { results } = await engine.recall({ agentId: 'a', query: 'Kestrel budget juliet', type: 'document_chunk' });
    expect(results[0]?.content).toContain('budget line juliet');
    expect(await engine.documents.get({ agentId: 'b', id })).toBeUndefined();
  });

  it('fetches a URL, extracts its HTML as Markdown and writes the fetched title back', async () => {
    const { engine } = await docEngine();
    const { id } = await engine.documents.add({ agentId: 'a', url: server.url('/handbook') });
    await engine.runDue();
    expect(await engine.documents.get({ agentId: 'a', id })).toMatchObject({
      status: 'done',
      title: 'Team Handbook',
      contentType: 'text/html',
      chunkCount: 1,
    });
    const { results } = await engine.recall({ agentId: 'a', query: 'who owns the status page' });
    expect(results.map((r) => r.content)).toEqual([
      // Readability demotes the article's h1 (the page title names the page) to h2.
      '## On-call\n\nThe on-call engineer owns the status page.'.replace(/\s+/g, ' '),
    ]);
  });

  it('retries a failing fetch within the job budget, then dead-letters it and marks the document failed', async () => {
    const { engine, clock } = await docEngine();
    const { id, jobId } = await engine.documents.add({ agentId: 'a', url: server.url('/always-503') });
    for (let attempt = 1; attempt <= 3; attempt++) {
      await engine.runDue();
      expect(await engine.jobs.get({ id: jobId, agentId: 'a' })).toMatchObject({
        attempts: attempt,
        status: attempt < 3 ? 'pending' : 'dead',
      });
      expect(await engine.documents.get({ agentId: 'a', id })).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/HTTP 503/),
      });
      clock.advance(10_000);
    }
  });

  it('refuses private targets at fetch time unless allow-listed, without retrying', async () => {
    const { engine } = await docEngine({ config: { documents: { allowList: [] } } });
    const { id, jobId } = await engine.documents.add({ agentId: 'a', url: server.url('/handbook') });
    await engine.runDue();
    expect(await engine.documents.get({ agentId: 'a', id })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/loopback/),
    });
    expect(await engine.jobs.get({ id: jobId, agentId: 'a' })).toMatchObject({ status: 'dead', attempts: 1 });
  });

  it('stops an ingest in flight when the document is deleted, and creates nothing after', async () => {
    const { engine, scheduler, db } = await docEngine();
    const reached = new Promise<void>((resolve) => {
      slowHit = resolve;
    });
    const { id, jobId } = await engine.documents.add({ agentId: 'a', url: server.url('/slow-doc') });
    await engine.start();
    await scheduler.runDue();
    await reached;
    expect((await engine.documents.get({ agentId: 'a', id }))?.status).toBe('extracting');
    expect(await engine.documents.delete({ agentId: 'a', id })).toEqual({ deleted: true, forgottenChunks: 0 });
    releaseSlow();
    await waitForJob(jobsById(engine, 'a'), jobId, ['cancelled'], { scheduler });
    for (let i = 0; i < 5; i++) {
      await scheduler.advance(1000);
      await settle();
    }
    expect(await engine.documents.get({ agentId: 'a', id })).toMatchObject({ status: 'deleted' });
    expect(db.prepare('SELECT count(*) AS n FROM memories').get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT count(*) AS n FROM document_memories').get()).toEqual({ n: 0 });
    expect((await engine.diagnostics()).workers.find((w) => w.workerId === 'document-ingest')).toMatchObject({
      inFlight: 0,
    });
    await engine.close();
  });

  it('delete forgets chunk memories (with history) and cancels a queued ingest', async () => {
    const { engine, db } = await docEngine();
    const done = await engine.documents.add({ agentId: 'a', content: 'Alpha document about lanterns.' });
    await engine.runDue();
    const queued = await engine.documents.add({ agentId: 'a', content: 'Beta document, never processed.' });
    expect(await engine.documents.delete({ agentId: 'a', id: done.id })).toEqual({ deleted: true, forgottenChunks: 1 });
    expect(await engine.documents.delete({ agentId: 'a', id: done.id })).toEqual({
      deleted: false,
      forgottenChunks: 0,
    });
    expect((await engine.recall({ agentId: 'a', query: 'lanterns' })).results).toEqual([]);
    expect(
      db
        .prepare("SELECT count(*) AS n FROM memory_history WHERE event = 'deleted' AND changed_by = 'document-delete'")
        .get(),
    ).toEqual({ n: 1 });
    await engine.documents.delete({ agentId: 'a', id: queued.id });
    expect(await engine.jobs.get({ id: queued.jobId, agentId: 'a' })).toMatchObject({ status: 'cancelled' });
    expect(await engine.runDue()).toEqual({ reaped: 0, ran: 0 });
    await expect(engine.documents.delete({ agentId: 'b', id: queued.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('counts memories, not chunks: identical chunks share one memory', async () => {
    const { engine } = await docEngine({
      config: { documents: { allowList: ['127.0.0.1'], chunkSize: 400, chunkOverlap: 0 } },
    });
    const para = 'The same paragraph about the escalation path appears twice in this document, word for word. '
      .repeat(3)
      .trim();
    const { id } = await engine.documents.add({ agentId: 'a', content: `${para}\n\n${para}` });
    await engine.runDue();
    expect(await engine.documents.get({ agentId: 'a', id })).toMatchObject({
      status: 'done',
      chunkCount: 2,
      memoryCount: 1,
    });
  });

  it('validates input', async () => {
    const { engine } = await docEngine({ config: { documents: { maxBytes: 100 } } });
    for (const bad of [
      { agentId: 'a', url: 'ftp://example.com/x' },
      { agentId: 'a', url: 'not a url' },
      { agentId: 'a', content: '   ' },
      { agentId: 'a', content: 'x'.repeat(101) },
      { agentId: 'a', content: 'ok', contentType: 'image/png' },
      { agentId: 'a' },
    ]) {
      await expect(engine.documents.add(bad as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
    expect(await engine.documents.list({ agentId: 'a' })).toEqual([]);
  });
});
