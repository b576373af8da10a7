// Documents, connectors and workspace search, once, on every backend: SQLite, PGlite, and the run's
// PostgreSQL server when there is one. Each test keeps to its own agents; every backend runs the
// same operations in the same order (same clock, same sequential ids), so their answers must agree.
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentSearchHit } from '../../src/documents/search-documents.js';
import { BACKENDS, type DocumentParts } from './document-backends.js';

/** A text of several chunks (200 characters each) about `topic`. */
const text = (topic: string, filler = 'plain words about nothing in particular') =>
  Array.from(
    { length: 4 },
    (_, i) =>
      `Paragraph ${i} on ${topic}. ${i % 2 === 0 ? `The ${topic} appears here again, ${topic}.` : ''} ${filler}.`,
  ).join('\n\n');

/** What agreement across backends compares: every answer a test recorded, by backend. */
const answers = new Map<string, Record<string, unknown>>();
const shape = (hits: readonly DocumentSearchHit[]) =>
  hits.map((h) => ({ memoryId: h.memoryId, documentId: h.documentId, score: h.score, chunkIndex: h.chunkIndex }));

describe.each(BACKENDS)('documents contract on $name', (backend) => {
  const test = backend.skip ? it.skip : it;
  if (backend.skip) it.skip(`skipped: ${backend.skip}`, () => undefined);
  let p: DocumentParts;
  const recorded: Record<string, unknown> = {};
  beforeAll(async () => {
    if (backend.skip) return;
    p = await backend.open();
    answers.set(backend.name, recorded);
  }, 120_000);
  afterAll(async () => {
    if (backend.skip) return;
    await p?.close();
    await backend.close();
  });

  test('registers and ingests text into chunk memories, found by search within its scope only', async () => {
    const added = await p.documents.add({ agentId: 'a1', content: text('zebra'), path: 'notes/zebra.md' });
    expect(added.outcome).toBe('added');
    expect(await p.documents.get({ agentId: 'a1', id: added.id })).toMatchObject({ status: 'queued' });
    expect(await p.jobStatus(added.jobId)).toBe('pending');
    await p.runJobs();
    const doc = await p.documents.get({ agentId: 'a1', id: added.id });
    expect(doc).toMatchObject({ status: 'done', sourcePath: 'notes/zebra.md', conversion: 1, error: null });
    expect(doc?.chunkCount).toBeGreaterThan(1);
    expect(doc?.memoryCount).toBe(doc?.chunkCount);

    const hits = await p.search({ agentId: 'a1', query: 'zebra' });
    expect(hits.length).toBeGreaterThan(0);
    for (const hit of hits) {
      expect(hit.score).toBeGreaterThan(0);
      expect(hit.content).toContain('zebra');
      expect(hit.document).toMatchObject({ id: added.id, path: 'notes/zebra.md', mediaType: 'text/plain' });
    }
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));

    // Scope purity: another agent's documents change neither a1's hits nor their scores.
    const other = await p.documents.add({ agentId: 'b1', content: text('zebra', 'zebra zebra zebra stripes') });
    await p.runJobs();
    expect(await p.search({ agentId: 'a1', query: 'zebra' })).toEqual(hits);
    const theirs = await p.search({ agentId: 'b1', query: 'zebra stripes' });
    expect(theirs.length).toBeGreaterThan(0);
    expect(new Set(theirs.map((h) => h.documentId))).toEqual(new Set([other.id]));
    // Another agent's document is indistinguishable from a missing one.
    expect(await p.documents.get({ agentId: 'b1', id: added.id })).toBeUndefined();
    await expect(p.documents.delete({ agentId: 'b1', id: added.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await p.documents.list({ agentId: 'a1' })).toHaveLength(1);
    // Filters: path prefix and media type.
    expect(await p.search({ agentId: 'a1', query: 'zebra', path: 'notes/' })).toEqual(hits);
    expect(await p.search({ agentId: 'a1', query: 'zebra', path: 'other/' })).toEqual([]);
    expect(await p.search({ agentId: 'a1', query: 'zebra', mediaType: 'application/pdf' })).toEqual([]);
    recorded.scoped = { hits: shape(hits), theirs: shape(theirs) };
  });

  test('re-adding a source: unchanged is a no-op, changed replaces the conversion and keeps its lineage', async () => {
    const first = await p.documents.add({ agentId: 'a2', content: text('alpha'), path: 'r.md' });
    await p.runJobs();
    const again = await p.documents.add({ agentId: 'a2', content: text('alpha'), path: 'r.md' });
    expect(again).toEqual({ id: first.id, jobId: first.jobId, outcome: 'unchanged' });
    expect(await p.runJobs()).toEqual([]);

    const changed = await p.documents.add({ agentId: 'a2', content: text('omega'), path: 'r.md' });
    expect(changed).toMatchObject({ id: first.id, outcome: 'updated' });
    expect(changed.jobId).not.toBe(first.jobId);
    await p.runJobs();
    const doc = await p.documents.get({ agentId: 'a2', id: first.id });
    expect(doc).toMatchObject({ status: 'done', conversion: 2 });
    const lineage = await p.documents.conversions({ agentId: 'a2', id: first.id });
    expect(lineage).toHaveLength(1);
    expect(lineage[0]).toMatchObject({ conversion: 1, contentType: 'text/plain' });
    expect(lineage[0]?.chunkCount).toBeGreaterThan(0);
    expect(await p.documents.conversions({ agentId: 'b2', id: first.id })).toEqual([]);
    // The old conversion's chunks are forgotten; the new one's are found.
    expect(await p.search({ agentId: 'a2', query: 'alpha' })).toEqual([]);
    const omega = await p.search({ agentId: 'a2', query: 'omega' });
    expect(omega.length).toBeGreaterThan(0);
    // A failed document is retried; a done one is not.
    await expect(p.documents.retry({ agentId: 'a2', id: first.id })).rejects.toMatchObject({ code: 'CONFLICT' });
    recorded.replaced = { omega: shape(omega), lineage };
  });

  test('delete cancels a queued ingest, forgets exclusive chunks, and is idempotent', async () => {
    const queued = await p.documents.add({ agentId: 'a3', content: text('never') });
    expect(await p.documents.delete({ agentId: 'a3', id: queued.id })).toEqual({ deleted: true, forgottenChunks: 0 });
    expect(await p.jobStatus(queued.jobId)).toBe('cancelled');

    const done = await p.documents.add({ agentId: 'a3', content: text('kept') });
    await p.runJobs();
    const before = await p.search({ agentId: 'a3', query: 'kept' });
    expect(before.length).toBeGreaterThan(0);
    const deletion = await p.documents.delete({ agentId: 'a3', id: done.id });
    expect(deletion.deleted).toBe(true);
    expect(deletion.forgottenChunks).toBe(new Set(before.map((h) => h.memoryId)).size);
    expect(await p.search({ agentId: 'a3', query: 'kept' })).toEqual([]);
    expect(await p.documents.get({ agentId: 'a3', id: done.id })).toMatchObject({ status: 'deleted' });
    expect(await p.documents.delete({ agentId: 'a3', id: done.id })).toEqual({ deleted: false, forgottenChunks: 0 });
    recorded.deleted = deletion;
  });

  test('a dead ingest or sync job marks its document failed (retryable) and its connector in error', async () => {
    const added = await p.documents.add({ agentId: 'a4', content: text('doomed') });
    expect(await p.killNextJob('the worker crashed')).toBe(added.jobId);
    const failed = await p.documents.get({ agentId: 'a4', id: added.id });
    expect(failed?.status).toBe('failed');
    expect(failed?.error).toContain(`ingest job ${added.jobId} died: the worker crashed`);
    const retried = await p.documents.retry({ agentId: 'a4', id: added.id });
    expect(retried.id).toBe(added.id);
    expect(retried.jobId).not.toBe(added.jobId);
    await p.runJobs();
    expect(await p.documents.get({ agentId: 'a4', id: added.id })).toMatchObject({ status: 'done', error: null });

    const root = await mkdtemp(join(tmpdir(), 'documents-contract-'));
    try {
      const connector = await p.connectors.register({ agentId: 'a4', kind: 'folder', root });
      const sync = await p.connectors.sync({ agentId: 'a4', id: connector.id });
      expect(await p.killNextJob('out of memory')).toBe(sync.jobId);
      const status = await p.connectors.status({ agentId: 'a4', id: connector.id });
      expect(status).toMatchObject({ status: 'error', lastError: `sync job ${sync.jobId} died: out of memory` });
      expect(status?.sync.running).toBe(false);
      recorded.died = { failed, status: { ...status, config: {} } };
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  test('connectors: register, sync items, follow changes and removals, remove', async () => {
    const root = await mkdtemp(join(tmpdir(), 'documents-contract-'));
    try {
      await writeFile(join(root, 'a.md'), text('walrus'));
      await writeFile(join(root, 'b.md'), text('narwhal'));
      const connector = await p.connectors.register({ agentId: 'c1', kind: 'folder', root, name: 'notes' });
      expect(connector).toMatchObject({ kind: 'folder', status: 'idle', items: 0, agentId: 'c1' });
      expect(await p.connectors.status({ agentId: 'c2', id: connector.id })).toBeUndefined();

      const sync = await p.connectors.sync({ agentId: 'c1', id: connector.id });
      expect(sync).toMatchObject({ id: connector.id, sync: 1 });
      expect(await p.connectors.sync({ agentId: 'c1', id: connector.id })).toEqual(sync);
      await p.runJobs();
      const first = await p.connectors.status({ agentId: 'c1', id: connector.id });
      expect(first).toMatchObject({ status: 'idle', items: 2, documents: { done: 2 } });
      expect(first?.sync).toMatchObject({ number: 1, running: false, stats: { added: 2, deleted: 0 } });
      const walrus = await p.search({ agentId: 'c1', query: 'walrus', connectorId: connector.id });
      expect(walrus.length).toBeGreaterThan(0);
      expect(walrus[0]?.document).toMatchObject({ path: 'a.md', connectorId: connector.id });

      // A changed file (another size), a gone one and a new one.
      await writeFile(join(root, 'a.md'), text('walrus', 'now with tusks and more words than before'));
      await unlink(join(root, 'b.md'));
      await writeFile(join(root, 'c.md'), text('beluga'));
      await p.connectors.sync({ agentId: 'c1', id: connector.id });
      await p.runJobs();
      const second = await p.connectors.status({ agentId: 'c1', id: connector.id });
      expect(second).toMatchObject({ items: 2, documents: { done: 2, deleted: 1 } });
      expect(second?.sync.stats).toMatchObject({ added: 1, updated: 1, deleted: 1 });
      expect(await p.search({ agentId: 'c1', query: 'narwhal' })).toEqual([]);
      expect((await p.search({ agentId: 'c1', query: 'beluga' })).length).toBeGreaterThan(0);
      expect(await p.connectors.list({ agentId: 'c1' })).toHaveLength(1);
      expect(await p.connectors.list({ agentId: 'c2' })).toEqual([]);

      await expect(p.connectors.remove({ agentId: 'c2', id: connector.id })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
      expect(await p.connectors.remove({ agentId: 'c1', id: connector.id })).toEqual({
        removed: true,
        deletedDocuments: 2,
      });
      expect(await p.connectors.status({ agentId: 'c1', id: connector.id })).toBeUndefined();
      expect(await p.search({ agentId: 'c1', query: 'walrus beluga' })).toEqual([]);
      const docs = await p.documents.list({ agentId: 'c1' });
      expect(docs.map((d) => d.status)).toEqual(['deleted', 'deleted', 'deleted']);
      recorded.connector = { first: first?.sync.stats, second: second?.sync.stats, walrus: shape(walrus) };
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('documents contract: every backend answers as SQLite does', () => {
  it('has the same hits, scores, lineage and counts on each backend that ran', () => {
    const sqlite = answers.get('sqlite');
    expect(sqlite).toBeDefined();
    for (const [name, answer] of answers) expect({ name, answer }).toEqual({ name, answer: sqlite });
  });
});
