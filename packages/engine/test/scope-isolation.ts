import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, createManualScheduler, type EmbeddingProvider } from '@memory/core';
import { insertAspect, insertClaim, insertDependency, insertEntity, insertHints } from '@memory/store';
import { SqlExecutor } from '@memory/store/sql';
import { insertMention } from '@memory/store/testing';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { MemoryEngine, MemoryEngineOptions } from '../src/index.js';
import { createBagOfWordsEmbedder, createTestEngine, T0 } from './helpers.js';
import { record } from './import-fixtures.js';

// One scenario, every read path that takes an agent: "another agent's data can neither appear in,
// crowd out, nor block this agent's result". Each path seeds a little data for this agent, and for
// the other agent an identical copy of it (same content, session key, entity name, record id: the
// copy must not block this agent's writes or be mistaken for them) plus `n` items that match the
// read better or are newer than this agent's (they must not crowd this agent's items out of any
// bounded window: a scan window, a KNN k, a LIMIT before a scope filter). The result this agent
// gets must be exactly the result it gets on a database holding only its own data, and every item
// in it must belong to it.

export const MINE = 'mine';
/**
 * Names for the other agent: one sorting after this agent's and one before, because indexes that
 * lead with the agent id return rows in that order, and a missing scope filter only shows when the
 * other agent's rows come first.
 */
export const OTHERS = ['other', 'alien'] as const;

/** One engine under test, with direct database access for setup that has no public path (hints, graph). */
export interface ScopeEnv {
  readonly engine: MemoryEngine;
  readonly db: Database.Database;
  readonly sql: SqlExecutor;
  /** Which agent wrote each id (memory, document, import), as the seeds recorded it. */
  readonly owner: Map<string, string>;
  /** A scratch directory for import files. */
  readonly dir: string;
  /** The other agent's id in this run. */
  readonly other: string;
}

/** What a read returned: a label comparable across databases, and the id of the item when it has one. */
export interface ReadItem {
  readonly label: string;
  /** The agent that owns the item, read from the database (undefined when unknown). */
  readonly ownerId?: string | undefined;
}

export interface ReadPath {
  readonly name: string;
  readonly options?: Partial<MemoryEngineOptions>;
  /** Skip the path (with a reason) when the environment cannot run it. */
  readonly skip?: (env: ScopeEnv) => string | undefined;
  seedMine(env: ScopeEnv): Promise<void>;
  /** Identical copies of this agent's data (when `identical`) and `n` competing items, for `env.other`. */
  seedOther(env: ScopeEnv, n: number, identical: boolean): Promise<void>;
  read(env: ScopeEnv): Promise<ReadItem[]>;
}

/** The order the two agents write in: another agent's data before this agent's can block; after, it can crowd out. */
export type SeedOrder = 'other-first' | 'mine-first';

export async function openScopeEnv(path: ReadPath, other: string = OTHERS[0]): Promise<ScopeEnv> {
  const db = new Database(':memory:');
  const clock = createManualClock(T0);
  const { engine } = await createTestEngine({
    database: { database: db },
    clock,
    scheduler: createManualScheduler(clock),
    ...path.options,
  });
  return {
    engine,
    db,
    sql: new SqlExecutor(db),
    owner: new Map(),
    dir: mkdtempSync(join(tmpdir(), 'memory-scope-')),
    other,
  };
}

const sorted = (items: readonly ReadItem[]): string[] => items.map((i) => i.label).sort();

/** This agent's result on a database that holds only its own data. */
export async function controlResult(path: ReadPath): Promise<string[] | undefined> {
  const env = await openScopeEnv(path);
  try {
    const skipped = path.skip?.(env);
    if (skipped) return undefined;
    await path.seedMine(env);
    const items = await path.read(env);
    // The scenario is only meaningful if the path finds this agent's data at all.
    expect(items.length, `${path.name}: the control read finds nothing`).toBeGreaterThan(0);
    return sorted(items);
  } finally {
    await env.engine.close();
    rmSync(env.dir, { recursive: true, force: true, maxRetries: 5 });
  }
}

/**
 * Runs one case of the scenario: both agents write (in `order`), then this agent reads. The result
 * must equal `control` (nothing appeared, nothing was crowded out or blocked) and hold only this
 * agent's items.
 */
export async function expectIsolated(
  path: ReadPath,
  control: readonly string[],
  c: { order: SeedOrder; n: number; identical: boolean; other: string },
): Promise<void> {
  const env = await openScopeEnv(path, c.other);
  try {
    if (c.order === 'other-first') {
      await path.seedOther(env, c.n, c.identical);
      await path.seedMine(env);
    } else {
      await path.seedMine(env);
      await path.seedOther(env, c.n, c.identical);
    }
    const items = await path.read(env);
    const where = `${path.name} (${c.order}, other=${c.other}, n=${c.n}, identical=${c.identical})`;
    for (const item of items) expect(item.ownerId, `${where}: ${item.label}`).toBe(MINE);
    expect(sorted(items), where).toEqual(control);
  } finally {
    await env.engine.close();
    rmSync(env.dir, { recursive: true, force: true, maxRetries: 5 });
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers shared by the paths.

async function remember(
  env: ScopeEnv,
  agentId: string,
  content: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const { id, deduped } = await env.engine.remember({ agentId, content, ...extra });
  if (!deduped) env.owner.set(id, agentId);
  return id;
}

const memoryOwner = (env: ScopeEnv, id: string): string | undefined =>
  (env.db.prepare('SELECT agent_id AS a FROM memories WHERE id = ?').get(id) as { a: string } | undefined)?.a;

/** Recall as this agent; items labelled by content, owned by the memory's agent. */
async function recallItems(env: ScopeEnv, query: string, extra: Record<string, unknown> = {}): Promise<ReadItem[]> {
  const response = await env.engine.recall({ agentId: MINE, query, limit: 5, ...extra });
  expect(response.warnings).toEqual([]);
  return response.results.map((r) => ({ label: r.content, ownerId: memoryOwner(env, r.id) }));
}

/** Only the named recall channels run (lexical, semantic, hints); traversal and links run when the query reaches them. */
const only = (...channels: Array<'lexical' | 'semantic' | 'hints'>) => ({
  lexical: channels.includes('lexical'),
  semantic: channels.includes('semantic'),
  hints: channels.includes('hints'),
});

const RECALL_BASE = { searchWindowDays: null } as const;
// A slow shared machine must not stop the graph walk early: that would change results, not scope.
const TRAVERSAL_BASE = { timeBudgetMs: 10_000 } as const;

// ---------------------------------------------------------------------------------------------
// The read paths.

const lexical: ReadPath = {
  name: 'recall: lexical channel',
  options: { config: { recall: { ...RECALL_BASE, channels: only('lexical') }, traversal: TRAVERSAL_BASE } },
  async seedMine(env) {
    await remember(env, MINE, 'The harbor ferry leaves at noon on weekdays, from pier four.');
    await remember(env, MINE, 'Winter timetable: the harbor ferry skips the island stop.');
  },
  async seedOther(env, n, identical) {
    if (identical) await remember(env, env.other, 'The harbor ferry leaves at noon on weekdays, from pier four.');
    for (let i = 0; i < n; i++) await remember(env, env.other, `harbor ferry harbor ferry ${i}`);
  },
  read: (env) => recallItems(env, 'harbor ferry'),
};

/** Vectors that put the other agent's competitors nearer the query than this agent's memory. */
const semanticSeeds = {
  query: 'harbor lighthouse keeper',
  mine: ['harbor lighthouse keeper logbook storm season winter notes'],
  competitor: (i: number) => `harbor lighthouse keeper k${i}`,
};

function semanticPath(name: string, vectorExtension: 'auto' | 'off', embedder: EmbeddingProvider): ReadPath {
  return {
    name,
    options: {
      embedder,
      config: {
        store: { vectorExtension },
        // A small scan window and KNN k, so a handful of foreign vectors could fill them.
        recall: { ...RECALL_BASE, channels: only('semantic'), vectorScanWindow: 4, semanticCandidates: 3 },
        traversal: TRAVERSAL_BASE,
      },
    },
    skip: (env) =>
      vectorExtension === 'auto' && !env.engine.vector.available ? 'sqlite-vec is not installed' : undefined,
    async seedMine(env) {
      for (const content of semanticSeeds.mine) await remember(env, MINE, content);
    },
    async seedOther(env, n, identical) {
      if (identical) for (const content of semanticSeeds.mine) await remember(env, env.other, content);
      for (let i = 0; i < n; i++) await remember(env, env.other, semanticSeeds.competitor(i));
    },
    read: (env) => recallItems(env, semanticSeeds.query),
  };
}

const hints: ReadPath = {
  name: 'recall: hints channel',
  // Hint rows are ranked in a bounded inner query (5 per candidate) before they are grouped.
  options: {
    config: { recall: { ...RECALL_BASE, channels: only('hints'), hintCandidates: 2 }, traversal: TRAVERSAL_BASE },
  },
  async seedMine(env) {
    const id = await remember(env, MINE, 'Moved the appointment with Dr. Okafor to the 14th.');
    insertHints(env.sql, MINE, id, ['when is my dentist visit this month'], T0);
  },
  async seedOther(env, n, identical) {
    if (identical) {
      const id = await remember(env, env.other, 'Moved the appointment with Dr. Okafor to the 14th.');
      insertHints(env.sql, env.other, id, ['when is my dentist visit this month'], T0);
    }
    for (let i = 0; i < n; i++) {
      const id = await remember(env, env.other, `Other agent note number ${i}.`);
      insertHints(env.sql, env.other, id, ['dentist visit'], T0);
    }
  },
  read: (env) => recallItems(env, 'dentist visit'),
};

/** Both agents get an entity called Atlas; this agent's memory is reached only through its claim and mention. */
function seedGraph(env: ScopeEnv, agent: string, memoryIds: readonly string[]): void {
  const { sql } = env;
  insertEntity(sql, { id: `${agent}-atlas`, agentId: agent, name: 'Atlas', now: T0 });
  insertEntity(sql, { id: `${agent}-dana`, agentId: agent, name: 'Dana', now: T0 });
  insertAspect(sql, { id: `${agent}-plan`, agentId: agent, entityId: `${agent}-atlas`, name: 'plan', now: T0 });
  insertDependency(sql, {
    id: `${agent}-dep`,
    agentId: agent,
    sourceEntityId: `${agent}-atlas`,
    targetEntityId: `${agent}-dana`,
    type: 'owned_by',
    now: T0,
  });
  for (const [i, memoryId] of memoryIds.entries()) {
    insertClaim(sql, {
      id: `${agent}-claim-${i}`,
      agentId: agent,
      entityId: `${agent}-atlas`,
      aspectId: `${agent}-plan`,
      claimKey: `k${i}`,
      content: 'c',
      sourceMemoryId: memoryId,
      now: T0,
    });
    insertMention(sql, {
      memoryId,
      entityId: `${agent}-atlas`,
      agentId: agent,
      mentionText: 'Atlas',
      confidence: 1,
      now: T0,
    });
  }
}

const traversal: ReadPath = {
  name: 'recall: knowledge-graph traversal',
  options: {
    config: {
      recall: { ...RECALL_BASE, channels: only() },
      // Tight bounds (this agent's walk needs exactly two entities and one claim): a foreign entity
      // resolved as focal, or its claims, would use them up and truncate the walk.
      traversal: { ...TRAVERSAL_BASE, maxEntities: 2, maxClaims: 3, candidateBudget: 5, flatReserve: 0.4 },
      remember: { inlineEntityLinking: false },
    },
  },
  async seedMine(env) {
    const id = await remember(env, MINE, 'Quarterly plan reviewed on Tuesday with the board.');
    seedGraph(env, MINE, [id]);
  },
  async seedOther(env, n, identical) {
    const ids: string[] = [];
    if (identical) ids.push(await remember(env, env.other, 'Quarterly plan reviewed on Tuesday with the board.'));
    for (let i = 0; i < n; i++) ids.push(await remember(env, env.other, `Foreign plan item ${i}.`));
    seedGraph(env, env.other, ids);
  },
  read: (env) => recallItems(env, 'Atlas'),
};

const linked: ReadPath = {
  name: 'recall: host-linked memories',
  options: { config: { recall: { ...RECALL_BASE, channels: only(), linkedCandidates: 2 }, traversal: TRAVERSAL_BASE } },
  async seedMine(env) {
    await remember(env, MINE, 'Invoice 7 is overdue by two weeks.', {
      linkedEntities: [{ type: 'contact', refId: '42' }],
    });
  },
  async seedOther(env, n, identical) {
    const link = { linkedEntities: [{ type: 'contact', refId: '42' }] };
    if (identical) await remember(env, env.other, 'Invoice 7 is overdue by two weeks.', link);
    for (let i = 0; i < n; i++) await remember(env, env.other, `Foreign contact note ${i}.`, link);
  },
  read: (env) => recallItems(env, 'overdue status', { linkedEntities: [{ type: 'contact', refId: '42' }] }),
};

const turnOwner = (env: ScopeEnv, seq: number): string | undefined =>
  (
    env.db.prepare('SELECT agent_id AS a FROM session_transcript_turns WHERE seq = ?').get(seq) as
      | { a: string }
      | undefined
  )?.a;

async function session(env: ScopeEnv, agentId: string, sessionKey: string, content: string, complete: boolean) {
  await env.engine.transcripts.append({ agentId, sessionKey, turns: [{ role: 'user', content }] });
  if (complete) await env.engine.transcripts.complete({ agentId, sessionKey });
}

const transcripts: ReadPath = {
  name: 'transcripts.search',
  async seedMine(env) {
    await session(env, MINE, 'boiler', 'The boiler needs servicing before October, call the plumber.', true);
    await session(env, MINE, 'draft', 'An open session about boiler servicing, not yet citable.', false);
  },
  async seedOther(env, n, identical) {
    // The identical copy is completed in the other scope while this agent's `draft` stays open.
    if (identical) {
      await session(env, env.other, 'boiler', 'The boiler needs servicing before October, call the plumber.', true);
      await session(env, env.other, 'draft', 'An open session about boiler servicing, not yet citable.', true);
    }
    for (let i = 0; i < n; i++) await session(env, env.other, `s${i}`, `boiler servicing boiler servicing ${i}`, true);
  },
  async read(env) {
    const hits = await env.engine.transcripts.search({ agentId: MINE, query: 'boiler servicing', limit: 2 });
    return hits.map((h) => ({ label: `${h.sessionKey}: ${h.content}`, ownerId: turnOwner(env, h.seq) }));
  },
};

const DOC = 'Kestrel onboarding guide. New engineers pair with a buddy for two weeks before taking pager duty.';

const documents: ReadPath = {
  name: 'documents: list, get, and chunks in recall',
  options: { config: { recall: { ...RECALL_BASE, channels: only('lexical') }, traversal: TRAVERSAL_BASE } },
  async seedMine(env) {
    const { id } = await env.engine.documents.add({ agentId: MINE, content: DOC, title: 'Onboarding' });
    env.owner.set(id, MINE);
    await env.engine.runDue();
  },
  async seedOther(env, n, identical) {
    // Same content in another scope: its chunk must not stand in for (or dedupe away) this agent's chunk.
    if (identical) {
      const { id } = await env.engine.documents.add({ agentId: env.other, content: DOC, title: 'Onboarding' });
      env.owner.set(id, env.other);
    }
    for (let i = 0; i < n; i++) {
      const { id } = await env.engine.documents.add({
        agentId: env.other,
        content: `Pager duty rota ${i}: buddy pairs.`,
        title: `Rota ${i}`,
      });
      env.owner.set(id, env.other);
    }
    await env.engine.runDue();
  },
  async read(env) {
    const listed = await env.engine.documents.list({ agentId: MINE, limit: 2 });
    const items: ReadItem[] = listed.map((d) => ({ label: `list ${d.title} ${d.status}`, ownerId: d.agentId }));
    for (const d of listed) {
      const got = await env.engine.documents.get({ agentId: MINE, id: d.id });
      items.push({ label: `get ${got?.title} ${got?.chunkCount}`, ownerId: got?.agentId });
    }
    for (const [id, agent] of env.owner)
      if (agent !== MINE) expect(await env.engine.documents.get({ agentId: MINE, id })).toBeUndefined();
    items.push(...(await recallItems(env, 'pager duty buddy')).map((i) => ({ ...i, label: `recall ${i.label}` })));
    return items;
  },
};

const importFile = (env: ScopeEnv, name: string, lines: readonly Record<string, unknown>[]): string => {
  const file = join(env.dir, name);
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return file;
};

const imports: ReadPath = {
  name: 'imports: status, records, and the sessions they bring in',
  options: { config: { imports: { batchRecords: 2, inventoryBatchLines: 2, allowedDirectories: [tmpdir()] } } },
  async seedMine(env) {
    const file = importFile(env, 'mine.jsonl', [record(1), record(2)]);
    const { jobId } = await env.engine.imports.start({ agentId: MINE, file });
    env.owner.set(jobId, MINE);
    await env.engine.runDue();
  },
  async seedOther(env, n, identical) {
    // The same records imported into another scope first must not make this agent's copies duplicates.
    const lines = [
      ...(identical ? [record(1), record(2)] : []),
      ...Array.from({ length: n }, (_, i) => record(100 + i)),
    ];
    if (lines.length === 0) return;
    const { jobId } = await env.engine.imports.start({
      agentId: env.other,
      file: importFile(env, 'other.jsonl', lines),
    });
    env.owner.set(jobId, env.other);
    await env.engine.runDue();
  },
  async read(env) {
    const items: ReadItem[] = [];
    for (const [jobId, agent] of env.owner) {
      const status = await env.engine.imports.status({ jobId, agentId: MINE });
      if (agent !== MINE) {
        expect(status).toBeUndefined();
        continue;
      }
      items.push({ label: `status ${status?.status} ${JSON.stringify(status?.counters)}`, ownerId: status?.agentId });
      for (const r of await env.engine.imports.records({ jobId, agentId: MINE }))
        items.push({ label: `record ${r.line} ${r.outcome} ${r.sessionKey}`, ownerId: agent });
    }
    for (const t of await env.engine.transcripts.list({ agentId: MINE, limit: 5 }))
      items.push({ label: `session ${t.sessionKey} ${t.turnCount}`, ownerId: MINE });
    const found = await env.engine.transcripts.search({ agentId: MINE, query: 'bullet', limit: 5 });
    for (const h of found) items.push({ label: `search ${h.sessionKey} ${h.content}`, ownerId: turnOwner(env, h.seq) });
    return items;
  },
};

const memoryReads: ReadPath = {
  name: 'getMemory and history',
  async seedMine(env) {
    await remember(env, MINE, 'The spare key is under the blue flowerpot.');
  },
  async seedOther(env, n, identical) {
    if (identical) await remember(env, env.other, 'The spare key is under the blue flowerpot.');
    for (let i = 0; i < n; i++) await remember(env, env.other, `Foreign memory ${i}.`);
  },
  async read(env) {
    const items: ReadItem[] = [];
    for (const [id, agent] of env.owner) {
      const memory = await env.engine.getMemory({ agentId: MINE, id });
      if (agent !== MINE) {
        expect(memory).toBeUndefined();
        await expect(env.engine.history({ agentId: MINE, id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
        continue;
      }
      items.push({ label: `memory ${memory?.content}`, ownerId: memory?.agentId });
      for (const h of await env.engine.history({ agentId: MINE, id }))
        items.push({ label: `history ${h.event} ${h.newContent}`, ownerId: memoryOwner(env, h.memoryId) });
    }
    return items;
  },
};

/** Every read path that takes an agent, as the engine has them today. */
export function readPaths(): ReadPath[] {
  return [
    lexical,
    semanticPath('recall: semantic channel, sqlite-vec KNN', 'auto', createBagOfWordsEmbedder(32)),
    semanticPath('recall: semantic channel, scan fallback (no sqlite-vec)', 'off', createBagOfWordsEmbedder(32)),
    hints,
    traversal,
    linked,
    transcripts,
    documents,
    imports,
    memoryReads,
  ];
}
