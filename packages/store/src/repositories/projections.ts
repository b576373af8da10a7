import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';

// The embedding map's inputs and its cached projection: one row per agent and embedder model,
// replaced whenever the vectors it was computed from change.

/**
 * What a projection of the agent's newest `limit` memory vectors of `model` depends on: how many
 * there are and the newest vector row (a new, re-embedded or forgotten memory changes one of them).
 */
export function projectionSignature(sql: SqlExecutor, agentId: string, model: string, limit: number): string {
  const row = sql.get<{ n: number; last: number | null }>(
    raw(
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
  return sql.all(
    raw(
      `SELECT e.source_id AS memoryId, e.vector FROM embeddings AS e
       JOIN memories AS m ON m.id = e.source_id AND m.agent_id = e.agent_id AND m.is_deleted = 0
       WHERE e.agent_id = ? AND e.model = ? AND e.source_type = 'memory'
       ORDER BY e.seq DESC LIMIT ?`,
      agentId,
      model,
      limit,
    ),
  );
}

/** What the map shows of each memory: its type, category and the start of its content. */
export function memoryMapLabels(
  sql: SqlExecutor,
  agentId: string,
  memoryIds: readonly string[],
  previewChars: number,
): Array<{ id: string; type: string; category: string | null; preview: string }> {
  if (memoryIds.length === 0) return [];
  return sql.all(
    raw(
      `SELECT m.id, m.type, m.category, substr(m.content, 1, ?) AS preview
       FROM json_each(?) AS w CROSS JOIN memories AS m ON m.id = w.value WHERE m.agent_id = ? AND m.is_deleted = 0`,
      previewChars,
      JSON.stringify(memoryIds),
      agentId,
    ),
  );
}

/** The cached projection of the agent for `model`, if any. */
export function findProjection(
  sql: SqlExecutor,
  agentId: string,
  model: string,
): { signature: string; resultJson: string; computedMs: number; cachedAt: number } | undefined {
  return sql.get(
    queryBuilder
      .selectFrom('embedding_projections')
      .select(['signature', 'result_json as resultJson', 'computed_ms as computedMs', 'cached_at as cachedAt'])
      .where('agent_id', '=', agentId)
      .where('model', '=', model)
      .compile(),
  );
}

/** Replaces the agent's cached projection for `model`. */
export function saveProjection(
  sql: SqlExecutor,
  row: {
    agentId: string;
    model: string;
    signature: string;
    points: number;
    resultJson: string;
    computedMs: number;
    now: number;
  },
): void {
  sql.run(
    raw(
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
