import type { SqlExecutor } from '../internal/sql.js';
import { deleteSourceEmbeddings, upsertEmbedding } from '../repositories/embeddings.js';
import { deleteHints } from '../repositories/hints.js';
import { insertHistory } from '../repositories/history.js';
import { agentHasEntities, deleteMentionsOfMemory } from '../repositories/mentions.js';
import type { HistoryEvent, MemoryRow } from '../schema/memories.js';
import { VectorIndexWriter } from '../vector-index/index-writer.js';
import type { ContentCause, MemoryAudit, MemoryVector, MemoryWriteDeps } from './context.js';
import { linkMemoryToEntities } from './entity-mentions.js';

/** Appends the audit row for one change and returns its id (also the key of any cold copy). */
export function recordHistory(
  sql: SqlExecutor,
  deps: MemoryWriteDeps,
  change: {
    memoryId: string;
    agentId: string;
    event: HistoryEvent;
    oldContent: string | null;
    newContent: string | null;
    audit: MemoryAudit;
    metadata: Record<string, unknown>;
    now: number;
  },
): string {
  const id = deps.ids.next();
  const { audit } = change;
  insertHistory(sql, {
    id,
    memory_id: change.memoryId,
    agent_id: change.agentId,
    event: change.event,
    old_content: change.oldContent,
    new_content: change.newContent,
    changed_by: audit.actor?.id ?? change.agentId,
    actor_type: audit.actor?.type ?? 'agent',
    reason: audit.reason ?? null,
    metadata: JSON.stringify({ ...change.metadata, ...(audit.metadata ?? {}) }),
    session_id: audit.sessionId ?? null,
    request_id: audit.requestId ?? null,
    created_at: change.now,
  });
  return id;
}

/**
 * Per-transaction state of the writer: the vector index writer (which asks for indexes and
 * partitions once per transaction) and whether each agent has entities to link to.
 */
export class WriteSession {
  readonly sql: SqlExecutor;
  readonly deps: MemoryWriteDeps;
  readonly now: number;
  readonly #hasEntities = new Map<string, boolean>();
  readonly #batched: boolean;
  #vectors: VectorIndexWriter | undefined;

  /** `batched`: per-partition vector counts wait for {@link finish} (a writer of many memories). */
  constructor(sql: SqlExecutor, deps: MemoryWriteDeps, now: number, options: { batched?: boolean } = {}) {
    this.sql = sql;
    this.deps = deps;
    this.now = now;
    this.#batched = options.batched === true;
  }

  /** The vector index writer of this transaction. */
  get vectors(): VectorIndexWriter {
    this.#vectors ??= new VectorIndexWriter(this.sql, this.deps.vectorAvailable, this.now, {
      deferCounts: this.#batched,
    });
    return this.#vectors;
  }

  /** Writes what a batched session held back (vector counts); call before the transaction ends. */
  finish(): void {
    this.#vectors?.flushCounts();
  }

  shouldLink(agentId: string): boolean {
    if (!this.deps.inlineEntityLinking) return false;
    let has = this.#hasEntities.get(agentId);
    if (has === undefined) {
      has = agentHasEntities(this.sql, agentId);
      this.#hasEntities.set(agentId, has);
    }
    return has;
  }
}

/**
 * Stores the canonical vector of a memory's current content and adds it to the vector index.
 * Vectors of older content or other models were removed by {@link dropDerived} when the content changed.
 */
export function storeMemoryVector(
  session: WriteSession,
  memory: { id: string; agentId: string; contentHash: string },
  embedding: MemoryVector,
  cause?: ContentCause,
): void {
  upsertEmbedding(
    session.sql,
    {
      agentId: memory.agentId,
      sourceType: 'memory',
      sourceId: memory.id,
      contentHash: memory.contentHash,
      model: embedding.model,
      vector: embedding.vector,
      now: session.now,
    },
    session.vectors,
    // A memory created in this transaction has no vector to replace.
    { fresh: cause === 'created' },
  );
}

/**
 * Removes what was derived from a memory's content: vectors (and index rows), prospective hints and
 * entity mentions. Runs when content is replaced or stops being live. Host links stay: they mirror
 * the row's own `linked_entities`, which a forgotten row keeps for recovery.
 */
export function dropDerived(session: WriteSession, row: Pick<MemoryRow, 'id' | 'agent_id'>): void {
  const { sql } = session;
  deleteSourceEmbeddings(sql, { sourceType: 'memory', sourceId: row.id }, session.vectors);
  deleteHints(sql, row.agent_id, row.id);
  deleteMentionsOfMemory(sql, row.agent_id, row.id);
}

/**
 * Derives what live content needs: the vector when one was computed, entity mentions, and the
 * host's derived work (hints) through `onContentLive`. The caller sets `embedding_model` on the row.
 */
export function deriveLive(
  session: WriteSession,
  row: Pick<MemoryRow, 'id' | 'agent_id' | 'type' | 'content' | 'content_hash'>,
  cause: ContentCause,
  embedding: MemoryVector | undefined,
): void {
  const { sql, deps } = session;
  if (embedding)
    storeMemoryVector(session, { id: row.id, agentId: row.agent_id, contentHash: row.content_hash }, embedding, cause);
  if (session.shouldLink(row.agent_id)) {
    linkMemoryToEntities(sql, { id: row.id, agentId: row.agent_id, content: row.content, now: session.now });
  }
  deps.onContentLive?.(sql, { id: row.id, agentId: row.agent_id, type: row.type, cause });
}
