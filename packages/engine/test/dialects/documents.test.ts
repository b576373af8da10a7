import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, createManualScheduler } from '@memory/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder } from '../helpers.js';
import { engineBackends } from '../support/backends.js';

// Documents, connectors and workspace search through the engine on every backend: the same calls,
// the same answers (ingest through the engine's own workers, scope purity, delete, lineage, a folder
// connector's sync and removal, and engines sharing one database).

const T0 = Date.UTC(2026, 0, 1);
const backends = await engineBackends();
const config = { documents: { chunkSize: 200, chunkOverlap: 0 } };
const text = (topic: string) =>
  Array.from({ length: 4 }, (_, i) => `Section ${i} covers the ${topic} in some detail, with notes on ${topic}.`).join(
    '\n\n',
  );
const options = () => {
  const clock = createManualClock(T0);
  return { clock, scheduler: createManualScheduler(clock), config };
};

describe.each(backends)('documents through the engine on $name', (backend) => {
  afterEach(() => backend.cleanup());
  afterAll(() => backend.dispose());

  it.skipIf(backend.skip)('adds, ingests, searches within its scope, converts again and deletes', async () => {
    // With an embedder: the chunks' vectors are written with them.
    const embedder = createBagOfWordsEmbedder();
    const engine = await backend.open({ ...options(), embedder });
    const added = await engine.documents.add({ agentId: 'a', content: text('glacier'), path: 'guides/ice.md' });
    await engine.runDue();
    const doc = await engine.documents.get({ agentId: 'a', id: added.id });
    expect(doc).toMatchObject({ status: 'done', conversion: 1, sourcePath: 'guides/ice.md' });
    expect(embedder.calls).toBeGreaterThan(0);
    const hits = await engine.documents.search({ agentId: 'a', query: 'glacier' });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0]?.document).toMatchObject({ id: added.id, path: 'guides/ice.md' });
    // Another scope sees nothing of it, and its own documents leave this scope's scores alone.
    expect(await engine.documents.search({ agentId: 'b', query: 'glacier' })).toEqual([]);
    expect(await engine.documents.get({ agentId: 'b', id: added.id })).toBeUndefined();
    await engine.documents.add({ agentId: 'b', content: text('glacier glacier moraine') });
    await engine.runDue();
    expect(await engine.documents.search({ agentId: 'a', query: 'glacier' })).toEqual(hits);

    const changed = await engine.documents.add({ agentId: 'a', content: text('volcano'), path: 'guides/ice.md' });
    expect(changed).toMatchObject({ id: added.id, outcome: 'updated' });
    await engine.runDue();
    expect(await engine.documents.get({ agentId: 'a', id: added.id })).toMatchObject({ status: 'done', conversion: 2 });
    expect(await engine.documents.conversions({ agentId: 'a', id: added.id })).toHaveLength(1);
    expect(await engine.documents.search({ agentId: 'a', query: 'glacier' })).toEqual([]);

    const deletion = await engine.documents.delete({ agentId: 'a', id: added.id });
    expect(deletion.deleted).toBe(true);
    expect(deletion.forgottenChunks).toBeGreaterThan(0);
    expect(await engine.documents.search({ agentId: 'a', query: 'volcano' })).toEqual([]);
    await expect(engine.documents.delete({ agentId: 'b', id: added.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it.skipIf(backend.skip)('syncs a folder connector, follows a deletion, and removes it', async () => {
    const root = await mkdtemp(join(tmpdir(), 'engine-documents-'));
    try {
      await writeFile(join(root, 'one.md'), text('lighthouse'));
      await writeFile(join(root, 'two.md'), text('harbour'));
      const engine = await backend.open(options());
      const connector = await engine.connectors.register({ agentId: 'a', kind: 'folder', root });
      await engine.connectors.sync({ agentId: 'a', id: connector.id });
      await engine.runDue();
      await engine.runDue();
      expect(await engine.connectors.status({ agentId: 'a', id: connector.id })).toMatchObject({
        status: 'idle',
        items: 2,
        documents: { done: 2 },
      });
      const found = await engine.documents.search({ agentId: 'a', query: 'harbour', connectorId: connector.id });
      expect(found[0]?.document).toMatchObject({ path: 'two.md', connectorId: connector.id });

      await unlink(join(root, 'two.md'));
      await engine.connectors.sync({ agentId: 'a', id: connector.id });
      await engine.runDue();
      const status = await engine.connectors.status({ agentId: 'a', id: connector.id });
      expect(status).toMatchObject({ items: 1, documents: { done: 1, deleted: 1 } });
      expect(status?.sync.stats).toMatchObject({ deleted: 1, unchanged: 1 });
      expect(await engine.documents.search({ agentId: 'a', query: 'harbour' })).toEqual([]);

      expect(await engine.connectors.remove({ agentId: 'a', id: connector.id })).toEqual({
        removed: true,
        deletedDocuments: 1,
      });
      expect(await engine.connectors.list({ agentId: 'a' })).toEqual([]);
      expect(await engine.documents.search({ agentId: 'a', query: 'lighthouse' })).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it.skipIf(backend.skip)('engines sharing one database: one adds, another ingests, both search', async () => {
    const [first, second] = await backend.openShared(2, options());
    if (!first || !second) throw new Error('two engines expected');
    const added = await first.documents.add({ agentId: 'a', content: text('orchard') });
    await second.runDue();
    expect(await first.documents.get({ agentId: 'a', id: added.id })).toMatchObject({ status: 'done' });
    const fromFirst = await first.documents.search({ agentId: 'a', query: 'orchard' });
    expect(fromFirst.length).toBeGreaterThan(0);
    expect(await second.documents.search({ agentId: 'a', query: 'orchard' })).toEqual(fromFirst);
  });
});
