import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, createManualScheduler, type EmbeddingProvider, type ManualScheduler } from '@memory/core';
import type { RecallResponse, RecallResult } from '@memory/recall';
import { findMemoryProgram, openStore } from '@memory/store';
import { copySqliteToPostgres, openPostgresStore, type PostgresTarget } from '@memory/store/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedPglite } from '../../../store/test/support/pglite.js';
import { postgresTestDatabase } from '../../../store/test/support/postgres.js';
import { createMemoryEngine, type MemoryEngine, type MemoryEngineOptions } from '../../src/index.js';
import { engineBackends } from '../support/backends.js';

// The engine's recall on every backend. The data is written once through the SQLite engine's API
// (remember, with vectors and host links), then each backend gets it: SQLite a copy of the file,
// PGlite and the real server a verified `copySqliteToPostgres`. Every backend must then answer the
// same recalls with the same results (ids, order, tiers; scores within float tolerance), record
// access counts and telemetry, and refuse notes on PostgreSQL.

const T0 = Date.UTC(2026, 2, 1);
const backends = await engineBackends();

/** A deterministic bag-of-words embedder: texts sharing words point the same way. */
const embedder: EmbeddingProvider = {
  model: 'words-32',
  dimensions: 32,
  embed: async (texts) =>
    texts.map((text) => {
      const v = new Float32Array(32);
      for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
        let h = 2166136261;
        for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
        const at = (h >>> 0) % 32;
        v[at] = (v[at] as number) + 1;
      }
      return v;
    }),
};

const options = (): Omit<MemoryEngineOptions, 'database'> => {
  const clock = createManualClock(T0);
  return { clock, scheduler: createManualScheduler(clock), embedder, config: { telemetry: { recallQa: true } } };
};

let dir: string;
let source: string;
let copies = 0;
/** SQLite's answers to QUERIES, the reference every backend must match. */
let reference: Array<ReturnType<typeof view>>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engine-recall-'));
  source = join(dir, 'source.db');
  const engine = await createMemoryEngine({ ...options(), database: { path: source } });
  await engine.rememberMany({
    agentId: 'a',
    memories: [
      { content: 'The harbour ferry leaves at seven every morning' },
      { content: 'Ferry tickets are cheaper on weekdays', tags: ['travel'] },
      { content: 'The island ferry timetable changed in spring' },
      { content: 'The bakery near the harbour opens early' },
      { content: 'Kittens nap on the warm windowsill' },
      {
        content: 'Prefers morning calls',
        linkedEntities: [{ type: 'contact', refId: 'c-1', label: 'Dana Whitfield' }],
      },
    ],
  });
  await engine.rememberMany({
    agentId: 'b',
    memories: [{ content: 'Ferry ferry harbour ferry of another agent' }, { content: 'warm kittens nap' }],
  });
  await engine.close();
  // What SQLite answers, computed here so that no backend's test depends on another having run first.
  const sqlite = await engineWithData('sqlite');
  try {
    reference = await answers(sqlite.engine);
  } finally {
    await sqlite.close();
  }
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The source data in a fresh database of the backend, and an engine open on it. */
async function engineWithData(name: string): Promise<{
  engine: MemoryEngine;
  scheduler: ManualScheduler;
  /** A memory's access count, read from the database itself (after the engine closed). */
  accessCount(agentId: string, id: string): Promise<number | undefined>;
  close(): Promise<void>;
}> {
  const file = join(dir, `${name}-${++copies}.db`);
  await copyFile(source, file);
  const clock = createManualClock(T0);
  const scheduler = createManualScheduler(clock);
  const engineOptions = { ...options(), clock, scheduler };
  if (name === 'sqlite') {
    const engine = await createMemoryEngine({ ...engineOptions, database: { path: file } });
    const accessCount = async (agentId: string, id: string) => {
      const store = await openStore({ path: file });
      try {
        return (await store.db.read(() => findMemoryProgram(agentId, id)))?.access_count;
      } finally {
        store.close();
      }
    };
    return { engine, scheduler, accessCount, close: () => engine.close() };
  }
  let target: PostgresTarget;
  let drop = async (): Promise<void> => undefined;
  if (name === 'pglite') {
    const pglite = await sharedPglite();
    await pglite.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public; CREATE EXTENSION IF NOT EXISTS vector');
    target = { pglite };
  } else {
    const database = await postgresTestDatabase();
    target = { connectionString: database.connectionString };
    drop = () => database.drop();
  }
  const from = await openStore({ path: file });
  const to = await openPostgresStore({ target });
  try {
    const report = await copySqliteToPostgres({ from, to });
    expect(report.verified).toBe(true);
  } finally {
    from.close();
    await to.close();
  }
  const engine = await createMemoryEngine({ ...engineOptions, database: { postgres: target } });
  const accessCount = async (agentId: string, id: string) => {
    const store = await openPostgresStore({ target });
    try {
      return (await store.read(() => findMemoryProgram(agentId, id)))?.access_count;
    } finally {
      await store.close();
    }
  };
  return {
    engine,
    scheduler,
    accessCount,
    close: async () => {
      await engine.close();
      await drop();
    },
  };
}

const QUERIES = [
  { agentId: 'a', query: 'ferry harbour', windowDays: null },
  { agentId: 'a', query: 'when does the ferry leave', windowDays: null, tags: ['travel'] },
  { agentId: 'a', query: 'warm kittens', windowDays: null },
  { agentId: 'a', query: 'what about dana whitfield', windowDays: null },
  { agentId: 'a', query: 'anything', windowDays: null, linkedEntities: [{ type: 'contact', refId: 'c-1' }] },
];

function view(response: RecallResponse<RecallResult>) {
  return {
    ids: response.results.map((r) => r.id as string),
    scores: response.results.map((r) => r.score),
    tiers: response.results.map((r) => r.tier),
    completeness: response.vectorCompleteness,
    coverage: response.vectorCoverage,
    warnings: response.warnings,
  };
}

async function answers(engine: MemoryEngine): Promise<Array<ReturnType<typeof view>>> {
  const views: Array<ReturnType<typeof view>> = [];
  for (const query of QUERIES) views.push(view((await engine.recall(query)) as RecallResponse<RecallResult>));
  return views;
}

describe.each(backends)('recall through the engine on $name', (backend) => {
  afterAll(() => (backend.name === 'pglite' ? backend.dispose() : undefined));

  it.skipIf(backend.skip)(
    'answers every query as SQLite does, records access and telemetry, refuses notes on PostgreSQL',
    async () => {
      const { engine, scheduler, accessCount, close } = await engineWithData(backend.name);
      try {
        const views = await answers(engine);
        for (const v of views) {
          expect(v.completeness).toBe('exact');
          expect(v.coverage).toEqual({ embedded: 6, total: 6 });
          expect(v.warnings).toEqual([]);
          expect(v.ids.length).toBeGreaterThan(0);
        }
        expect(views[0]?.ids.length).toBeGreaterThanOrEqual(3);
        expect(views[4]?.tiers[0]).toBe('linked');
        expect(reference).toHaveLength(QUERIES.length);
        views.forEach((v, i) => {
          const r = reference[i];
          expect(v.ids).toEqual(r?.ids);
          expect(v.tiers).toEqual(r?.tiers);
          v.scores.forEach((score, j) => {
            expect(score).toBeCloseTo(r?.scores[j] as number, 5);
          });
        });

        // Access counts and telemetry are written after the response, on the next scheduler turn.
        await scheduler.runDue();
        const telemetry = await engine.telemetry.list({ agentId: 'a' });
        expect(telemetry.map((t) => t.query)).toEqual(QUERIES.map((q) => q.query).reverse());
        expect(await engine.telemetry.list({ agentId: 'b' })).toEqual([]);
        expect(await engine.telemetry.purge({ agentId: 'a' })).toBe(QUERIES.length);

        // Notes join recall on every dialect: the agent's own, ranked by their own BM25.
        const mine = await engine.notes.create({
          agentId: 'a',
          title: 'Zyzzyva survey',
          content: 'zyzzyva zyzzyva in the garden',
        });
        const also = await engine.notes.create({ agentId: 'a', title: 'Garden', content: 'one zyzzyva seen' });
        await engine.notes.create({ agentId: 'b', title: 'Zyzzyva', content: 'zyzzyva zyzzyva zyzzyva' });
        const withNotes = await engine.recall({ agentId: 'a', query: 'zyzzyva', include: ['memories', 'notes'] });
        const noteIds = withNotes.results.filter((r) => r.kind === 'note').map((r) => r.id);
        expect(noteIds).toEqual([mine.id, also.id]);
        expect(withNotes.warnings).toEqual([]);

        await engine.close();
        const top = views[0]?.ids[0] as string;
        expect(await accessCount('a', top)).toBe(views.filter((v) => v.ids.includes(top)).length);
      } finally {
        await close();
      }
    },
    120_000,
  );
});
