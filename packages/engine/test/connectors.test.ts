import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMemoryError } from '@memory/core';
import type { ConnectorKind } from '@memory/ingest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeDocx, makePdf } from '../../ingest/test/fixtures/make-documents.js';
import { createTestEngine } from './helpers.js';

const config = { documents: { chunkSize: 400, chunkOverlap: 40 } };
let work: string;
let root: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'memory-connector-'));
  root = join(work, 'root');
  mkdirSync(join(root, 'sub'), { recursive: true });
});
afterEach(() => rmSync(work, { recursive: true, force: true, maxRetries: 5 }));

const write = (path: string, body: string | Uint8Array) => writeFileSync(join(root, path), body);

async function seedFolder() {
  write('alpha.md', '# Alpha\n\nThe alpha notes talk about the marmot colony on the ridge.');
  write('beta.txt', 'Beta: the quarterly budget covers the heron survey.');
  write(
    'sub/gamma.html',
    '<html><body><nav>Home</nav><article><h1>Gamma</h1><p>The gamma page describes the otter den near the weir, in detail for the visiting team.</p></article></body></html>',
  );
  write('report.pdf', await makePdf(['Cover page of the field report.', 'Page two counts the kingfisher nests.']));
  write(
    'policy.docx',
    makeDocx([{ text: 'Policy', heading: 1 }, { text: 'Volunteers log the badger sightings weekly.' }]),
  );
  write('image.png', 'not indexed');
  write('old.doc', 'legacy word');
}

const paths = async (engine: Awaited<ReturnType<typeof createTestEngine>>['engine'], query: string) =>
  (await engine.documents.search({ agentId: 'a', query })).map((h) => h.document.path);

describe('folder connector', () => {
  it('syncs a folder: adds, changes, deletes and renames, each incrementally', async () => {
    await seedFolder();
    const { engine } = await createTestEngine({ config });
    const connector = await engine.connectors.register({ agentId: 'a', kind: 'folder', root });
    expect(connector).toMatchObject({ kind: 'folder', status: 'idle', items: 0 });
    const { jobId, sync } = await engine.connectors.sync({ agentId: 'a', id: connector.id });
    expect(sync).toBe(1);
    expect(typeof jobId).toBe('string');
    await engine.runDue();
    let status = await engine.connectors.status({ agentId: 'a', id: connector.id });
    expect(status).toMatchObject({ status: 'idle', items: 5, documents: { done: 5 } });
    expect(status?.sync).toMatchObject({ number: 1, running: false });
    expect(status?.sync.stats).toMatchObject({
      added: 5,
      updated: 0,
      unchanged: 0,
      deleted: 0,
      renamed: 0,
      refused: 1,
    });
    expect(status?.sync.stats.skipped).toBeGreaterThanOrEqual(1);
    expect(status?.sync.refusals[0]).toMatchObject({ key: 'old.doc' });
    expect(await paths(engine, 'marmot colony')).toEqual(['alpha.md']);
    expect(await paths(engine, 'otter den')).toEqual(['sub/gamma.html']);
    expect(await paths(engine, 'badger sightings')).toEqual(['policy.docx']);
    const [pdfHit] = await engine.documents.search({ agentId: 'a', query: 'kingfisher' });
    expect(pdfHit).toMatchObject({ document: { path: 'report.pdf', connectorId: connector.id } });
    expect(pdfHit?.location?.page ?? 0).toBeLessThanOrEqual(2);
    const gammaDoc = (await engine.documents.search({ agentId: 'a', query: 'otter' }))[0]?.documentId;
    const alphaChunk = (await engine.documents.search({ agentId: 'a', query: 'marmot' }))[0]?.memoryId as string;

    // A re-sync with nothing changed reads nothing and writes no documents.
    await engine.connectors.sync({ agentId: 'a', id: connector.id });
    const quiet = await engine.runDue();
    status = await engine.connectors.status({ agentId: 'a', id: connector.id });
    expect(status?.sync.stats).toMatchObject({ added: 0, updated: 0, unchanged: 5, deleted: 0, renamed: 0 });
    expect(quiet.ran).toBe(1); // the sync job alone: no ingest

    // Change beta, touch the PDF (same bytes), delete alpha, rename gamma, add delta.
    write('beta.txt', 'Beta: the quarterly budget now covers the plover survey instead.');
    utimesSync(join(root, 'report.pdf'), new Date(), new Date(Date.now() + 5000));
    rmSync(join(root, 'alpha.md'));
    renameSync(join(root, 'sub/gamma.html'), join(root, 'sub/gamma-renamed.html'));
    write('delta.md', 'Delta notes mention the newt pond.');
    await engine.connectors.sync({ agentId: 'a', id: connector.id });
    await engine.runDue();
    status = await engine.connectors.status({ agentId: 'a', id: connector.id });
    expect(status?.sync.stats).toMatchObject({ added: 1, updated: 1, deleted: 1, renamed: 1, unchanged: 2 });
    expect(status).toMatchObject({ items: 5, documents: { done: 5, deleted: 1 } });
    expect(await paths(engine, 'marmot')).toEqual([]);
    expect((await engine.getMemory({ agentId: 'a', id: alphaChunk, includeDeleted: true }))?.deleted).toBe(true);
    expect(await paths(engine, 'plover')).toEqual(['beta.txt']);
    expect(await paths(engine, 'heron')).toEqual([]);
    expect(await paths(engine, 'newt pond')).toEqual(['delta.md']);
    // The renamed file kept its document (moved, not converted again).
    const moved = (await engine.documents.search({ agentId: 'a', query: 'otter' }))[0];
    expect(moved).toMatchObject({ documentId: gammaDoc, document: { path: 'sub/gamma-renamed.html' } });
    expect(await engine.documents.get({ agentId: 'a', id: gammaDoc as string })).toMatchObject({ conversion: 1 });
    const beta = (await engine.documents.search({ agentId: 'a', query: 'plover' }))[0];
    expect(await engine.documents.get({ agentId: 'a', id: beta?.documentId as string })).toMatchObject({
      conversion: 2,
    });
    expect(await engine.documents.conversions({ agentId: 'a', id: beta?.documentId as string })).toHaveLength(1);
    await engine.close();
  });

  it('filters search by connector, media type and path prefix; include and exclude patterns apply', async () => {
    await seedFolder();
    const { engine } = await createTestEngine({ config });
    const all = await engine.connectors.register({ agentId: 'a', kind: 'folder', root });
    const onlySub = await engine.connectors.register({
      agentId: 'a',
      kind: 'folder',
      root,
      include: ['sub/**', '*.md'],
      exclude: ['alpha.md'],
    });
    await engine.connectors.sync({ agentId: 'a', id: all.id });
    await engine.connectors.sync({ agentId: 'a', id: onlySub.id });
    await engine.runDue();
    expect(await engine.connectors.status({ agentId: 'a', id: onlySub.id })).toMatchObject({ items: 1 });
    const otter = await engine.documents.search({ agentId: 'a', query: 'otter', connectorId: onlySub.id });
    expect(otter.map((h) => h.document.connectorId)).toEqual([onlySub.id]);
    expect(await engine.documents.search({ agentId: 'a', query: 'marmot', connectorId: onlySub.id })).toEqual([]);
    expect(
      (await engine.documents.search({ agentId: 'a', query: 'marmot otter heron', mediaType: 'text/markdown' })).map(
        (h) => h.document.path,
      ),
    ).toEqual(['alpha.md']);
    const sub = await engine.documents.search({ agentId: 'a', query: 'otter marmot', path: 'sub/' });
    expect(sub.length).toBeGreaterThan(0);
    expect(sub.every((h) => h.document.path?.startsWith('sub/'))).toBe(true);
    await engine.close();
  });

  it('refuses links that leave the root and bad roots; follows links to files inside it', async () => {
    write('inside.txt', 'The inside file mentions the stoat burrow.');
    writeFileSync(join(work, 'secret.txt'), 'The secret outside the root mentions the wolverine.');
    mkdirSync(join(work, 'outside-dir'));
    writeFileSync(join(work, 'outside-dir', 'x.md'), 'Outside directory text about the lynx.');
    symlinkSync(join(work, 'secret.txt'), join(root, 'escape.txt'));
    symlinkSync(join(work, 'outside-dir'), join(root, 'escape-dir'));
    symlinkSync('../../secret.txt', join(root, 'sub', 'relative-escape.md'));
    symlinkSync(join(root, 'inside.txt'), join(root, 'sub', 'alias.txt'));
    const { engine } = await createTestEngine({ config });
    const c = await engine.connectors.register({ agentId: 'a', kind: 'folder', root });
    await engine.connectors.sync({ agentId: 'a', id: c.id });
    await engine.runDue();
    const status = await engine.connectors.status({ agentId: 'a', id: c.id });
    const refused = Object.fromEntries((status?.sync.refusals ?? []).map((r) => [r.key, r.reason]));
    expect(refused['escape.txt']).toMatch(/outside the connector root/);
    expect(refused['sub/relative-escape.md']).toMatch(/outside the connector root/);
    expect(await engine.documents.search({ agentId: 'a', query: 'wolverine' })).toEqual([]);
    expect(await engine.documents.search({ agentId: 'a', query: 'lynx' })).toEqual([]);
    expect((await paths(engine, 'stoat burrow')).sort()).toEqual(['inside.txt']);
    // A root that is relative, missing, or a file is bad input.
    for (const bad of ['relative/dir', join(work, 'missing'), join(work, 'secret.txt')]) {
      const error = await engine.connectors.register({ agentId: 'a', kind: 'folder', root: bad }).catch((e) => e);
      expect(isMemoryError(error, 'INVALID_INPUT'), bad).toBe(true);
    }
    const unknown = await engine.connectors.register({ agentId: 'a', kind: 'mailbox' }).catch((e) => e);
    expect(isMemoryError(unknown, 'INVALID_INPUT')).toBe(true);
    await engine.close();
  });

  it("keeps connectors scoped: another agent's connector is indistinguishable from a missing one", async () => {
    write('alpha.md', 'The alpha notes talk about the marmot colony.');
    const { engine } = await createTestEngine({ config });
    const c = await engine.connectors.register({ agentId: 'a', kind: 'folder', root });
    await engine.connectors.sync({ agentId: 'a', id: c.id });
    await engine.runDue();
    const missing = { agentId: 'b', id: 'no-such-connector' };
    const foreign = { agentId: 'b', id: c.id };
    expect(await engine.connectors.status(foreign)).toBeUndefined();
    expect(await engine.connectors.list({ agentId: 'b' })).toEqual([]);
    for (const op of ['sync', 'remove'] as const) {
      const a = await engine.connectors[op](foreign).catch((e) => e);
      const b = await engine.connectors[op](missing).catch((e) => e);
      expect(isMemoryError(a, 'NOT_FOUND')).toBe(true);
      expect(a.message.replace(c.id, 'X')).toBe(b.message.replace('no-such-connector', 'X'));
    }
    expect(await engine.documents.search({ agentId: 'b', query: 'marmot' })).toEqual([]);
    expect(await engine.documents.search({ agentId: 'a', query: 'marmot', connectorId: c.id })).toHaveLength(1);
    // Removing deletes the connector's documents and forgets their chunks.
    const removed = await engine.connectors.remove({ agentId: 'a', id: c.id });
    expect(removed).toEqual({ removed: true, deletedDocuments: 1 });
    expect(await engine.documents.search({ agentId: 'a', query: 'marmot' })).toEqual([]);
    expect(await engine.connectors.list({ agentId: 'a' })).toEqual([]);
    await engine.close();
  });
});

describe('host connector kinds', () => {
  it('a host kind that lists changes yields items with a cursor and reports deletions', async () => {
    const inbox = new Map<string, string>([
      ['m1', 'Mail one: the invoice for the canoe rental is attached.'],
      ['m2', 'Mail two: the ferry schedule changed for the summer.'],
    ]);
    let deletions: string[] = [];
    const cursors: unknown[] = [];
    let served = 0;
    const mailbox: ConnectorKind = {
      kind: 'mailbox',
      listing: 'changes',
      parseConfig: async (config) => ({ folder: String(config.folder ?? 'inbox') }),
      open: () => ({
        async *scan({ cursor }) {
          cursors.push(cursor);
          const items = [...inbox.entries()].slice(served).map(([key, body]) => ({
            key,
            version: key,
            mediaType: 'text/plain',
            read: async () => new TextEncoder().encode(body),
          }));
          served = inbox.size;
          yield { items, deleted: deletions };
          deletions = [];
        },
        cursor: () => ({ uid: served }),
      }),
    };
    const { engine } = await createTestEngine({ config, connectorKinds: [mailbox] });
    const c = await engine.connectors.register({ agentId: 'a', kind: 'mailbox', config: { folder: 'inbox' } });
    expect(c.config).toEqual({ folder: 'inbox' });
    await engine.connectors.sync({ agentId: 'a', id: c.id });
    await engine.runDue();
    expect((await engine.connectors.status({ agentId: 'a', id: c.id }))?.sync.stats).toMatchObject({ added: 2 });
    expect((await engine.documents.search({ agentId: 'a', query: 'canoe' }))[0]?.document.path).toBe('m1');
    inbox.set('m3', 'Mail three: the lighthouse tour is booked.');
    deletions = ['m1'];
    await engine.connectors.sync({ agentId: 'a', id: c.id });
    await engine.runDue();
    expect(cursors).toEqual([undefined, { uid: 2 }]);
    expect((await engine.connectors.status({ agentId: 'a', id: c.id }))?.sync.stats).toMatchObject({
      added: 1,
      deleted: 1,
    });
    expect(await engine.documents.search({ agentId: 'a', query: 'canoe' })).toEqual([]);
    expect(await engine.documents.search({ agentId: 'a', query: 'ferry' })).toHaveLength(1);
    expect(await engine.documents.search({ agentId: 'a', query: 'lighthouse' })).toHaveLength(1);
    // A second kind of the same name is refused.
    expect(
      isMemoryError(
        await Promise.resolve()
          .then(() => engine.connectors.registerKind(mailbox))
          .catch((e) => e),
        'CONFLICT',
      ),
    ).toBe(true);
    await engine.close();
  });
});
