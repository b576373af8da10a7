import { describe, expect, it } from 'vitest';
import { makePdf } from '../../ingest/test/fixtures/make-documents.js';
import { startServer } from '../../ingest/test/http-server.js';
import { createTestEngine } from './helpers.js';

const config = { documents: { chunkSize: 300, chunkOverlap: 30 } };

const para = (topic: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) => `Paragraph ${i} about ${topic}: the ${topic} team records decision ${i} and reviews it every week.`,
  ).join('\n\n');

describe('conversion lineage', () => {
  it('re-adding unchanged bytes at the same path is a no-op that returns the existing document', async () => {
    const { engine } = await createTestEngine({ config });
    const bytes = Buffer.from(`# Notes\n\n${para('harbor', 6)}`);
    const first = await engine.documents.add({ agentId: 'a', bytes, mediaType: 'text/markdown', path: 'notes.md' });
    expect(first.outcome).toBe('added');
    await engine.runDue();
    const before = await engine.documents.get({ agentId: 'a', id: first.id });
    expect(before?.status).toBe('done');
    const again = await engine.documents.add({ agentId: 'a', bytes, mediaType: 'text/markdown', path: 'notes.md' });
    expect(again).toEqual({ id: first.id, jobId: first.jobId, outcome: 'unchanged' });
    // Nothing was queued, nothing changed.
    expect((await engine.runDue()).ran).toBe(0);
    expect(await engine.documents.get({ agentId: 'a', id: first.id })).toEqual(before);
    expect(await engine.documents.list({ agentId: 'a' })).toHaveLength(1);
    // Text given without a path is identified by its bytes.
    const text = await engine.documents.add({ agentId: 'a', content: para('ferry', 2) });
    await engine.runDue();
    expect(await engine.documents.add({ agentId: 'a', content: para('ferry', 2) })).toMatchObject({
      id: text.id,
      outcome: 'unchanged',
    });
    // Another agent adding the same bytes gets its own document.
    const other = await engine.documents.add({ agentId: 'b', bytes, mediaType: 'text/markdown', path: 'notes.md' });
    expect(other.outcome).toBe('added');
    expect(other.id).not.toBe(first.id);
    await engine.close();
  });

  it('changed bytes replace the chunks through the memory writer and keep the previous conversion', async () => {
    const { engine } = await createTestEngine({ config });
    const v1 = Buffer.from(`${para('harbor', 4)}\n\n${para('lighthouse', 4)}`);
    const added = await engine.documents.add({ agentId: 'a', bytes: v1, mediaType: 'text/plain', path: 'plan.txt' });
    await engine.runDue();
    const firstView = await engine.documents.get({ agentId: 'a', id: added.id });
    const oldHits = await engine.documents.search({ agentId: 'a', query: 'lighthouse' });
    expect(oldHits.length).toBeGreaterThan(0);
    const kept = await engine.documents.search({ agentId: 'a', query: 'harbor' });
    const keptIds = new Set(kept.map((h) => h.memoryId));

    // The harbor half stays; the lighthouse half is replaced by a glacier one.
    const v2 = Buffer.from(`${para('harbor', 4)}\n\n${para('glacier', 4)}`);
    const replaced = await engine.documents.add({ agentId: 'a', bytes: v2, mediaType: 'text/plain', path: 'plan.txt' });
    expect(replaced).toMatchObject({ id: added.id, outcome: 'updated' });
    expect(replaced.jobId).not.toBe(added.jobId);
    await engine.runDue();
    const doc = await engine.documents.get({ agentId: 'a', id: added.id });
    expect(doc).toMatchObject({ status: 'done', conversion: 2, sourcePath: 'plan.txt' });
    expect(doc?.extraction?.byteHash).not.toBe(firstView?.extraction?.byteHash);

    const history = await engine.documents.conversions({ agentId: 'a', id: added.id });
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      conversion: 1,
      byteHash: firstView?.extraction?.byteHash,
      chunkCount: firstView?.chunkCount,
      memoryCount: firstView?.memoryCount,
      completedAt: firstView?.completedAt,
    });

    expect(await engine.documents.search({ agentId: 'a', query: 'lighthouse' })).toEqual([]);
    expect((await engine.documents.search({ agentId: 'a', query: 'glacier' })).length).toBeGreaterThan(0);
    // Unchanged chunks keep their memories (not re-created); the replaced ones are forgotten with history.
    const harbor = await engine.documents.search({ agentId: 'a', query: 'harbor' });
    expect(harbor.some((h) => keptIds.has(h.memoryId))).toBe(true);
    for (const hit of oldHits) {
      if (keptIds.has(hit.memoryId)) continue;
      const memory = await engine.getMemory({ agentId: 'a', id: hit.memoryId, includeDeleted: true });
      expect(memory?.deleted).toBe(true);
      const events = await engine.history({ agentId: 'a', id: hit.memoryId });
      expect(events.map((e) => e.event)).toContain('deleted');
      expect(events.find((e) => e.event === 'deleted')?.reason).toMatch(/conversion 2 replaced/);
    }
    // Re-adding the same new bytes now is a no-op again.
    expect(
      (await engine.documents.add({ agentId: 'a', bytes: v2, mediaType: 'text/plain', path: 'plan.txt' })).outcome,
    ).toBe('unchanged');
    await engine.close();
  });

  it('a PDF chunk is found with its page, in workspace search and in recall', async () => {
    const { engine } = await createTestEngine({ config });
    // Pages longer than a chunk, so the chunk that holds the osprey line starts on page 2.
    const filler = (topic: string) =>
      Array.from({ length: 8 }, (_, i) => `Line ${i} of the ${topic} section of the report.`).join('\n');
    const pdf = await makePdf(
      [
        filler('introduction'),
        `${filler('revenue')}\nRevenue grew because the osprey program sold more tickets.\n${filler('costs')}`,
        filler('outlook'),
      ],
      'Annual report',
    );
    const { id } = await engine.documents.add({
      agentId: 'a',
      bytes: pdf,
      mediaType: 'application/pdf',
      path: 'reports/annual.pdf',
    });
    await engine.runDue();
    const [hit] = await engine.documents.search({ agentId: 'a', query: 'osprey tickets' });
    expect(hit?.document).toMatchObject({ id, path: 'reports/annual.pdf', mediaType: 'application/pdf' });
    expect(hit?.location?.page).toBe(2);
    const { results } = await engine.recall({ agentId: 'a', query: 'osprey tickets' });
    const chunk = results.find((r) => r.type === 'document_chunk');
    expect(chunk?.document).toMatchObject({ id, path: 'reports/annual.pdf', page: 2 });
    // Another agent's recall and search see none of it.
    expect(await engine.documents.search({ agentId: 'b', query: 'osprey tickets' })).toEqual([]);
    expect((await engine.recall({ agentId: 'b', query: 'osprey tickets' })).results).toEqual([]);
    await engine.close();
  });

  it('a URL added again is fetched again: equal bytes leave its chunks alone, changed ones convert it anew', async () => {
    let page = `<html><body><article><h1>Ferry</h1><p>${para('ferry', 3)}</p></article></body></html>`;
    const server = await startServer({
      '/ferry': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(page);
      },
    });
    try {
      const { engine, clock } = await createTestEngine({
        config: { documents: { ...config.documents, allowList: ['127.0.0.1'] } },
      });
      const url = server.url('/ferry');
      const first = await engine.documents.add({ agentId: 'a', url });
      await engine.runDue();
      const before = await engine.documents.get({ agentId: 'a', id: first.id });
      expect(before).toMatchObject({ status: 'done', conversion: 1 });
      const chunks = (await engine.documents.search({ agentId: 'a', query: 'ferry' })).map((h) => h.memoryId);
      clock.advance(60_000);
      const again = await engine.documents.add({ agentId: 'a', url });
      expect(again).toMatchObject({ id: first.id, outcome: 'updated' });
      await engine.runDue();
      // The job completed without converting anything: same conversion, same completion, same chunks.
      expect((await engine.jobs.get({ id: again.jobId, agentId: 'a' }))?.status).toBe('completed');
      expect((await engine.documents.search({ agentId: 'a', query: 'ferry' })).map((h) => h.memoryId)).toEqual(chunks);
      expect(await engine.documents.get({ agentId: 'a', id: first.id })).toMatchObject({
        status: 'done',
        conversion: 1,
        completedAt: before?.completedAt,
      });
      page = page.replace(/ferry/gi, 'tram');
      await engine.documents.add({ agentId: 'a', url });
      await engine.runDue();
      expect(await engine.documents.get({ agentId: 'a', id: first.id })).toMatchObject({
        status: 'done',
        conversion: 2,
      });
      expect(await engine.documents.search({ agentId: 'a', query: 'ferry' })).toEqual([]);
      expect((await engine.documents.search({ agentId: 'a', query: 'tram' }))[0]?.document.url).toBe(url);
      expect(server.hits.filter((h) => h === '/ferry')).toHaveLength(3);
      await engine.close();
    } finally {
      await server.close();
    }
  });
});
