import { MemoryError } from '@memory/core';
import type { Program } from '../program/program.js';
import { deleteSourceEmbeddingsProgram, upsertEmbeddingProgram } from '../repositories/embeddings.js';
import { deleteHintsProgram } from '../repositories/hints.js';
import { insertHistoryProgram } from '../repositories/history.js';
import { agentHasEntitiesProgram, deleteMentionsOfMemoryProgram } from '../repositories/mentions.js';
import { indexTextRowsProgram, unindexTextRowsProgram } from '../repositories/text-index-writes.js';
import type { HistoryEvent, MemoryRow, NewMemoryHistoryRow } from '../schema/memories.js';
import { VectorIndexWriter } from '../vector-index/index-writer.js';
import type { ContentCause, MemoryAudit, MemoryVector, MemoryWriteDeps, WriterTarget } from './context.js';
import { linkMemoryToEntitiesProgram } from './entity-mentions.js';

/** One change for the audit trail (see {@link recordHistory}). */
export interface HistoryChange {
  memoryId: string;
  agentId: string;
  event: HistoryEvent;
  oldContent: string | null;
  newContent: string | null;
  audit: MemoryAudit;
  metadata: Record<string, unknown>;
  now: number;
}

/** The audit row of one change, with a new id (also the key of any cold copy). */
export function historyRow(deps: MemoryWriteDeps, change: HistoryChange): Omit<NewMemoryHistoryRow, 'seq'> {
  const { audit } = change;
  return {
    id: deps.ids.next(),
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
  };
}

/** Appends the audit row for one change and returns its id (also the key of any cold copy). */
export function* recordHistory(deps: MemoryWriteDeps, change: HistoryChange): Program<string> {
  const row = historyRow(deps, change);
  yield* insertHistoryProgram(row);
  return row.id;
}

/**
 * Per-transaction state of the writer: where it runs, the vector index writer (SQLite only; it asks
 * for indexes and partitions once per transaction) and whether each agent has entities to link to.
 */
export class WriteSession {
  readonly target: WriterTarget;
  readonly deps: MemoryWriteDeps;
  readonly now: number;
  readonly #hasEntities = new Map<string, boolean>();
  readonly #batched: boolean;
  #vectors: VectorIndexWriter | undefined;
  /** Memories whose new vector a batch writer stored already ({@link deriveLive} skips it). */
  readonly storedVectors = new Set<string>();

  /** `batched`: per-partition vector counts wait for {@link finish} (a writer of many memories). */
  constructor(target: WriterTarget, deps: MemoryWriteDeps, now: number, options: { batched?: boolean } = {}) {
    this.target = target;
    this.deps = deps;
    this.now = now;
    this.#batched = options.batched === true;
  }

  get dialect(): WriterTarget['dialect'] {
    return this.target.dialect;
  }

  /** The vector index writer of this transaction: SQLite only (PostgreSQL keeps canonical vectors alone). */
  get vectors(): VectorIndexWriter | undefined {
    if (this.target.dialect !== 'sqlite') return undefined;
    this.#vectors ??= new VectorIndexWriter(this.target.sql, this.deps.vectorAvailable, this.now, {
      deferCounts: this.#batched,
    });
    return this.#vectors;
  }

  /** Writes what a batched session held back (vector counts); call before the transaction ends. */
  finish(): void {
    this.#vectors?.flushCounts();
  }

  *shouldLink(agentId: string): Program<boolean> {
    if (!this.deps.inlineEntityLinking) return false;
    let has = this.#hasEntities.get(agentId);
    if (has === undefined) {
      has = yield* agentHasEntitiesProgram(agentId);
      this.#hasEntities.set(agentId, has);
    }
    return has;
  }
}

/**
 * Stores the canonical vector of a memory's current content and adds it to the vector index.
 * Vectors of older content or other models were removed by {@link dropDerived} when the content changed.
 */
export function* storeMemoryVector(
  session: WriteSession,
  memory: { id: string; agentId: string; contentHash: string },
  embedding: MemoryVector,
  cause?: ContentCause,
): Program<void> {
  yield* upsertEmbeddingProgram(
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
export function* dropDerived(session: WriteSession, row: Pick<MemoryRow, 'id' | 'agent_id'>): Program<void> {
  yield* deleteSourceEmbeddingsProgram({ sourceType: 'memory', sourceId: row.id }, session.vectors);
  yield* deleteHintsProgram(session.dialect, row.agent_id, row.id);
  yield* deleteMentionsOfMemoryProgram(row.agent_id, row.id);
}

/**
 * The memory's text index rows, where no trigger keeps them: `live` content is added, content that
 * stops being live is taken out. PostgreSQL has no such trigger; on SQLite the update trigger does
 * this except while the writer's triggers are idle (`withMemoryTextIndexDeferred`, migration 21),
 * where it would compute the terms through `text_terms` three times per update.
 */
export function* followTextIndex(
  session: WriteSession,
  row: Pick<MemoryRow, 'seq' | 'agent_id'>,
  change: { readonly remove?: string | undefined; readonly add?: string | undefined },
): Program<void> {
  const { target } = session;
  if (target.dialect === 'sqlite' && !target.sql.memoryTextIndexDeferred) return;
  if (change.remove !== undefined)
    yield* unindexTextRowsProgram('memory', row.agent_id, [{ row: row.seq, text: change.remove }]);
  if (change.add !== undefined)
    yield* indexTextRowsProgram('memory', row.agent_id, [{ row: row.seq, text: change.add }]);
}

/**
 * Derives what live content needs: the vector when one was computed, entity mentions, and the
 * host's derived work (hints) through `onContentLive`. The caller sets `embedding_model` on the row.
 */
export function* deriveLive(
  session: WriteSession,
  row: Pick<MemoryRow, 'id' | 'agent_id' | 'type' | 'content' | 'content_hash'>,
  cause: ContentCause,
  embedding: MemoryVector | undefined,
): Program<void> {
  const { deps, target } = session;
  if (embedding && !session.storedVectors.has(row.id))
    yield* storeMemoryVector(
      session,
      { id: row.id, agentId: row.agent_id, contentHash: row.content_hash },
      embedding,
      cause,
    );
  if (yield* session.shouldLink(row.agent_id)) {
    yield* linkMemoryToEntitiesProgram({ id: row.id, agentId: row.agent_id, content: row.content, now: session.now });
  }
  const live = { id: row.id, agentId: row.agent_id, type: row.type, cause };
  if (deps.onContentLiveProgram) yield* deps.onContentLiveProgram(live);
  else if (deps.onContentLive) {
    if (target.dialect !== 'sqlite')
      throw new MemoryError(
        'STORAGE_ERROR',
        'onContentLive is a SQLite executor callback; give the writer onContentLiveProgram to run on PostgreSQL',
      );
    deps.onContentLive(target.sql, live);
  }
}
