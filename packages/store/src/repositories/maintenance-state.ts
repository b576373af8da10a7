import type { SqlExecutor } from '../internal/sql.js';
import { all, type Program, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

/** A maintenance task's saved position and its last report. */
export interface MaintenanceState {
  readonly task: string;
  readonly cursor: number;
  readonly lastRunAt: number | null;
  readonly lastReport: Readonly<Record<string, unknown>>;
}

function parseReport(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** Every task's state, by task name. */
export function listMaintenanceState(sql: SqlExecutor): MaintenanceState[] {
  return runSqliteProgram(sql, listMaintenanceStateProgram());
}

/** {@link listMaintenanceState} as a program (both dialects). */
export function* listMaintenanceStateProgram(): Program<MaintenanceState[]> {
  const rows = yield* all<{ task: string; cursor: number; last_run_at: number | null; last_report: string }>(
    portable('SELECT task, cursor, last_run_at, last_report FROM maintenance_state ORDER BY task'),
  );
  return rows.map((r) => ({
    task: r.task,
    cursor: r.cursor,
    lastRunAt: r.last_run_at,
    lastReport: parseReport(r.last_report),
  }));
}

/** One task's state, or the start position. */
export function findMaintenanceState(sql: SqlExecutor, task: string): MaintenanceState {
  return runSqliteProgram(sql, findMaintenanceStateProgram(task));
}

/** {@link findMaintenanceState} as a program (both dialects). */
export function* findMaintenanceStateProgram(task: string): Program<MaintenanceState> {
  const states = yield* listMaintenanceStateProgram();
  return states.find((s) => s.task === task) ?? { task, cursor: 0, lastRunAt: null, lastReport: {} };
}

/** Saves a task's cursor (and, when it finished a run, its report and time). */
export function saveMaintenanceState(
  sql: SqlExecutor,
  state: { task: string; cursor: number; report?: Record<string, unknown> | undefined; now: number },
): void {
  runSqliteProgram(sql, saveMaintenanceStateProgram(state));
}

/** {@link saveMaintenanceState} as a program (both dialects: the upsert is the same text). */
export function* saveMaintenanceStateProgram(state: {
  task: string;
  cursor: number;
  report?: Record<string, unknown> | undefined;
  now: number;
}): Program<void> {
  yield* run(
    portable(
      `INSERT INTO maintenance_state (task, cursor, last_run_at, last_report, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (task) DO UPDATE SET cursor = excluded.cursor, updated_at = excluded.updated_at,
         last_run_at = coalesce(excluded.last_run_at, maintenance_state.last_run_at),
         last_report = CASE WHEN excluded.last_run_at IS NULL THEN maintenance_state.last_report ELSE excluded.last_report END`,
      state.task,
      state.cursor,
      state.report ? state.now : null,
      JSON.stringify(state.report ?? {}),
      state.now,
    ),
  );
}

/** Adds `n` to an agent's lifecycle counter of the day `now` falls in. */
export function bumpLifecycleCount(
  sql: SqlExecutor,
  agentId: string,
  kind: 'duplicate_prevented' | 'conflict_merged' | 'reaped' | 'purged',
  n: number,
  now: number,
): void {
  runSqliteProgram(sql, bumpLifecycleCountProgram(agentId, kind, n, now));
}

/** {@link bumpLifecycleCount} as a program (both dialects). */
export function* bumpLifecycleCountProgram(
  agentId: string,
  kind: 'duplicate_prevented' | 'conflict_merged' | 'reaped' | 'purged',
  n: number,
  now: number,
): Program<void> {
  if (n <= 0) return;
  // Qualified: PostgreSQL finds a bare `n` ambiguous between the row and `excluded`.
  yield* run(
    portable(
      `INSERT INTO lifecycle_counts (agent_id, kind, day, n) VALUES (?, ?, ?, ?)
       ON CONFLICT (agent_id, kind, day) DO UPDATE SET n = lifecycle_counts.n + excluded.n`,
      agentId,
      kind,
      Math.floor(now / 86_400_000),
      n,
    ),
  );
}
