import { describe, expect, it } from 'vitest';
import { startServer } from './helpers.js';

/** A signet-export v1 record. */
function exportRecord(n: number): string {
  const messages = [
    { role: 'user', content: `Question ${n} about the garden` },
    { role: 'assistant', content: `Answer ${n}: water the tomatoes` },
  ];
  return JSON.stringify({
    id: `rec-${n}`,
    source: 'claude-code',
    harness: 'claude-code',
    agent_id: 'someone-else',
    session_key: `session-${n}`,
    project: 'alpha',
    timestamp: new Date(Date.UTC(2025, 0, 1 + n, 12)).toISOString(),
    message_count: messages.length,
    messages,
  });
}

describe('transcripts over HTTP', () => {
  it('appends, completes, reads, lists and searches sessions; rejects bad turns', async () => {
    const { request, token } = await startServer();
    const t = await token(['bot']);
    const key = encodeURIComponent('chat/2026 #1');
    const appended = await request('POST', `/api/transcripts/${key}/turns`, {
      token: t,
      body: {
        project: 'alpha',
        turns: [
          { role: 'user', content: 'Where did I park the bicycle?', id: 't1' },
          { role: 'tool', content: '{"ignored": true}' },
          { role: 'assistant', content: 'Behind the library, near the oak.', id: 't2' },
        ],
      },
    });
    expect(appended.status).toBe(200);
    expect(appended.body).toMatchObject({ appended: 2 });
    const session = await request('GET', `/api/transcripts/${key}`, { token: t });
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ sessionKey: 'chat/2026 #1', project: 'alpha' });
    expect(session.body.turns.map((turn: { content: string }) => turn.content)).toEqual([
      'Where did I park the bicycle?',
      'Behind the library, near the oak.',
    ]);
    const completed = await request('POST', `/api/transcripts/${key}/complete`, { token: t });
    expect(completed.body).toEqual({ completed: true });
    const list = await request('GET', '/api/transcripts?project=alpha&completed=true', { token: t });
    expect(list.body.sessions.map((s: { sessionKey: string }) => s.sessionKey)).toEqual(['chat/2026 #1']);
    const search = await request('POST', '/api/transcripts/search', { token: t, body: { query: 'bicycle' } });
    expect(search.status).toBe(200);
    expect(search.body.hits[0]).toMatchObject({ sessionKey: 'chat/2026 #1' });

    expect((await request('GET', '/api/transcripts/nope', { token: t })).status).toBe(404);
    const bad = await request('POST', `/api/transcripts/${key}/turns`, {
      token: t,
      body: { turns: [{ role: 'narrator', content: 'x' }] },
    });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'INVALID_INPUT']);
    const empty = await request('POST', `/api/transcripts/${key}/turns`, { token: t, body: { turns: [] } });
    expect(empty.status).toBe(400);
    expect((await request('POST', '/api/transcripts/search', { token: t, body: { q: 'x' } })).status).toBe(400);
    // A session may be called `search`: reading it is a GET, searching a POST.
    await request('POST', '/api/transcripts/search/turns', {
      token: t,
      body: { turns: [{ role: 'user', content: 'hi' }] },
    });
    expect((await request('GET', '/api/transcripts/search', { token: t })).body).toMatchObject({
      sessionKey: 'search',
    });
    const other = await token(['eve']);
    expect((await request('GET', `/api/transcripts/${key}`, { token: other })).status).toBe(404);
  });
});

describe('documents over HTTP', () => {
  it('adds, ingests, lists, reads and deletes a document; retry of a healthy one is a conflict', async () => {
    const { request, token, engine } = await startServer();
    const t = await token(['bot']);
    const added = await request('POST', '/api/documents', {
      token: t,
      body: { content: 'The greenhouse opens at seven. Seedlings need daily water.', title: 'Greenhouse' },
    });
    expect(added.status).toBe(202);
    expect(added.body).toEqual({ id: expect.any(String), jobId: expect.any(String), outcome: 'added' });
    const id: string = added.body.id;
    const job = await request('GET', `/api/jobs/${added.body.jobId}?agentId=bot`, { token: t });
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({ id: added.body.jobId, status: 'pending' });
    await engine.runDue();
    const doc = await request('GET', `/api/documents/${id}`, { token: t });
    expect(doc.body).toMatchObject({ id, title: 'Greenhouse', status: 'done' });
    const list = await request('GET', '/api/documents?status=done', { token: t });
    expect(list.body.documents.map((d: { id: string }) => d.id)).toEqual([id]);
    const retry = await request('POST', `/api/documents/${id}/retry`, { token: t });
    expect([retry.status, retry.body.error.code]).toEqual([409, 'CONFLICT']);
    const deleted = await request('DELETE', `/api/documents/${id}`, { token: t });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: true });
    // A fetch the address guard refuses fails the document; retry queues it again.
    const refused = await request('POST', '/api/documents', { token: t, body: { url: 'http://127.0.0.1:9/doc' } });
    expect(refused.status).toBe(202);
    await engine.runDue();
    const failed = await request('GET', `/api/documents/${refused.body.id}`, { token: t });
    expect(failed.body).toMatchObject({ status: 'failed', error: expect.any(String) });
    const retried = await request('POST', `/api/documents/${refused.body.id}/retry`, { token: t });
    expect(retried.status).toBe(202);
    expect(retried.body).toEqual({ id: refused.body.id, jobId: expect.any(String) });
    expect((await request('POST', '/api/documents', { token: t, body: { url: 'ftp://x' } })).status).toBe(400);
    expect((await request('POST', '/api/documents', { token: t, body: { title: 'no content' } })).status).toBe(400);
    expect((await request('GET', '/api/documents?status=lost', { token: t })).status).toBe(400);
    const other = await token(['eve']);
    expect((await request('GET', `/api/documents/${id}`, { token: other })).status).toBe(404);
    expect((await request('GET', `/api/jobs/${added.body.jobId}`, { token: other })).status).toBe(404);
  });
});

describe('imports over HTTP', () => {
  it('streams an upload, reports status and per-line records, and controls the import', async () => {
    const { request, token, engine } = await startServer();
    const t = await token(['bot']);
    const upload = `${exportRecord(1)}\n{"broken": \n${exportRecord(2)}\n`;
    const started = await request('POST', '/api/imports', {
      token: t,
      raw: upload,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(started.status).toBe(202);
    const jobId: string = started.body.jobId;
    expect(jobId).toEqual(expect.any(String));
    const paused = await request('POST', `/api/imports/${jobId}/pause`, { token: t });
    expect(paused.body).toMatchObject({ jobId, status: 'paused' });
    const resumed = await request('POST', `/api/imports/${jobId}/resume`, { token: t });
    expect(resumed.status).toBe(200);
    await engine.runDue();
    const status = await request('GET', `/api/imports/${jobId}`, { token: t });
    expect(status.body).toMatchObject({
      jobId,
      agentId: 'bot',
      status: 'completed_with_rejections',
      counters: { total: 3, imported: 2, duplicate: 0, rejected: 1, pending: 0 },
    });
    const records = await request('GET', `/api/imports/${jobId}/records?outcome=rejected`, { token: t });
    // Lines count from 0.
    expect(records.body.records).toEqual([
      expect.objectContaining({ line: 1, outcome: 'rejected', reason: 'malformed_json' }),
    ]);
    const page = await request('GET', `/api/imports/${jobId}/records?afterLine=0&limit=1`, { token: t });
    expect(page.body.records.map((r: { line: number }) => r.line)).toEqual([1]);
    expect((await request('GET', '/api/transcripts/session-1', { token: t })).status).toBe(200);
    const cancel = await request('POST', `/api/imports/${jobId}/cancel`, { token: t });
    expect(cancel.status).toBe(409);
    const removed = await request('DELETE', `/api/imports/${jobId}/source`, { token: t });
    expect(removed.body).toEqual({ removedSessions: 2 });
    expect((await request('GET', '/api/transcripts/session-1', { token: t })).status).toBe(404);

    const second = await request('POST', '/api/imports', { token: t, raw: `${exportRecord(3)}\n` });
    const cancelled = await request('POST', `/api/imports/${second.body.jobId}/cancel`, { token: t });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ jobId: second.body.jobId, status: 'cancelled' });

    const other = await token(['eve']);
    expect((await request('GET', `/api/imports/${jobId}`, { token: other })).status).toBe(404);
    expect((await request('GET', `/api/imports/${jobId}/records`, { token: other })).status).toBe(404);
    expect((await request('POST', `/api/imports/${jobId}/pause`, { token: other })).status).toBe(404);
    expect((await request('POST', '/api/imports', { token: t })).status).toBe(400);
    expect((await request('GET', `/api/imports/${jobId}/records?outcome=maybe`, { token: t })).status).toBe(400);
  });
});

describe('jobs diagnostics and telemetry', () => {
  it('admin tokens read engine diagnostics; analytics tokens read recall telemetry of their agent', async () => {
    const { request, token } = await startServer({ engine: { config: { telemetry: { recallQa: true } } } });
    const admin = await token(['bot'], ['admin']);
    const diagnostics = await request('GET', '/api/jobs/diagnostics', { token: admin });
    expect(diagnostics.status).toBe(200);
    expect(diagnostics.body).toMatchObject({ started: false, queue: expect.any(Array), providers: expect.any(Object) });
    const rw = await token(['bot'], ['read', 'write']);
    await request('POST', '/api/memories', { token: rw, body: { content: 'telemetry sample' } });
    await request('POST', '/api/recall', { token: rw, body: { query: 'telemetry' } });
    const analytics = await token(['bot'], ['analytics']);
    const telemetry = await request('GET', '/api/telemetry/recall?limit=5', { token: analytics });
    expect(telemetry.status).toBe(200);
    expect(telemetry.body.recalls).toEqual([expect.objectContaining({ agentId: 'bot', query: 'telemetry' })]);
    const otherAnalytics = await token(['eve'], ['analytics']);
    expect((await request('GET', '/api/telemetry/recall', { token: otherAnalytics })).body.recalls).toEqual([]);
    expect((await request('GET', '/api/telemetry/recall?agentId=bot', { token: otherAnalytics })).status).toBe(404);
    expect((await request('GET', '/api/jobs/not-a-job', { token: rw })).status).toBe(404);
  });
});
