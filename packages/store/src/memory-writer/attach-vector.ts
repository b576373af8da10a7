import type { SqlExecutor } from '../internal/sql.js';
import type { Program } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { deleteSourceEmbeddingsExceptProgram } from '../repositories/embeddings.js';
import { findMemoryProgram, updateMemoryProgram } from '../repositories/memories.js';
import type { MemoryVector, MemoryWriteDeps, WriterTarget } from './context.js';
import { storeMemoryVector, WriteSession } from './derived.js';

/**
 * Gives a live memory the vector of its content when it was written without one (an embedder
 * outage, or a writer that never calls providers, like Dreaming), or re-embeds it after the
 * embedder changed: vectors of other models go (no query can use them). Skipped, returning false,
 * when the memory was forgotten or its content changed since `contentHash` was embedded.
 */
export function attachMemoryVector(
  sql: SqlExecutor,
  deps: MemoryWriteDeps,
  memory: { agentId: string; id: string; contentHash: string },
  embedding: MemoryVector,
  now: number,
): boolean {
  return runSqliteProgram(sql, attachMemoryVectorProgram({ dialect: 'sqlite', sql }, deps, memory, embedding, now));
}

/** {@link attachMemoryVector} as a program (both dialects; PostgreSQL keeps the canonical vector only). */
export function* attachMemoryVectorProgram(
  target: WriterTarget,
  deps: MemoryWriteDeps,
  memory: { agentId: string; id: string; contentHash: string },
  embedding: MemoryVector,
  now: number,
): Program<boolean> {
  const row = yield* findMemoryProgram(memory.agentId, memory.id);
  if (!row || row.content_hash !== memory.contentHash) return false;
  const session = new WriteSession(target, deps, now);
  yield* deleteSourceEmbeddingsExceptProgram(
    { sourceType: 'memory', sourceId: row.id },
    embedding.model,
    session.vectors,
  );
  yield* storeMemoryVector(session, { id: row.id, agentId: row.agent_id, contentHash: row.content_hash }, embedding);
  yield* updateMemoryProgram(row.agent_id, row.id, { embedding_model: embedding.model });
  return true;
}
