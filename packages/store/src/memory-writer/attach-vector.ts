import type { SqlExecutor } from '../internal/sql.js';
import { findMemory, updateMemory } from '../repositories/memories.js';
import type { MemoryVector, MemoryWriteDeps } from './context.js';
import { storeMemoryVector, WriteSession } from './derived.js';

/**
 * Gives a live memory the vector of its content when it was written without one (an embedder
 * outage, or a writer that never calls providers, like Dreaming). Skipped, returning false, when the
 * memory was forgotten or its content changed since `contentHash` was embedded.
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
  storeMemoryVector(
    new WriteSession(sql, deps, now),
    { id: row.id, agentId: row.agent_id, contentHash: row.content_hash },
    embedding,
  );
  updateMemory(sql, row.agent_id, row.id, { embedding_model: embedding.model });
  return true;
}
