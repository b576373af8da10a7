import type { SqlExecutor } from '../internal/sql.js';
import { all, type Program, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

/** A live memory that has no vector of the current model. */
export interface MemoryWithoutVector {
  readonly id: string;
  readonly agentId: string;
  readonly content: string;
  readonly contentHash: string;
}

// Three range reads of the partial index on (embedding_model) over live rows — no model, a model
// sorting before the current one, one after it — so finding nothing costs three index probes, not
// a scan of every live memory (`embedding_model <> ?` cannot use the index).
const MISSING = (condition: string) => `
  SELECT m.id, m.agent_id AS "agentId", m.content, m.content_hash AS "contentHash"
  FROM memories AS m
  WHERE m.is_deleted = 0 AND ${condition}
    AND NOT EXISTS (
      SELECT 1 FROM embedding_failures AS f
      WHERE f.memory_id = m.id AND f.model = ? AND f.content_hash = m.content_hash AND f.attempts >= ?)
  LIMIT ?`;

/**
 * Which memories under another vector key (an earlier embedder) count as missing: in every scope
 * (the default), in none (only memories with no vector at all), or in the listed scopes.
 */
export type OtherKeyScope = 'all' | 'none' | readonly string[];

/**
 * Up to `limit` live memories without a vector of `model` (written during an embedder outage, with
 * an unusable vector, or under another model, as `otherKeys` says), skipping those whose current
 * content already failed `maxAttempts` times with this model. Memories with no vector come first.
 */
export function memoriesWithoutVector(
  sql: SqlExecutor,
  model: string,
  limit: number,
  maxAttempts: number,
  otherKeys: OtherKeyScope = 'all',
): MemoryWithoutVector[] {
  return runSqliteProgram(sql, memoriesWithoutVectorProgram(model, limit, maxAttempts, otherKeys));
}

/** {@link memoriesWithoutVector} as a program (both dialects). */
export function* memoriesWithoutVectorProgram(
  model: string,
  limit: number,
  maxAttempts: number,
  otherKeys: OtherKeyScope = 'all',
): Program<MemoryWithoutVector[]> {
  const ranges: Array<readonly [string, readonly unknown[]]> = [['m.embedding_model IS NULL', []]];
  if (otherKeys === 'all') ranges.push(['m.embedding_model < ?', [model]], ['m.embedding_model > ?', [model]]);
  else if (otherKeys !== 'none')
    // Per scope: range reads of the scope's (agent_id, embedding_model) index entries.
    for (const agentId of otherKeys)
      ranges.push(
        ['m.agent_id = ? AND m.embedding_model < ?', [agentId, model]],
        ['m.agent_id = ? AND m.embedding_model > ?', [agentId, model]],
      );
  const out: MemoryWithoutVector[] = [];
  for (const [condition, params] of ranges) {
    if (out.length >= limit) break;
    out.push(
      ...(yield* all<MemoryWithoutVector>(
        portable(MISSING(condition), ...params, model, maxAttempts, limit - out.length),
      )),
    );
  }
  return out;
}

/** Counts a failed attempt to embed a memory's current content with `model`. */
export function recordEmbeddingFailure(
  sql: SqlExecutor,
  failure: { memoryId: string; model: string; contentHash: string; error: string },
  now: number,
): void {
  runSqliteProgram(sql, recordEmbeddingFailureProgram(failure, now));
}

/** {@link recordEmbeddingFailure} as a program (both dialects; columns qualified for PostgreSQL). */
export function* recordEmbeddingFailureProgram(
  failure: { memoryId: string; model: string; contentHash: string; error: string },
  now: number,
): Program<void> {
  yield* run(
    portable(
      `INSERT INTO embedding_failures (memory_id, model, content_hash, attempts, error, updated_at)
       VALUES (?, ?, ?, 1, ?, ?)
       ON CONFLICT (memory_id, model) DO UPDATE SET
         attempts = CASE WHEN embedding_failures.content_hash = excluded.content_hash
           THEN embedding_failures.attempts + 1 ELSE 1 END,
         content_hash = excluded.content_hash, error = excluded.error, updated_at = excluded.updated_at`,
      failure.memoryId,
      failure.model,
      failure.contentHash,
      failure.error.slice(0, 500),
      now,
    ),
  );
}

/** Forgets the failures of a memory once it has a vector. */
export function clearEmbeddingFailures(sql: SqlExecutor, memoryId: string): void {
  runSqliteProgram(sql, clearEmbeddingFailuresProgram(memoryId));
}

/** {@link clearEmbeddingFailures} as a program (both dialects). */
export function* clearEmbeddingFailuresProgram(memoryId: string): Program<void> {
  yield* run(portable('DELETE FROM embedding_failures WHERE memory_id = ?', memoryId));
}
