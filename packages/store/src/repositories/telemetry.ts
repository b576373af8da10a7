import type { SqlExecutor } from '../internal/sql.js';
import { all, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { RecallTelemetryTableRow } from '../schema/retrieval.js';

export interface RecallTelemetryRow {
  readonly agentId: string;
  readonly query: string;
  readonly resultCount: number;
  readonly topScore: number | null;
  readonly channels: Readonly<Record<string, number>>;
  readonly vectorCompleteness: string;
  readonly totalMs: number;
  readonly createdAt: number;
}

const INSERT_TELEMETRY = `INSERT INTO recall_telemetry (agent_id, query, result_count, top_score, channels_json, vector_completeness, total_ms, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

export function insertRecallTelemetry(sql: SqlExecutor, row: RecallTelemetryRow): void {
  runSqliteProgram(sql, insertRecallTelemetryProgram(row));
}

/** {@link insertRecallTelemetry} as a program (both dialects). */
export function* insertRecallTelemetryProgram(row: RecallTelemetryRow): Program<void> {
  yield* run(
    portable(
      INSERT_TELEMETRY,
      row.agentId,
      row.query,
      row.resultCount,
      row.topScore,
      JSON.stringify(row.channels),
      row.vectorCompleteness,
      row.totalMs,
      row.createdAt,
    ),
  );
}

/** One agent's telemetry, newest first. */
export function listRecallTelemetry(sql: SqlExecutor, agentId: string, limit: number): RecallTelemetryRow[] {
  return runSqliteProgram(sql, listRecallTelemetryProgram(agentId, limit));
}

/** {@link listRecallTelemetry} as a program (both dialects). */
export function* listRecallTelemetryProgram(agentId: string, limit: number): Program<RecallTelemetryRow[]> {
  const rows = yield* all<RecallTelemetryTableRow>(
    portable('SELECT * FROM recall_telemetry WHERE agent_id = ? ORDER BY seq DESC LIMIT ?', agentId, limit),
  );
  return rows.map((r) => ({
    agentId: r.agent_id,
    query: r.query,
    resultCount: r.result_count,
    topScore: r.top_score,
    channels: JSON.parse(r.channels_json) as Record<string, number>,
    vectorCompleteness: r.vector_completeness,
    totalMs: r.total_ms,
    createdAt: r.created_at,
  }));
}

/** Deletes an agent's telemetry (all of it, or older than `before`). */
export function purgeRecallTelemetry(sql: SqlExecutor, agentId: string, before?: number): number {
  return runSqliteProgram(sql, purgeRecallTelemetryProgram(agentId, before));
}

/** {@link purgeRecallTelemetry} as a program (both dialects). */
export function* purgeRecallTelemetryProgram(agentId: string, before?: number): Program<number> {
  const parameters = [agentId, before ?? null, before ?? null];
  return (yield* run(
    perDialect(
      { sql: 'DELETE FROM recall_telemetry WHERE agent_id = ? AND (? IS NULL OR created_at < ?)', parameters },
      {
        sql: 'DELETE FROM recall_telemetry WHERE agent_id = $1 AND ($2::bigint IS NULL OR created_at < $3)',
        parameters,
      },
    ),
  )).changes;
}
