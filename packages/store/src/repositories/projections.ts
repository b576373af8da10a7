import type { SqlExecutor } from '../internal/sql.js';
import { queryBuilder } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

// The embedding map's inputs and its cached projection: one row per agent and embedder model,
// replaced whenever the vectors it was computed from change.

/**
 * What a projection of the agent's newest `limit` memory vectors of `model` depends on: how many
 * there are and the newest vector row (a new, re-embedded or forgotten memory changes one of them).
 */
export function projectionSignature(sql: SqlExecutor, agentId: string, model: string, limit: number): string {
  return runSqliteProgram(sql, projectionSignatureProgram(agentId, model, limit));
}

/** {@link projectionSignature} as a program (both dialects). */
export function* projectionSignatureProgram(agentId: string, model: string, limit: number): Program<string> {
  const row = yield* get<{ n: number; last: number | null }>(
    portable(
      "SELECT count(*) AS n, max(seq) AS last FROM embeddings WHERE agent_id = ? AND model = ? AND source_type = 'memory'",
      agentId,
      model,
    ),
  );
  return `${row?.n ?? 0}:${row?.last ?? 0}:${limit}`;
}

/** The vectors of the agent's newest live memories for `model`, at most `limit`, newest first. */
export function newestMemoryVectors(
  sql: SqlExecutor,
  agentId: string,
  model: string,
  limit: number,
): Array<{ memoryId: string; vector: Buffer }> {
  return runSqliteProgram(sql, newestMemoryVectorsProgram(agentId, model, limit));
}

/** {@link newestMemoryVectors} as a program (both dialects; the blob is a Buffer on both). */
export function* newestMemoryVectorsProgram(
  agentId: string,
  model: string,
  limit: number,
): Program<Array<{ memoryId: string; vector: Buffer }>> {
  return yield* all<{ memoryId: string; vector: Buffer }>(
    portable(
      `SELECT e.source_id AS "memoryId", e.vector FROM embeddings AS e
       JOIN memories AS m ON m.id = e.source_id AND m.agent_id = e.agent_id AND m.is_deleted = 0
       WHERE e.agent_id = ? AND e.model = ? AND e.source_type = 'memory'
       ORDER BY e.seq DESC LIMIT ?`,
      agentId,
      model,
      limit,
    ),
  );
}

const LABELS = {
  sqlite: `SELECT m.id, m.type, m.category, substr(m.content, 1, ?) AS preview
       FROM json_each(?) AS w CROSS JOIN memories AS m ON m.id = w.value WHERE m.agent_id = ? AND m.is_deleted = 0`,
  postgres: `SELECT m.id, m.type, m.category, substr(m.content, 1, $1::integer) AS preview
       FROM unnest($2::text[]) WITH ORDINALITY AS w (id, i) JOIN memories AS m ON m.id = w.id
       WHERE m.agent_id = $3 AND m.is_deleted = 0 ORDER BY w.i`,
};

/** What the map shows of each memory: its type, category and the start of its content. */
export function memoryMapLabels(
  sql: SqlExecutor,
  agentId: string,
  memoryIds: readonly string[],
  previewChars: number,
): Array<{ id: string; type: string; category: string | null; preview: string }> {
  return runSqliteProgram(sql, memoryMapLabelsProgram(agentId, memoryIds, previewChars));
}

/** {@link memoryMapLabels} as a program (both dialects). */
export function* memoryMapLabelsProgram(
  agentId: string,
  memoryIds: readonly string[],
  previewChars: number,
): Program<Array<{ id: string; type: string; category: string | null; preview: string }>> {
  if (memoryIds.length === 0) return [];
  return yield* all(
    perDialect(
      { sql: LABELS.sqlite, parameters: [previewChars, JSON.stringify(memoryIds), agentId] },
      { sql: LABELS.postgres, parameters: [previewChars, [...memoryIds], agentId] },
    ),
  );
}

/** A cached projection. */
export interface CachedProjection {
  readonly signature: string;
  readonly resultJson: string;
  readonly computedMs: number;
  readonly cachedAt: number;
}

/** The cached projection of the agent for `model`, if any. */
export function findProjection(sql: SqlExecutor, agentId: string, model: string): CachedProjection | undefined {
  return runSqliteProgram(sql, findProjectionProgram(agentId, model));
}

/** {@link findProjection} as a program (both dialects). */
export function* findProjectionProgram(agentId: string, model: string): Program<CachedProjection | undefined> {
  return yield* get<CachedProjection>(
    queryBuilder
      .selectFrom('embedding_projections')
      .select(['signature', 'result_json as resultJson', 'computed_ms as computedMs', 'cached_at as cachedAt'])
      .where('agent_id', '=', agentId)
      .where('model', '=', model),
  );
}

/** A projection to cache. */
export interface ProjectionToSave {
  readonly agentId: string;
  readonly model: string;
  readonly signature: string;
  readonly points: number;
  readonly resultJson: string;
  readonly computedMs: number;
  readonly now: number;
}

/** Replaces the agent's cached projection for `model`. */
export function saveProjection(sql: SqlExecutor, row: ProjectionToSave): void {
  runSqliteProgram(sql, saveProjectionProgram(row));
}

/** {@link saveProjection} as a program (both dialects). */
export function* saveProjectionProgram(row: ProjectionToSave): Program<void> {
  yield* run(
    portable(
      `INSERT INTO embedding_projections (agent_id, model, signature, point_count, result_json, computed_ms, cached_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent_id, model) DO UPDATE SET signature = excluded.signature, point_count = excluded.point_count,
         result_json = excluded.result_json, computed_ms = excluded.computed_ms, cached_at = excluded.cached_at`,
      row.agentId,
      row.model,
      row.signature,
      row.points,
      row.resultJson,
      row.computedMs,
      row.now,
    ),
  );
}
