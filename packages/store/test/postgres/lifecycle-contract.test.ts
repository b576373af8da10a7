import { createSequentialIds, isMemoryError } from '@memory/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryWriteDeps } from '../../src/memory-writer/context.js';
import { createMemoriesProgram, type NewMemory, prepareContent } from '../../src/memory-writer/create-memories.js';
import { forgetMemoryProgram } from '../../src/memory-writer/forget-memory.js';
import { postgresVectorIndexesDueProgram } from '../../src/postgres/vector-upkeep.js';
import { all, get, type Program, perDialect, portable, run } from '../../src/program/program.js';
import { archiveOrphanEntitiesProgram, pruneColdCopiesProgram } from '../../src/repositories/archives.js';
import {
  clearReembedRequestProgram,
  finishEmbeddingMigrationsProgram,
  latestEmbeddingMigrationProgram,
  listEmbedderIdentitiesProgram,
  reembedRequestsProgram,
  requestReembedProgram,
  useEmbedderIdentityProgram,
} from '../../src/repositories/embedder-identities.js';
import { beginErasureProgram, eraseStepProgram } from '../../src/repositories/erase.js';
import { insertHintsProgram } from '../../src/repositories/hints.js';
import {
  bumpLifecycleCountProgram,
  findMaintenanceStateProgram,
  saveMaintenanceStateProgram,
} from '../../src/repositories/maintenance-state.js';
import { liveMemoriesByVectorKeyProgram } from '../../src/repositories/memory-counts.js';
import { memoryHealthCountsProgram } from '../../src/repositories/memory-health.js';
import {
  clearEmbeddingFailuresProgram,
  memoriesWithoutVectorProgram,
  recordEmbeddingFailureProgram,
} from '../../src/repositories/missing-vectors.js';
import {
  findProjectionProgram,
  memoryMapLabelsProgram,
  newestMemoryVectorsProgram,
  projectionSignatureProgram,
  saveProjectionProgram,
} from '../../src/repositories/projections.js';
import {
  countDuePurgesProgram,
  duePurgesProgram,
  findTombstoneProgram,
  purgeMemoriesProgram,
} from '../../src/repositories/purge.js';
import { countReapCandidatesProgram, reapCandidatesProgram, reapMemoriesProgram } from '../../src/repositories/reap.js';
import {
  readRowImageProgram,
  recountEntityMentionsProgram,
  restoreRowImageProgram,
} from '../../src/repositories/row-images.js';
import { scopeMemoriesPageProgram, scopeMemoryPartsProgram } from '../../src/repositories/scope-copy.js';
import {
  findScopeRowOwnerProgram,
  insertScopeRowProgram,
  type ScopeColumns,
} from '../../src/repositories/scope-insert.js';
import { presentTablesProgram } from '../../src/repositories/table-presence.js';
import { postgresTestServer } from '../support/postgres.js';
import {
  type LifecycleBackend,
  openPgliteVectorBackend,
  openServerLifecycleBackend,
  openSqliteLifecycleBackend,
} from './lifecycle-backends.js';

// The memory lifecycle's and the embedder's store programs, one contract for SQLite, PGlite (with
// pgvector, so the vector mirror is there) and the run's PostgreSQL server. Each test uses its own
// agents, so the tests of one backend share one database.

const NOW = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const server = await postgresTestServer();
const BACKENDS = [
  { name: 'sqlite', open: openSqliteLifecycleBackend, skip: '', mirror: false },
  { name: 'postgres (PGlite, pgvector)', open: openPgliteVectorBackend, skip: '', mirror: true },
  {
    name: 'postgres (server)',
    open: openServerLifecycleBackend,
    skip: server.available ? '' : ` (skipped: ${server.reason})`,
    // Debian's server packages have no pgvector.
    mirror: false,
  },
];

const memory = (agentId: string, content: string, extra: Partial<NewMemory> = {}): NewMemory => ({
  agentId,
  content: prepareContent(content),
  type: 'fact',
  importance: 0.5,
  audit: { actor: { id: 'tester', type: 'operator' } },
  ...extra,
});

const vector = (seed: number) => Float32Array.from({ length: 4 }, (_, i) => Math.sin(seed + i));

function* count(table: string, where: string, ...params: unknown[]): Program<number> {
  return (yield* get<{ n: number }>(portable(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, ...params)))?.n ?? 0;
}

/** Postings of a scope's rows in the text index (memory or hint corpus). */
const postingsOf = (corpus: string, agentId: string, rows: readonly number[]) =>
  count(
    'text_postings',
    `scope IN (SELECT scope FROM text_scopes WHERE corpus = ? AND agent_id = ?) AND row IN (${rows.map(() => '?').join(', ') || 'NULL'})`,
    corpus,
    agentId,
    ...rows,
  );

/** Tables with an agent_id column (vector mirror and SQLite-only index tables included where they exist). */
function* tablesWithAgentId(): Program<string[]> {
  const rows = yield* all<{ name: string }>(
    perDialect(
      {
        sql: `SELECT m.name FROM sqlite_master AS m WHERE m.type = 'table' AND m.sql NOT LIKE 'CREATE VIRTUAL%'
              AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) AS c WHERE c.name = 'agent_id') ORDER BY m.name`,
        parameters: [],
      },
      {
        sql: `SELECT table_name AS name FROM information_schema.columns
              WHERE table_schema = current_schema() AND column_name = 'agent_id' ORDER BY table_name`,
        parameters: [],
      },
    ),
  );
  return rows.map((r) => r.name);
}

describe.each(BACKENDS)('lifecycle store contract: $name$skip', ({ open, skip, mirror }) => {
  if (skip) {
    it.skip('needs a PostgreSQL server', () => {});
    return;
  }
  let db: LifecycleBackend;
  let deps: MemoryWriteDeps;
  beforeAll(async () => {
    db = await open();
    deps = { ids: createSequentialIds('m'), vectorAvailable: db.vectorAvailable, inlineEntityLinking: true };
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  });

  it('purges forgotten and expired memories with everything derived, leaving tombstones and other scopes alone', async () => {
    const created = await db.write((t) =>
      createMemoriesProgram(
        t,
        deps,
        [
          memory('p1', 'The lighthouse keeper logs storms nightly.', {
            embedding: { model: 'toy', vector: vector(1) },
          }),
          memory('p1', 'Harbour fees rise in April.', {
            embedding: { model: 'toy', vector: vector(2) },
            expiresAt: NOW + DAY,
          }),
          memory('p1', 'Pinned: the harbour master is Ines.', { pinned: true, expiresAt: NOW + DAY }),
          memory('p2', 'The lighthouse keeper logs storms nightly.', {
            embedding: { model: 'toy', vector: vector(1) },
          }),
        ],
        NOW,
      ),
    );
    const [forgotten, expired, pinned, other] = created.map((c) => c.id);
    await db.write((t) => insertHintsProgram(t.dialect, 'p1', expired as string, ['when do fees rise'], NOW));
    await db.write((t) =>
      forgetMemoryProgram(t, deps, { agentId: 'p1', id: forgotten as string, audit: { reason: 'wrong' } }, NOW),
    );
    const seqs = await db.read(() =>
      all<{ seq: number }>(portable('SELECT seq FROM memories WHERE agent_id = ? ORDER BY seq', 'p1')),
    );
    expect(await db.read(() => postingsOf('memory', 'p1', [seqs[1]?.seq as number]))).toBeGreaterThan(0);
    expect(await db.read(() => count('memory_hints', 'agent_id = ?', 'p1'))).toBe(1);
    if (db.mirror) expect(await db.read(() => count('memory_vectors', 'agent_id = ?', 'p1'))).toBe(1);

    const later = NOW + 2 * DAY;
    expect(await db.read(() => countDuePurgesProgram(later))).toMatchObject({ forgotten: 1, expired: 1 });
    const due = await db.read(() => duePurgesProgram(later, 10));
    expect(due.map((d) => [d.id, d.agentId, d.reason])).toEqual([
      [forgotten, 'p1', 'forgotten'],
      [expired, 'p1', 'expired'],
    ]);
    const { counts, purged } = await db.write((t) =>
      purgeMemoriesProgram(t, { vectorAvailable: db.vectorAvailable, nextId: () => 'x' }, due, later),
    );
    expect(purged).toHaveLength(2);
    expect(counts).toMatchObject({ memories: 2, vectors: 1, hints: 1, historyScrubbed: 3, coldCopies: 0 });
    expect(await db.read(() => count('memories', 'agent_id = ?', 'p1'))).toBe(1);
    expect(await db.read(() => count('embeddings', 'agent_id = ?', 'p1'))).toBe(0);
    expect(await db.read(() => count('memory_hints', 'agent_id = ?', 'p1'))).toBe(0);
    // No text of a purged memory is left in the index: its postings and its hints' postings are gone.
    expect(await db.read(() => postingsOf('memory', 'p1', [seqs[0]?.seq as number, seqs[1]?.seq as number]))).toBe(0);
    expect(
      await db.read(() =>
        count(
          'text_postings',
          'scope IN (SELECT scope FROM text_scopes WHERE corpus = ? AND agent_id = ?)',
          'hint',
          'p1',
        ),
      ),
    ).toBe(0);
    expect(
      await db.read(() =>
        count(
          'memory_history',
          'agent_id = ? AND (old_content IS NOT NULL OR new_content IS NOT NULL) AND memory_id <> ?',
          'p1',
          pinned,
        ),
      ),
    ).toBe(0);
    expect(await db.read(() => findTombstoneProgram('p1', expired as string))).toEqual({
      contentHash: prepareContent('Harbour fees rise in April.').hash,
      reason: 'expired',
      purgedAt: later,
    });
    expect(await db.read(() => findTombstoneProgram('p2', expired as string))).toBeUndefined();
    if (db.mirror) {
      expect(await db.read(() => count('memory_vectors', 'agent_id = ?', 'p1'))).toBe(0);
      expect(await db.read(() => count('memory_vectors', 'agent_id = ?', 'p2'))).toBe(1);
    }
    // The other scope and the pinned memory are untouched; the maintained counts follow.
    expect(await db.read(() => count('memories', 'id = ?', other))).toBe(1);
    expect(await db.read(() => liveMemoriesByVectorKeyProgram('p1'))).toEqual([{ key: '', n: 1 }]);
    expect(await db.read(() => countDuePurgesProgram(later))).toEqual({ forgotten: 0, expired: 0 });
  });

  it('scrubs a purged memory’s quotes from claim evidence and marks claims left without evidence', async () => {
    const [cited, other] = await db.write((t) =>
      createMemoriesProgram(
        t,
        deps,
        [memory('q1', 'Quoted memory about the pier.'), memory('q1', 'Another memory about the pier.')],
        NOW,
      ),
    );
    const citedRef = `memory:${cited?.id}`;
    const evidence = (refs: string[]) => JSON.stringify(refs.map((sourceRef) => ({ sourceRef, quote: 'the pier' })));
    await db.write(function* () {
      yield* run(
        portable(
          `INSERT INTO entities (id, agent_id, name, canonical_name, created_at, updated_at)
           VALUES ('ent-q1', 'q1', 'Pier', 'pier', ?, ?)`,
          NOW,
          NOW,
        ),
      );
      yield* run(
        portable(
          `INSERT INTO entity_aspects (id, agent_id, entity_id, name, canonical_name, created_at, updated_at)
           VALUES ('asp-q1', 'q1', 'ent-q1', 'facts', 'facts', ?, ?)`,
          NOW,
          NOW,
        ),
      );
      for (const [id, refs] of [
        ['claim-only', [citedRef]],
        ['claim-both', [citedRef, `memory:${other?.id}`]],
      ] as const)
        yield* run(
          portable(
            `INSERT INTO entity_attributes (id, agent_id, aspect_id, entity_id, claim_key, content, evidence_json, created_at)
             VALUES (?, 'q1', 'asp-q1', 'ent-q1', ?, 'The pier is old.', ?, ?)`,
            id,
            id,
            evidence([...refs]),
            NOW,
          ),
        );
    });
    await db.write((t) =>
      forgetMemoryProgram(t, deps, { agentId: 'q1', id: cited?.id as string, audit: { reason: 'x' } }, NOW),
    );
    const due = (await db.read(() => duePurgesProgram(NOW + DAY, 100))).filter((d) => d.agentId === 'q1');
    const attention = await db.read(() => presentTablesProgram(['dreaming_attention']));
    const { counts } = await db.write((t) =>
      purgeMemoriesProgram(t, { vectorAvailable: db.vectorAvailable, nextId: () => 'att-q1' }, due, NOW + DAY),
    );
    expect(counts.quotesScrubbed).toBe(2);
    const claims = await db.read(() =>
      all<{ id: string; evidence_json: string }>(
        portable("SELECT id, evidence_json FROM entity_attributes WHERE agent_id = 'q1' ORDER BY id"),
      ),
    );
    const quotes = (json: string) =>
      (JSON.parse(json) as Array<{ sourceRef: string; quote: string | null }>).map((e) => [e.sourceRef, e.quote]);
    expect(claims.map((c) => [c.id, quotes(c.evidence_json)])).toEqual([
      [
        'claim-both',
        [
          [citedRef, null],
          [`memory:${other?.id}`, 'the pier'],
        ],
      ],
      ['claim-only', [[citedRef, null]]],
    ]);
    // Where Dreaming's attention table exists (on PostgreSQL once its form lands), the claim whose
    // only evidence went is marked for review; the other still has evidence.
    if (attention.has('dreaming_attention')) {
      expect(counts.markedForReview).toBe(1);
      expect(
        await db.read(() =>
          count('dreaming_attention', "agent_id = 'q1' AND kind = 'review_due' AND subject_ref = 'claim:claim-only'"),
        ),
      ).toBe(1);
    } else expect(counts.markedForReview).toBe(0);
  });

  it('reaps stale low-importance memories by cursor, with history, and counts them', async () => {
    const created = await db.write((t) =>
      createMemoriesProgram(
        t,
        deps,
        [
          memory('r1', 'Stale low note one.', { importance: 0.1 }),
          memory('r1', 'Stale but important.', { importance: 0.9 }),
          memory('r1', 'Stale low pinned.', { importance: 0.1, pinned: true }),
        ],
        NOW,
      ),
    );
    const rule = { maxImportance: 0.2, staleBefore: NOW + 100 * DAY, afterDays: 90 };
    expect(await db.read(() => countReapCandidatesProgram(rule))).toBeGreaterThanOrEqual(1);
    const found = await db.read(() => reapCandidatesProgram({ after: 0, scanRows: 1_000_000 }, rule));
    const mine = found.candidates.filter((c) => c.agentId === 'r1');
    expect(mine.map((c) => c.id)).toEqual([created[0]?.id]);
    expect(mine[0]).toMatchObject({ importance: 0.1, lastUsed: NOW });
    expect(found.next).toBe(0);
    const reaped = await db.write(() => reapMemoriesProgram(mine, rule, NOW + 100 * DAY, () => 'reap-h1'));
    expect(reaped).toBe(1);
    expect(await db.read(() => count('memories', 'id = ? AND expires_at = ?', created[0]?.id, NOW + 100 * DAY))).toBe(
      1,
    );
    expect(await db.read(() => count('memory_history', "id = 'reap-h1' AND reason LIKE 'reaped:%'"))).toBe(1);
    // Reaping again changes nothing: the row already has an expiry.
    expect(await db.write(() => reapMemoriesProgram(mine, rule, NOW + 100 * DAY, () => 'reap-h2'))).toBe(0);
  });

  it('keeps maintenance state, lifecycle counters and memory health', async () => {
    await db.write(() => saveMaintenanceStateProgram({ task: 'reap', cursor: 42, now: NOW }));
    expect(await db.read(() => findMaintenanceStateProgram('reap'))).toEqual({
      task: 'reap',
      cursor: 42,
      lastRunAt: null,
      lastReport: {},
    });
    await db.write(() => saveMaintenanceStateProgram({ task: 'reap', cursor: 0, report: { reaped: 3 }, now: NOW + 5 }));
    await db.write(() => saveMaintenanceStateProgram({ task: 'reap', cursor: 7, now: NOW + 9 }));
    expect(await db.read(() => findMaintenanceStateProgram('reap'))).toEqual({
      task: 'reap',
      cursor: 7,
      lastRunAt: NOW + 5,
      lastReport: { reaped: 3 },
    });
    await db.write(() => bumpLifecycleCountProgram('h1', 'duplicate_prevented', 2, NOW));
    await db.write(() => bumpLifecycleCountProgram('h1', 'duplicate_prevented', 3, NOW));
    await db.write(() => bumpLifecycleCountProgram('h1', 'purged', 4, NOW - 40 * DAY));
    await db.write((t) =>
      createMemoriesProgram(
        t,
        deps,
        [
          memory('h1', 'Health one.', { embedding: { model: 'toy', vector: vector(3) } }),
          memory('h1', 'Health two.', { expiresAt: NOW - DAY }),
        ],
        NOW - 200 * DAY,
      ),
    );
    const health = await db.read(() =>
      memoryHealthCountsProgram('h1', {
        now: NOW,
        staleBefore: NOW - 90 * DAY,
        countersSince: NOW - 30 * DAY,
        purgeCutoff: NOW,
      }),
    );
    expect(health).toMatchObject({
      live: 2,
      forgotten: 0,
      expiring: 1,
      purged: 4,
      duplicatesPrevented: 5,
      conflictsMerged: 0,
      neverRecalled: 2,
      stale: 2,
      orphanEntities: 0,
      purgeDue: 1,
    });
    expect([...health.byModel].sort((a, b) => String(a.model).localeCompare(String(b.model)))).toEqual([
      { model: null, count: 1 },
      { model: 'toy', count: 1 },
    ]);
  });

  it('records embedder identities, changes and re-embed requests', async () => {
    // A fresh database of this backend: identities are per database.
    const fresh = await open();
    try {
      const first = await fresh.write(() => useEmbedderIdentityProgram({ model: 'emb', dimensions: 4 }, NOW));
      expect(first).toEqual({
        identity: { vectorKey: 'emb', model: 'emb', dimensions: 4, firstUsedAt: NOW, lastUsedAt: NOW },
      });
      await fresh.write((t) =>
        createMemoriesProgram(
          t,
          { ...deps, ids: createSequentialIds('e') },
          [memory('e1', 'Vectored.', { embedding: { model: 'emb', vector: vector(4) } })],
          NOW,
        ),
      );
      // Same model name, other dimensions: a key of its own, and a change recorded.
      const wider = await fresh.write(() => useEmbedderIdentityProgram({ model: 'emb', dimensions: 8 }, NOW + 1));
      expect(wider.identity.vectorKey).toBe('emb#8');
      expect(wider.change).toMatchObject({ fromKey: 'emb', toKey: 'emb#8', changedAt: NOW + 1, finishedAt: null });
      // Back to the first: found again under its own key.
      const back = await fresh.write(() => useEmbedderIdentityProgram({ model: 'emb', dimensions: 4 }, NOW + 3));
      expect(back.identity.vectorKey).toBe('emb');
      expect(back.change).toMatchObject({ fromKey: 'emb#8', toKey: 'emb' });
      expect((await fresh.read(() => listEmbedderIdentitiesProgram())).map((i) => i.vectorKey)).toEqual([
        'emb',
        'emb#8',
      ]);
      await fresh.write(() => finishEmbeddingMigrationsProgram('emb', NOW + 2));
      expect(await fresh.read(() => latestEmbeddingMigrationProgram())).toMatchObject({
        fromKey: 'emb#8',
        toKey: 'emb',
        finishedAt: NOW + 2,
      });
      await fresh.write(() => requestReembedProgram('e1', 'emb', NOW));
      await fresh.write(() => requestReembedProgram('e1', 'emb', NOW + 1));
      await fresh.write(() => requestReembedProgram('', 'emb', NOW));
      expect(await fresh.read(() => reembedRequestsProgram('emb'))).toEqual(['', 'e1']);
      await fresh.write(() => clearReembedRequestProgram('e1', 'emb'));
      expect(await fresh.read(() => reembedRequestsProgram('emb'))).toEqual(['']);
    } finally {
      await fresh.close();
    }
  });

  it('finds memories without a vector of the current model, and passes over ones that keep failing', async () => {
    const created = await db.write((t) =>
      createMemoriesProgram(
        t,
        deps,
        [
          memory('v1', 'No vector yet.'),
          memory('v1', 'Old model vector.', { embedding: { model: 'old', vector: vector(5) } }),
          memory('v1', 'Current vector.', { embedding: { model: 'zz-current', vector: vector(6) } }),
          memory('v2', 'Other scope, old model.', { embedding: { model: 'old', vector: vector(7) } }),
        ],
        NOW,
      ),
    );
    const missing = async (keys: 'all' | 'none' | string[]) =>
      (await db.read(() => memoriesWithoutVectorProgram('zz-current', 100, 2, keys)))
        .filter((m) => m.agentId === 'v1' || m.agentId === 'v2')
        .map((m) => m.id);
    expect(await missing('all')).toEqual([created[0]?.id, created[1]?.id, created[3]?.id]);
    expect(await missing('none')).toEqual([created[0]?.id]);
    expect(await missing(['v1'])).toEqual([created[0]?.id, created[1]?.id]);
    const failure = {
      memoryId: created[0]?.id as string,
      model: 'zz-current',
      contentHash: prepareContent('No vector yet.').hash,
      error: 'boom',
    };
    await db.write(() => recordEmbeddingFailureProgram(failure, NOW));
    expect(await missing('none')).toEqual([created[0]?.id]);
    await db.write(() => recordEmbeddingFailureProgram(failure, NOW));
    expect(await missing('none')).toEqual([]);
    expect(await db.read(() => count('embedding_failures', 'memory_id = ? AND attempts = 2', failure.memoryId))).toBe(
      1,
    );
    await db.write(() => clearEmbeddingFailuresProgram(failure.memoryId));
    expect(await missing('none')).toEqual([created[0]?.id]);
  });

  it('copies a scope out and rows back in, refusing columns the table does not have', async () => {
    const created = await db.write((t) =>
      createMemoriesProgram(t, deps, [memory('c1', 'Copy me.'), memory('c1', 'Copy me too.')], NOW),
    );
    const page = await db.read(() => scopeMemoriesPageProgram('c1', undefined, 1));
    expect(page.rows).toHaveLength(1);
    expect(page.rows[0]).toMatchObject({ id: created[0]?.id, content: 'Copy me.', importance: 0.5, is_deleted: 0 });
    expect(Object.keys(page.rows[0] ?? {})).not.toContain('agent_id');
    const next = await db.read(() => scopeMemoriesPageProgram('c1', page.last, 10));
    expect(next.rows.map((r) => r['id'])).toEqual([created[1]?.id]);
    const parts = await db.read(() => scopeMemoryPartsProgram('c1', created[0]?.id as string));
    expect(parts.history).toHaveLength(1);
    const history = { ...parts.history[0], id: 'copied-h1' };
    expect(
      await db.write(() => insertScopeRowProgram('memory_history', history, { agent_id: 'c1', memory_id: 'x' })),
    ).toBe(true);
    expect(
      await db.write(() => insertScopeRowProgram('memory_history', history, { agent_id: 'c1', memory_id: 'x' })),
    ).toBe(false);
    const refused = await db
      .write(() => insertScopeRowProgram('memory_history', { nope: 1 }, { agent_id: 'c1' }))
      .catch((e: unknown) => e);
    expect(isMemoryError(refused) && refused.code).toBe('INVALID_INPUT');

    // An import's column cache: filled by the first insert into a table, then trusted without a
    // catalog read (a cache that names fewer columns refuses a column the table has).
    const columns: ScopeColumns = new Map();
    const cached = { ...history, id: 'copied-h2' };
    expect(
      await db.write(() =>
        insertScopeRowProgram('memory_history', cached, { agent_id: 'c1', memory_id: 'x' }, columns),
      ),
    ).toBe(true);
    expect([...(columns.get('memory_history') ?? [])].sort()).toEqual(
      // The exported row's columns and the three an export omits.
      [...Object.keys(history), 'seq', 'agent_id', 'memory_id'].sort(),
    );
    columns.set('memory_history', new Set(['id', 'agent_id']));
    const stale = await db
      .write(() =>
        insertScopeRowProgram(
          'memory_history',
          { ...cached, id: 'copied-h3' },
          { agent_id: 'c1', memory_id: 'x' },
          columns,
        ),
      )
      .catch((e: unknown) => e);
    expect(isMemoryError(stale) && stale.code).toBe('INVALID_INPUT');
    expect(await db.read(() => findScopeRowOwnerProgram('memories', created[0]?.id as string, 'c1'))).toBe(
      'this-scope',
    );
    expect(await db.read(() => findScopeRowOwnerProgram('memories', created[0]?.id as string, 'c2'))).toBe(
      'other-scope',
    );
    expect(await db.read(() => findScopeRowOwnerProgram('memories', 'none', 'c1'))).toBeUndefined();
  });

  it('caches embedding-map projections and reads their vectors and labels', async () => {
    const created = await db.write((t) =>
      createMemoriesProgram(
        t,
        deps,
        [
          memory('m1', 'Map point one.', { embedding: { model: 'toy', vector: vector(8) } }),
          memory('m1', 'Map point two.', { embedding: { model: 'toy', vector: vector(9) } }),
        ],
        NOW,
      ),
    );
    const signature = await db.read(() => projectionSignatureProgram('m1', 'toy', 10));
    expect(signature).toMatch(/^2:\d+:10$/);
    const vectors = await db.read(() => newestMemoryVectorsProgram('m1', 'toy', 10));
    expect(vectors.map((v) => v.memoryId)).toEqual([created[1]?.id, created[0]?.id]);
    expect(Buffer.isBuffer(vectors[0]?.vector)).toBe(true);
    const labels = await db.read(() =>
      memoryMapLabelsProgram('m1', [created[1]?.id as string, created[0]?.id as string], 5),
    );
    expect(labels).toEqual([
      { id: created[1]?.id, type: 'fact', category: null, preview: 'Map p' },
      { id: created[0]?.id, type: 'fact', category: null, preview: 'Map p' },
    ]);
    const row = { agentId: 'm1', model: 'toy', signature, points: 2, resultJson: '[]', computedMs: 1.5, now: NOW };
    await db.write(() => saveProjectionProgram(row));
    await db.write(() => saveProjectionProgram({ ...row, computedMs: 2.5 }));
    expect(await db.read(() => findProjectionProgram('m1', 'toy'))).toEqual({
      signature,
      resultJson: '[]',
      computedMs: 2.5,
      cachedAt: NOW,
    });
  });

  it('reads and restores row images, recounts mentions, archives orphans and prunes cold copies', async () => {
    await db.write(() =>
      run(
        portable(
          `INSERT INTO entities (id, agent_id, name, canonical_name, mentions, created_at, updated_at)
           VALUES ('ent-g1', 'g1', 'Orphan', 'orphan', 3, ?, ?)`,
          NOW,
          NOW,
        ),
      ),
    );
    const image = await db.read(() => readRowImageProgram({ kind: 'entity', key: ['ent-g1'] }));
    expect(image).toMatchObject({ id: 'ent-g1', name: 'Orphan', mentions: 3 });
    await db.write(() => recountEntityMentionsProgram(['ent-g1']));
    expect(await db.read(() => readRowImageProgram({ kind: 'entity', key: ['ent-g1'] }))).toMatchObject({
      mentions: 0,
    });
    await db.write(() => restoreRowImageProgram({ kind: 'entity', key: ['ent-g1'] }, null));
    expect(await db.read(() => readRowImageProgram({ kind: 'entity', key: ['ent-g1'] }))).toBeNull();
    await db.write(() => restoreRowImageProgram({ kind: 'entity', key: ['ent-g1'] }, { ...image, mentions: 0 }));
    expect(await db.read(() => readRowImageProgram({ kind: 'entity', key: ['ent-g1'] }))).toEqual({
      ...image,
      mentions: 0,
    });
    // Orphans are archived by a walk over every entity in bounded steps.
    let after = 0;
    let archived = 0;
    do {
      const step = await db.write(() => archiveOrphanEntitiesProgram({ after, scanRows: 2 }, NOW + 1, NOW + 2));
      archived += step.archived;
      after = step.next;
    } while (after !== 0);
    expect(archived).toBeGreaterThanOrEqual(1);
    expect(await db.read(() => readRowImageProgram({ kind: 'entity', key: ['ent-g1'] }))).toMatchObject({
      status: 'archived',
    });
    await db.write(() =>
      run(
        portable(
          "INSERT INTO memories_cold (id, agent_id, row_json, reason, archived_at) VALUES ('cold-g1', 'g1', '{}', 'test', ?)",
          NOW - 400 * DAY,
        ),
      ),
    );
    expect(await db.write(() => pruneColdCopiesProgram(NOW - 300 * DAY, 1000))).toBeGreaterThanOrEqual(1);
    expect(await db.read(() => count('memories_cold', "id = 'cold-g1'"))).toBe(0);
  });

  it('erases a whole scope from every table that has one, vector mirror and text index included', async () => {
    for (const agentId of ['gone', 'kept'])
      await db.write((t) =>
        createMemoriesProgram(
          t,
          deps,
          Array.from({ length: 7 }, (_, i) =>
            memory(agentId, `${agentId} remembers the tide table entry ${i}.`, {
              embedding: { model: 'toy', vector: vector(i) },
              linkedEntities: [{ type: 'contact', refId: String(i) }],
            }),
          ),
          NOW,
        ),
      );
    const seqs = (
      await db.read(() => all<{ seq: number }>(portable('SELECT seq FROM memories WHERE agent_id = ?', 'kept')))
    ).map((r) => r.seq);
    await db.write(() => bumpLifecycleCountProgram('gone', 'reaped', 1, NOW));
    await db.write(() => beginErasureProgram('gone', NOW));
    let state = await db.write((t) =>
      eraseStepProgram(t, 'gone', { limit: 3, vectorAvailable: db.vectorAvailable, now: NOW }),
    );
    for (let i = 0; state.status === 'running' && i < 500; i++)
      state = await db.write((t) =>
        eraseStepProgram(t, 'gone', { limit: 3, vectorAvailable: db.vectorAvailable, now: NOW }),
      );
    expect(state.status).toBe('done');
    expect(state.counts).toMatchObject({ memories: 7, embeddings: 7, memory_links: 7, lifecycle_counts: 1 });
    // Nothing of the scope is left in any table with an agent id, nor in its text index.
    for (const table of await db.read(() => tablesWithAgentId()))
      if (table !== 'scope_erasures')
        expect({ table, n: await db.read(() => count(table, 'agent_id = ?', 'gone')) }).toEqual({ table, n: 0 });
    expect(await db.read(() => count('text_postings', 'scope NOT IN (SELECT scope FROM text_scopes)'))).toBe(0);
    // The other scope keeps its rows, vectors and postings.
    expect(await db.read(() => count('memories', 'agent_id = ?', 'kept'))).toBe(7);
    expect(await db.read(() => postingsOf('memory', 'kept', seqs))).toBeGreaterThan(0);
    if (db.mirror) expect(await db.read(() => count('memory_vectors', 'agent_id = ?', 'kept'))).toBe(7);
  });

  // Only where pgvector's mirror is: SQLite's index upkeep is its own (runVectorUpkeep).
  it.skipIf(!mirror)('asks for an HNSW index once an agent passes the exact limit (pgvector)', async () => {
    const fresh = await open();
    try {
      await fresh.write(() => useEmbedderIdentityProgram({ model: 'hnsw-toy', dimensions: 4 }, NOW));
      await fresh.write((t) =>
        createMemoriesProgram(
          t,
          { ...deps, ids: createSequentialIds('hn') },
          Array.from({ length: 3 }, (_, i) =>
            memory('hn1', `Indexed point ${i}.`, { embedding: { model: 'hnsw-toy', vector: vector(i) } }),
          ),
          NOW,
        ),
      );
      expect(await fresh.read(() => postgresVectorIndexesDueProgram(3))).toEqual([]);
      expect(await fresh.read(() => postgresVectorIndexesDueProgram(2))).toEqual([4]);
      await fresh.createVectorIndex?.(4);
      expect(await fresh.read(() => postgresVectorIndexesDueProgram(2))).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});
