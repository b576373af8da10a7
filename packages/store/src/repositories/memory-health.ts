import { raw, type SqlExecutor } from '../internal/sql.js';
import { scopeMemoryCounts } from './memory-counts.js';

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
 * A scope's lifecycle counts. Live, per model, never recalled, stale, forgotten and expiring come
 * from the maintained `memory_counts` rows (see `scopeMemoryCounts`: a few rows, plus one per day
 * with activity for `stale`); purged sums the scope's daily purge counters; the 30-day
 * counters are a bounded range of daily rows; `purgeDue` is two index range counts over what is due
 * now (the purge backlog, normally empty when the daily purge runs); orphans are counted up to 10,000.
 */
export function memoryHealthCounts(
  sql: SqlExecutor,
  agentId: string,
  at: { now: number; staleBefore: number; countersSince: number; purgeCutoff: number },
): MemoryHealthCounts {
  const counts = scopeMemoryCounts(sql, agentId, at.staleBefore);
  const counters = sql.all<{ kind: string; n: number }>(
    raw(
      'SELECT kind, sum(n) AS n FROM lifecycle_counts WHERE agent_id = ? AND day >= ? GROUP BY kind',
      agentId,
      Math.floor(at.countersSince / 86_400_000),
    ),
  );
  const counter = (kind: string): number => counters.find((c) => c.kind === kind)?.n ?? 0;
  return {
    live: counts.live,
    forgotten: counts.forgotten,
    expiring: counts.expiring,
    // Every purge bumps the day's counter with its tombstones, so the sum over the scope's days is
    // the tombstone count without walking the tombstones.
    purged: n(sql, "SELECT sum(n) AS n FROM lifecycle_counts WHERE agent_id = ? AND kind = 'purged'", agentId),
    duplicatesPrevented: counter('duplicate_prevented'),
    conflictsMerged: counter('conflict_merged'),
    reaped: counter('reaped'),
    neverRecalled: counts.neverRecalled,
    stale: counts.stale,
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
    byModel: counts.byModel,
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
