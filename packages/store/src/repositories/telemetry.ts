import { raw, type SqlExecutor } from '../internal/sql.js';
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

export function insertRecallTelemetry(sql: SqlExecutor, row: RecallTelemetryRow): void {
  sql.run(
    raw(
      `INSERT INTO recall_telemetry (agent_id, query, result_count, top_score, channels_json, vector_completeness, total_ms, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
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
  return sql
    .all<RecallTelemetryTableRow>(
      raw('SELECT * FROM recall_telemetry WHERE agent_id = ? ORDER BY seq DESC LIMIT ?', agentId, limit),
    )
    .map((r) => ({
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
  return sql.run(
    raw(
      'DELETE FROM recall_telemetry WHERE agent_id = ? AND (? IS NULL OR created_at < ?)',
      agentId,
      before ?? null,
      before ?? null,
    ),
  ).changes;
}
