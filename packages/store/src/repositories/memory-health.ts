import { raw, type SqlExecutor } from '../internal/sql.js';

/** One scope's lifecycle counts (see `memoryHealthCounts` for what each costs). */
export interface MemoryHealthCounts {
  readonly live: number;
  readonly forgotten: number;
  readonly expiring: number;
  readonly purged: number;
  readonly duplicatesPrevented: number;
  readonly conflictsMerged: number;
  readonly reaped: number;
  readonly neverRecalled: number;
  readonly stale: number;
  readonly orphanEntities: number;
  /** Forgotten or expired at or before the purge cutoff: the next purge removes them. */
  readonly purgeDue: number;
  /** Live memories per embedding model (`null`: no vector yet). */
  readonly byModel: ReadonlyArray<{ readonly model: string | null; readonly count: number }>;
}

const n = (sql: SqlExecutor, query: string, ...params: unknown[]): number =>
  sql.get<{ n: number | null }>(raw(query, ...params))?.n ?? 0;

// An entity nothing points at: no mention, no claim, no link (bounded: counted up to 10,000).
const ORPHANS = `SELECT count(*) AS n FROM (SELECT 1 FROM entities AS e
  WHERE e.agent_id = ? AND e.status = 'active' AND e.pinned = 0 AND e.mentions = 0
    AND NOT EXISTS (SELECT 1 FROM memory_entity_mentions AS x WHERE x.entity_id = e.id)
    AND NOT EXISTS (SELECT 1 FROM entity_attributes AS c WHERE c.entity_id = e.id AND c.status = 'active')
    AND NOT EXISTS (SELECT 1 FROM entity_dependencies AS d WHERE (d.source_entity_id = e.id OR d.target_entity_id = e.id) AND d.status = 'active')
  LIMIT 10000)`;

/**
 * A scope's lifecycle counts. Every count is an index range count over the scope's own entries
 * (partial indexes on memories, tombstones, the daily counters), never a read of memory rows. One
 * walk covers every live memory's index entry (per model, never recalled, stale), so the cost grows
 * with the scope's live memories (see `bench:maintenance`); `expiring` grows with the memories that
 * carry an expiry in the whole file.
 */
export function memoryHealthCounts(
  sql: SqlExecutor,
  agentId: string,
  at: { now: number; staleBefore: number; countersSince: number; purgeCutoff: number },
): MemoryHealthCounts {
  // One walk of the scope's live index entries: per model, how many, never recalled, stale.
  const walk = sql.all<{ model: string | null; count: number; never: number; stale: number }>(
    raw(
      `SELECT embedding_model AS model, count(*) AS count, sum(last_accessed IS NULL) AS never,
         sum(last_accessed < ? OR (last_accessed IS NULL AND created_at < ?)) AS stale
       FROM memories INDEXED BY memories_agent_health WHERE agent_id = ? AND is_deleted = 0
       GROUP BY embedding_model`,
      at.staleBefore,
      at.staleBefore,
      agentId,
    ),
  );
  const byModel = walk.map((w) => ({ model: w.model, count: w.count }));
  const counters = sql.all<{ kind: string; n: number }>(
    raw(
      'SELECT kind, sum(n) AS n FROM lifecycle_counts WHERE agent_id = ? AND day >= ? GROUP BY kind',
      agentId,
      Math.floor(at.countersSince / 86_400_000),
    ),
  );
  const counter = (kind: string): number => counters.find((c) => c.kind === kind)?.n ?? 0;
  return {
    live: byModel.reduce((sum, r) => sum + r.count, 0),
    forgotten: n(
      sql,
      'SELECT count(*) AS n FROM memories INDEXED BY memories_agent_forgotten WHERE agent_id = ? AND is_deleted = 1',
      agentId,
    ),
    expiring: n(
      sql,
      'SELECT count(*) AS n FROM memories INDEXED BY memories_expiring WHERE expires_at IS NOT NULL AND is_deleted = 0 AND agent_id = ?',
      agentId,
    ),
    purged: n(sql, 'SELECT count(*) AS n FROM memory_tombstones WHERE agent_id = ?', agentId),
    duplicatesPrevented: counter('duplicate_prevented'),
    conflictsMerged: counter('conflict_merged'),
    reaped: counter('reaped'),
    neverRecalled: walk.reduce((sum, w) => sum + (w.never ?? 0), 0),
    stale: walk.reduce((sum, w) => sum + (w.stale ?? 0), 0),
    orphanEntities: n(sql, ORPHANS, agentId),
    purgeDue:
      n(
        sql,
        'SELECT count(*) AS n FROM memories INDEXED BY memories_agent_forgotten WHERE agent_id = ? AND is_deleted = 1 AND deleted_at <= ?',
        agentId,
        at.purgeCutoff,
      ) +
      n(
        sql,
        `SELECT count(*) AS n FROM memories INDEXED BY memories_expiring
         WHERE expires_at IS NOT NULL AND is_deleted = 0 AND expires_at <= ? AND agent_id = ? AND pinned = 0`,
        at.purgeCutoff,
        agentId,
      ),
    byModel,
  };
}

/**
 * Live memories (all scopes) without a vector of `model`: the embedding migration's remaining work.
 * Three range counts of the partial index on `embedding_model` (none, sorting before, after).
 */
export function countMemoriesWithoutVector(sql: SqlExecutor, model: string): number {
  return (
    n(sql, 'SELECT count(*) AS n FROM memories WHERE is_deleted = 0 AND embedding_model IS NULL') +
    n(sql, 'SELECT count(*) AS n FROM memories WHERE is_deleted = 0 AND embedding_model < ?', model) +
    n(sql, 'SELECT count(*) AS n FROM memories WHERE is_deleted = 0 AND embedding_model > ?', model)
  );
}
