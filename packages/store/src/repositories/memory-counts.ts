import { raw, type SqlExecutor } from '../internal/sql.js';

// Reads of `memory_counts`, the per-scope counts the triggers of migration 17 keep in step with
// `memories`. Each read is a range of the table's primary key within one agent: a few rows per
// embedding model, one per counter, one per day that has a live memory's last activity.

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
 * A scope's counts from the maintained table: reads the agent's `live`, `never`, `forgotten` and
 * `expiring` rows and sums the `day` rows before the cutoff's day. The cost follows the number of
 * distinct models and of days with activity (at most a few thousand rows), never the memories.
 * `stale` has day resolution: memories last active on the cutoff's own UTC day count as not stale.
 */
export function scopeMemoryCounts(sql: SqlExecutor, agentId: string, staleBefore: number): ScopeMemoryCounts {
  const rows = sql.all<{ kind: string; key: string | number; n: number }>(
    raw(
      `SELECT kind, key, n FROM memory_counts WHERE agent_id = ? AND kind IN ('live', 'never', 'forgotten', 'expiring') AND n <> 0`,
      agentId,
    ),
  );
  const one = (kind: string): number => rows.find((r) => r.kind === kind)?.n ?? 0;
  const byModel = rows
    .filter((r) => r.kind === 'live')
    .map((r) => ({ model: r.key === '' ? null : String(r.key), count: r.n }));
  const stale =
    sql.get<{ n: number | null }>(
      raw(
        `SELECT sum(n) AS n FROM memory_counts WHERE agent_id = ? AND kind = 'day' AND key < ?`,
        agentId,
        Math.floor(staleBefore / DAY_MS),
      ),
    )?.n ?? 0;
  return {
    byModel,
    live: byModel.reduce((sum, m) => sum + m.count, 0),
    neverRecalled: one('never'),
    forgotten: one('forgotten'),
    expiring: one('expiring'),
    stale,
  };
}

/** Live memories of a scope per vector key ('' = none): recall's vector coverage (one short range read). */
export function liveMemoriesByVectorKey(sql: SqlExecutor, agentId: string): Array<{ key: string; n: number }> {
  return sql
    .all<{ key: string | number; n: number }>(
      raw(`SELECT key, n FROM memory_counts WHERE agent_id = ? AND kind = 'live' AND n <> 0`, agentId),
    )
    .map((r) => ({ key: String(r.key), n: r.n }));
}

/** Live memories of every scope per vector key ('' = none): the embedding migration's progress. */
export function liveMemoriesByVectorKeyAll(sql: SqlExecutor): Array<{ key: string; n: number }> {
  return sql
    .all<{ key: string | number; n: number }>(
      raw(`SELECT key, sum(n) AS n FROM memory_counts WHERE kind = 'live' GROUP BY key HAVING sum(n) <> 0`),
    )
    .map((r) => ({ key: String(r.key), n: r.n }));
}
