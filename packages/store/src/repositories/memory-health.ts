import { raw, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { scopeMemoryCountsProgram } from './memory-counts.js';
import { presentTablesProgram } from './table-presence.js';

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

function* n(query: Parameters<typeof get>[0]): Program<number> {
  return (yield* get<{ n: number | null }>(query))?.n ?? 0;
}

// An entity nothing points at: no mention, no claim, no link (bounded: counted up to 10,000). A
// graph table that does not exist yet (PostgreSQL, before its form) points at nothing.
function orphans(present: ReadonlySet<string>): string {
  const clauses = ['NOT EXISTS (SELECT 1 FROM memory_entity_mentions AS x WHERE x.entity_id = e.id)'];
  if (present.has('entity_attributes'))
    clauses.push("NOT EXISTS (SELECT 1 FROM entity_attributes AS c WHERE c.entity_id = e.id AND c.status = 'active')");
  if (present.has('entity_dependencies'))
    clauses.push(
      "NOT EXISTS (SELECT 1 FROM entity_dependencies AS d WHERE (d.source_entity_id = e.id OR d.target_entity_id = e.id) AND d.status = 'active')",
    );
  return `SELECT count(*) AS n FROM (SELECT 1 FROM entities AS e
  WHERE e.agent_id = ? AND e.status = 'active' AND e.pinned = 0 AND e.mentions = 0
    AND ${clauses.join('\n    AND ')}
  LIMIT 10000) AS orphans`;
}

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
  return runSqliteProgram(sql, memoryHealthCountsProgram(agentId, at));
}

// SQLite is told which partial index each purge-due count walks; PostgreSQL's planner picks them.
const FORGOTTEN_DUE = {
  sqlite:
    'SELECT count(*) AS n FROM memories INDEXED BY memories_agent_forgotten WHERE agent_id = ? AND is_deleted = 1 AND deleted_at <= ?',
  postgres: 'SELECT count(*) AS n FROM memories WHERE agent_id = $1 AND is_deleted = 1 AND deleted_at <= $2',
};
const EXPIRED_DUE = {
  sqlite: `SELECT count(*) AS n FROM memories INDEXED BY memories_expiring
         WHERE expires_at IS NOT NULL AND is_deleted = 0 AND expires_at <= ? AND agent_id = ? AND pinned = 0`,
  postgres: `SELECT count(*) AS n FROM memories
         WHERE expires_at IS NOT NULL AND is_deleted = 0 AND expires_at <= $1 AND agent_id = $2 AND pinned = 0`,
};

/** {@link memoryHealthCounts} as a program (both dialects). */
export function* memoryHealthCountsProgram(
  agentId: string,
  at: { now: number; staleBefore: number; countersSince: number; purgeCutoff: number },
): Program<MemoryHealthCounts> {
  const counts = yield* scopeMemoryCountsProgram(agentId, at.staleBefore);
  const counters = yield* all<{ kind: string; n: number }>(
    portable(
      'SELECT kind, sum(n) AS n FROM lifecycle_counts WHERE agent_id = ? AND day >= ? GROUP BY kind',
      agentId,
      Math.floor(at.countersSince / 86_400_000),
    ),
  );
  const counter = (kind: string): number => counters.find((c) => c.kind === kind)?.n ?? 0;
  const forgottenParams = [agentId, at.purgeCutoff];
  const expiredParams = [at.purgeCutoff, agentId];
  return {
    live: counts.live,
    forgotten: counts.forgotten,
    expiring: counts.expiring,
    // Every purge bumps the day's counter with its tombstones, so the sum over the scope's days is
    // the tombstone count without walking the tombstones.
    purged: yield* n(
      portable("SELECT sum(n) AS n FROM lifecycle_counts WHERE agent_id = ? AND kind = 'purged'", agentId),
    ),
    duplicatesPrevented: counter('duplicate_prevented'),
    conflictsMerged: counter('conflict_merged'),
    reaped: counter('reaped'),
    neverRecalled: counts.neverRecalled,
    stale: counts.stale,
    orphanEntities: yield* n(
      portable(orphans(yield* presentTablesProgram(['entity_attributes', 'entity_dependencies'])), agentId),
    ),
    purgeDue:
      (yield* n(
        perDialect(raw(FORGOTTEN_DUE.sqlite, ...forgottenParams), {
          sql: FORGOTTEN_DUE.postgres,
          parameters: forgottenParams,
        }),
      )) +
      (yield* n(
        perDialect(raw(EXPIRED_DUE.sqlite, ...expiredParams), { sql: EXPIRED_DUE.postgres, parameters: expiredParams }),
      )),
    byModel: counts.byModel,
  };
}

/**
 * Live memories (all scopes) without a vector of `model`: the embedding migration's remaining work.
 * Three range counts of the partial index on `embedding_model` (none, sorting before, after).
 */
export function countMemoriesWithoutVector(sql: SqlExecutor, model: string): number {
  return runSqliteProgram(sql, countMemoriesWithoutVectorProgram(model));
}

/** {@link countMemoriesWithoutVector} as a program (both dialects). */
export function* countMemoriesWithoutVectorProgram(model: string): Program<number> {
  return (
    (yield* n(portable('SELECT count(*) AS n FROM memories WHERE is_deleted = 0 AND embedding_model IS NULL'))) +
    (yield* n(portable('SELECT count(*) AS n FROM memories WHERE is_deleted = 0 AND embedding_model < ?', model))) +
    (yield* n(portable('SELECT count(*) AS n FROM memories WHERE is_deleted = 0 AND embedding_model > ?', model)))
  );
}
