import { raw, type SqlExecutor } from '../internal/sql.js';
import { all, type Program, portable } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

// Reads of `memory_counts`, the per-scope counts the triggers of migration 17 keep in step with
// `memories`. Each scope read is a range of the table's primary key within one agent: a row per
// (embedding model, recalled or not, day of last activity) with live memories, one per counter.

const DAY_MS = 86_400_000;

/** A scope's maintained counts. */
export interface ScopeMemoryCounts {
  /** Live memories per vector key (`null`: no vector yet). */
  readonly byModel: ReadonlyArray<{ readonly model: string | null; readonly count: number }>;
  readonly live: number;
  readonly neverRecalled: number;
  readonly forgotten: number;
  readonly expiring: number;
  /** Live memories whose last access (or, never accessed, creation) fell on a UTC day before `staleBefore`'s. */
  readonly stale: number;
}

/**
 * A scope's counts from the maintained table: one read of the agent's rows (a few per embedding
 * model and day with activity, plus one each for forgotten and expiring). The cost follows the
 * models and the days, never the memories. `stale` has day resolution: memories last active on the
 * cutoff's own UTC day count as not stale.
 */
export function scopeMemoryCounts(sql: SqlExecutor, agentId: string, staleBefore: number): ScopeMemoryCounts {
  // Summed in SQL: a few result rows (one per kind and model) instead of one per day.
  const rows = sql.all<{ kind: string; model: string; n: number; never: number; stale: number }>(
    raw(
      `SELECT kind, model, sum(n) AS n, sum(CASE WHEN recalled = 0 THEN n ELSE 0 END) AS never,
         sum(CASE WHEN day < ? THEN n ELSE 0 END) AS stale
       FROM memory_counts WHERE agent_id = ? GROUP BY kind, model HAVING sum(n) <> 0`,
      Math.floor(staleBefore / DAY_MS),
      agentId,
    ),
  );
  const live = rows.filter((r) => r.kind === 'live');
  const byModel = live.map((r) => ({ model: r.model === '' ? null : r.model, count: r.n }));
  const total = (kind: string): number => rows.find((r) => r.kind === kind)?.n ?? 0;
  return {
    byModel,
    live: live.reduce((sum, r) => sum + r.n, 0),
    neverRecalled: live.reduce((sum, r) => sum + r.never, 0),
    forgotten: total('forgotten'),
    expiring: total('expiring'),
    stale: live.reduce((sum, r) => sum + r.stale, 0),
  };
}

/** Live memories of a scope per vector key ('' = none): recall's vector coverage (one range read). */
export function liveMemoriesByVectorKey(sql: SqlExecutor, agentId: string): Array<{ key: string; n: number }> {
  return runSqliteProgram(sql, liveMemoriesByVectorKeyProgram(agentId));
}

/** {@link liveMemoriesByVectorKey} as a program (both dialects). */
export function* liveMemoriesByVectorKeyProgram(agentId: string): Program<Array<{ key: string; n: number }>> {
  return yield* all<{ key: string; n: number }>(
    portable(
      `SELECT model AS key, sum(n) AS n FROM memory_counts WHERE agent_id = ? AND kind = 'live'
       GROUP BY model HAVING sum(n) <> 0`,
      agentId,
    ),
  );
}

/** Live memories of every scope per vector key ('' = none): the embedding migration's progress (reads every scope's rows). */
export function liveMemoriesByVectorKeyAll(sql: SqlExecutor): Array<{ key: string; n: number }> {
  return sql.all<{ key: string; n: number }>(
    raw(`SELECT model AS key, sum(n) AS n FROM memory_counts WHERE kind = 'live' GROUP BY model HAVING sum(n) <> 0`),
  );
}
