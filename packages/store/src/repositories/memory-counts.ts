import { raw, type SqlExecutor } from '../internal/sql.js';

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
  const rows = sql.all<{ kind: string; model: string; recalled: number; day: number; n: number }>(
    raw('SELECT kind, model, recalled, day, n FROM memory_counts WHERE agent_id = ? AND n <> 0', agentId),
  );
  const staleDay = Math.floor(staleBefore / DAY_MS);
  const models = new Map<string, number>();
  let neverRecalled = 0;
  let stale = 0;
  let forgotten = 0;
  let expiring = 0;
  for (const r of rows) {
    if (r.kind === 'forgotten') forgotten += r.n;
    else if (r.kind === 'expiring') expiring += r.n;
    else {
      models.set(r.model, (models.get(r.model) ?? 0) + r.n);
      if (r.recalled === 0) neverRecalled += r.n;
      if (r.day < staleDay) stale += r.n;
    }
  }
  const byModel = [...models].map(([model, count]) => ({ model: model === '' ? null : model, count }));
  return {
    byModel,
    live: byModel.reduce((sum, m) => sum + m.count, 0),
    neverRecalled,
    forgotten,
    expiring,
    stale,
  };
}

/** Live memories of a scope per vector key ('' = none): recall's vector coverage (one range read). */
export function liveMemoriesByVectorKey(sql: SqlExecutor, agentId: string): Array<{ key: string; n: number }> {
  return sql.all<{ key: string; n: number }>(
    raw(
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
