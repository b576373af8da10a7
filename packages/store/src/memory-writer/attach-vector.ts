import type { SqlExecutor } from '../internal/sql.js';
import { deleteSourceEmbeddingsExcept } from '../repositories/embeddings.js';
import { findMemory, updateMemory } from '../repositories/memories.js';
import type { MemoryVector, MemoryWriteDeps } from './context.js';
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
  const row = findMemory(sql, memory.agentId, memory.id);
  if (!row || row.content_hash !== memory.contentHash) return false;
  const session = new WriteSession(sql, deps, now);
  deleteSourceEmbeddingsExcept(sql, { sourceType: 'memory', sourceId: row.id }, embedding.model, session.vectors);
  storeMemoryVector(session, { id: row.id, agentId: row.agent_id, contentHash: row.content_hash }, embedding);
  updateMemory(sql, row.agent_id, row.id, { embedding_model: embedding.model });
  return true;
}
