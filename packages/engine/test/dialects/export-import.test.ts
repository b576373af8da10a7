import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, createManualScheduler, createSequentialIds } from '@memory/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryEngine, type MemoryEngine } from '../../src/index.js';
import { createBagOfWordsEmbedder } from '../helpers.js';
import { engineBackends } from '../support/backends.js';
import { collect, type ExportScopeIds, fillExportScope, records } from '../support/fill-export-scope.js';

// Moving a store from SQLite to PostgreSQL through `engine.export` and the import pipeline (issue 18,
// item 6): a populated SQLite scope (memories with history, a forgotten one, the graph, a transcript,
// a document and its chunk, notes with links and events, registry categories) is exported once and
// imported into a fresh engine on SQLite, PGlite and the real server. Each must read back as the
// source does, rank the same, export the same records again, and report replays and conflicts alike.

const T0 = Date.UTC(2026, 0, 1);
const backends = await engineBackends();
const directory = realpathSync(mkdtempSync(join(tmpdir(), 'engine-dialect-export-')));
const file = join(directory, 'scope.jsonl');
const QUERIES = ['Atlas standup', 'green tea', 'invoices nightly', 'renewal quote'];

type Ids = ExportScopeIds;

/** What a host reads of the scope (no recall: it counts accesses, so it runs last and on its own). */
async function reads(engine: MemoryEngine, ids: Ids) {
  const agentId = 'a';
  const page = await engine.list({ agentId, includeForgotten: true, limit: 100 });
  const memories = [];
  for (const m of page.memories)
    memories.push({
      memory: await engine.getMemory({ agentId, id: m.id }),
      history: await engine.history({ agentId, id: m.id }),
    });
  const notes = [];
  for (const id of ids.notes)
    notes.push({ note: await engine.notes.get({ agentId, id }), events: await engine.notes.history({ agentId, id }) });
  const categories = [];
  for (const id of ids.categories)
    categories.push({
      detail: await engine.registry.get({ agentId, id }),
      events: await engine.registry.history({ agentId, id }),
    });
  return {
    list: page.memories,
    memories,
    notes,
    linkedNotes: (await engine.notes.list({ agentId, entity: { type: 'contact', refId: '42' } })).items.map(
      (n) => n.id,
    ),
    noteSearch: (await engine.notes.search({ agentId, query: 'trainer renewal' })).map((h) => h.note.id),
    categories,
    registry: await engine.registry.list({ agentId }),
    categoriesOfTea: await engine.registry.categoriesOf({ agentId, object: { kind: 'memory', id: ids.tea } }),
    transcript: await engine.transcripts.get({ agentId, sessionKey: 'chat-1' }),
    transcriptSearch: (await engine.transcripts.search({ agentId, query: 'Atlas March' })).map((h) => h.role),
    documents: await engine.documents.list({ agentId }),
  };
}

/** The ids recall ranks for each query, in order. */
async function recalls(engine: MemoryEngine): Promise<string[][]> {
  const out: string[][] = [];
  for (const query of QUERIES) out.push((await engine.recall({ agentId: 'a', query })).results.map((r) => r.id));
  return out;
}

let exported: string[] = [];
let ids: Ids;
let expectedReads: Awaited<ReturnType<typeof reads>>;
let expectedRecalls: string[][];
let expectedLexical: string[];
// The time the source was read at: targets read at the same time, so recency scores match.
let readAt = 0;

beforeAll(async () => {
  const clock = createManualClock(T0);
  const source = await createMemoryEngine({
    database: { path: ':memory:' },
    clock,
    scheduler: createManualScheduler(clock),
    ids: createSequentialIds('id'),
    embedder: createBagOfWordsEmbedder(),
  });
  try {
    ids = await fillExportScope(source, () => clock.advance(60_000));
    exported = await collect(source.export({ agentId: 'a' }));
    writeFileSync(file, exported.join(''));
    clock.advance(60_000);
    readAt = clock.now();
    expectedReads = await reads(source, ids);
    expectedRecalls = await recalls(source);
    // The lexical channel alone (what a target ranks before its fill-in job embeds the memories).
    const lexical = await source.recall({ agentId: 'a', query: 'standup' });
    expectedLexical = lexical.results.filter((r) => r.channels.lexical !== undefined).map((r) => r.id);
  } finally {
    await source.close();
  }
}, 120_000);

afterAll(() => rmSync(directory, { recursive: true, force: true, maxRetries: 5 }));

describe.each(backends)('an engine.export of a SQLite scope imported on $name', (backend) => {
  afterEach(() => backend.cleanup());
  afterAll(() => backend.dispose());

  const open = async () => {
    const clock = createManualClock(readAt);
    const engine = await backend.open({
      clock,
      scheduler: createManualScheduler(clock),
      ids: createSequentialIds('t'),
      embedder: createBagOfWordsEmbedder(),
      config: { imports: { allowedDirectories: [directory] } },
    });
    return engine;
  };
  const importInto = async (engine: MemoryEngine, agentId: string) => {
    const { jobId } = await engine.imports.start({ agentId, file });
    await engine.runDue();
    return jobId;
  };

  it.skipIf(backend.skip)('reads back, ranks and exports as the source did', { timeout: 120_000 }, async () => {
    const kinds = new Set(records(exported).map((r) => r['kind']));
    expect([...kinds].sort()).toEqual(
      ['category', 'document', 'entity', 'footer', 'header', 'link', 'memory', 'note', 'transcript'].sort(),
    );
    const engine = await open();
    const jobId = await importInto(engine, 'a');
    expect(await engine.imports.status({ agentId: 'a', jobId })).toMatchObject({
      status: 'completed',
      counters: { total: exported.length, imported: exported.length, duplicate: 0, rejected: 0, pending: 0 },
    });
    // Before the fill-in job embeds them, imported memories are found by their words alone: their
    // postings were written by the import (a trigger on SQLite, the import's program on PostgreSQL).
    const vectorsMissing = (await engine.diagnostics()).maintenance.vectorsMissing;
    expect(vectorsMissing).toBeGreaterThan(0);
    const lexical = await engine.recall({ agentId: 'a', query: 'standup' });
    expect(lexical.results.map((r) => r.id)).toEqual(expectedLexical);
    expect(expectedLexical.length).toBe(2);

    await engine.runDue();
    expect((await engine.diagnostics()).maintenance.vectorsMissing).toBe(0);
    expect(records(await collect(engine.export({ agentId: 'a' })))).toEqual(records(exported));
    expect(await reads(engine, ids)).toEqual(expectedReads);
    expect(await recalls(engine)).toEqual(expectedRecalls);
  });

  it.skipIf(backend.skip)(
    'finds a replay all duplicates and another scope’s ids taken',
    { timeout: 120_000 },
    async () => {
      const engine = await open();
      await importInto(engine, 'a');
      const replay = await importInto(engine, 'a');
      expect((await engine.imports.status({ agentId: 'a', jobId: replay }))?.counters).toMatchObject({
        imported: 2, // header and footer
        duplicate: exported.length - 2,
        rejected: 0,
      });
      expect((await engine.registry.history({ agentId: 'a', id: ids.categories[0] as string })).length).toBe(
        expectedReads.categories[0]?.events.length,
      );
      expect((await engine.list({ agentId: 'a', includeForgotten: true, limit: 100 })).memories).toHaveLength(
        expectedReads.list.length,
      );

      // Another scope of the same database: every id-keyed record is taken (transcripts are keyed per scope).
      const other = await importInto(engine, 'other');
      const rejected = await engine.imports.records({ agentId: 'other', jobId: other, outcome: 'rejected' });
      const transcripts = records(exported).filter((r) => r['kind'] === 'transcript').length;
      expect(rejected.length).toBe(exported.length - 2 - transcripts);
      expect(new Set(rejected.map((r) => r.reason))).toEqual(new Set(['id_conflict']));
      expect((await engine.list({ agentId: 'other', includeForgotten: true })).memories).toEqual([]);
      expect((await engine.notes.list({ agentId: 'other' })).items).toEqual([]);
      expect(await engine.registry.list({ agentId: 'other' })).toEqual([]);
      expect((await engine.recall({ agentId: 'other', query: 'standup' })).results).toEqual([]);
    },
  );

  it.skipIf(backend.skip)(
    'takes a memory whose content the scope already holds live as a duplicate, indexed once',
    { timeout: 120_000 },
    async () => {
      const engine = await open();
      const mine = await engine.remember({ agentId: 'a', content: 'Alice prefers green tea' });
      const jobId = await importInto(engine, 'a');
      const duplicates = await engine.imports.records({ agentId: 'a', jobId, outcome: 'duplicate' });
      expect(duplicates.map((r) => r.recordId)).toEqual([ids.tea]);
      expect(await engine.getMemory({ agentId: 'a', id: ids.tea })).toBeUndefined();
      const hits = await engine.recall({ agentId: 'a', query: 'green tea' });
      expect(hits.results.filter((r) => r.content === 'Alice prefers green tea').map((r) => r.id)).toEqual([mine.id]);
    },
  );
});
