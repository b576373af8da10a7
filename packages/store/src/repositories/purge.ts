import { contentHash } from '@memory/core';
import type { SqlExecutor } from '../internal/sql.js';
import type { WriterTarget } from '../memory-writer/context.js';
import { all, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { VectorIndexWriter } from '../vector-index/index-writer.js';
import { deleteSourceEmbeddingsProgram } from './embeddings.js';
import { deleteHintsProgram } from './hints.js';
import { deleteMentionsOfMemoryProgram } from './mentions.js';
import { reviewDerivedProgram } from './purge-review.js';
import { presentTablesProgram } from './table-presence.js';
import { unindexTextRowsProgram } from './text-index-writes.js';

/** A memory whose recover window has passed: forgotten, or expired (and not pinned). */
export interface PurgeCandidate {
  readonly seq: number;
  readonly id: string;
  readonly agentId: string;
  readonly contentHash: string;
  readonly reason: 'forgotten' | 'expired';
  /** When it was forgotten or expired. */
  readonly removedAt: number | null;
}

function* countOf(query: string, ...params: unknown[]): Program<number> {
  return (yield* get<{ n: number }>(portable(query, ...params)))?.n ?? 0;
}

// Each half walks its own partial index (memories_deleted_at, memories_expiring) in time order, so
// finding a batch never scans live memories. Pinned memories never expire into a purge.
const DUE = `
  SELECT * FROM (SELECT seq, id, agent_id AS "agentId", content_hash AS "contentHash", 'forgotten' AS reason,
      deleted_at AS "removedAt"
    FROM memories WHERE is_deleted = 1 AND deleted_at <= ? ORDER BY deleted_at LIMIT ?) AS forgotten
  UNION ALL
  SELECT * FROM (SELECT seq, id, agent_id, content_hash, 'expired', expires_at
    FROM memories WHERE is_deleted = 0 AND expires_at IS NOT NULL AND expires_at <= ? AND pinned = 0
    ORDER BY expires_at LIMIT ?) AS expired`;

/**
 * Up to `limit` memories due for purge: forgotten at or before `cutoff`, or expired at or before it
 * (the cutoff is now minus the recover window).
 */
export function duePurges(sql: SqlExecutor, cutoff: number, limit: number): PurgeCandidate[] {
  return runSqliteProgram(sql, duePurgesProgram(cutoff, limit));
}

/** {@link duePurges} as a program (both dialects). */
export function* duePurgesProgram(cutoff: number, limit: number): Program<PurgeCandidate[]> {
  return (yield* all<PurgeCandidate>(portable(DUE, cutoff, limit, cutoff, limit))).slice(0, limit);
}

/** How many memories are due for purge (two index range counts). */
export function countDuePurges(sql: SqlExecutor, cutoff: number): { forgotten: number; expired: number } {
  return runSqliteProgram(sql, countDuePurgesProgram(cutoff));
}

/** {@link countDuePurges} as a program (both dialects). */
export function* countDuePurgesProgram(cutoff: number): Program<{ forgotten: number; expired: number }> {
  const forgotten = yield* countOf(
    'SELECT count(*) AS n FROM memories WHERE is_deleted = 1 AND deleted_at <= ?',
    cutoff,
  );
  const expired = yield* countOf(
    'SELECT count(*) AS n FROM memories WHERE is_deleted = 0 AND expires_at IS NOT NULL AND expires_at <= ? AND pinned = 0',
    cutoff,
  );
  return { forgotten, expired };
}

/** Rows removed or changed by one purge batch, per table. */
export interface PurgeCounts {
  memories: number;
  vectors: number;
  historyScrubbed: number;
  coldCopies: number;
  mentions: number;
  hints: number;
  links: number;
  documentLinks: number;
  evidenceRows: number;
  embeddingFailures: number;
  markedForReview: number;
  quotesScrubbed: number;
}

export function emptyPurgeCounts(): PurgeCounts {
  return {
    memories: 0,
    vectors: 0,
    historyScrubbed: 0,
    coldCopies: 0,
    mentions: 0,
    hints: 0,
    links: 0,
    documentLinks: 0,
    evidenceRows: 0,
    embeddingFailures: 0,
    markedForReview: 0,
    quotesScrubbed: 0,
  };
}

const hashOrNull = (text: string | null): string | null => (text === null ? null : contentHash(text));

/**
 * Clears the content of a memory's history rows, keeping event, time, actor and reason; the
 * metadata becomes the hashes of the content it replaced (it may have held evidence quotes). Cold
 * copies (keyed by history id) go first. Returns [history rows scrubbed, cold copies removed].
 */
function* scrubHistory(memoryId: string): Program<[number, number]> {
  const rows = yield* all<{ id: string; old_content: string | null; new_content: string | null }>(
    portable('SELECT id, old_content, new_content FROM memory_history WHERE memory_id = ?', memoryId),
  );
  let cold = 0;
  for (const row of rows) {
    cold += (yield* run(portable('DELETE FROM memories_cold WHERE id = ?', row.id))).changes;
    const metadata = JSON.stringify({
      purged: true,
      oldContentHash: hashOrNull(row.old_content),
      newContentHash: hashOrNull(row.new_content),
    });
    yield* run(
      portable(
        'UPDATE memory_history SET old_content = NULL, new_content = NULL, metadata = ? WHERE id = ?',
        metadata,
        row.id,
      ),
    );
  }
  return [rows.length, cold];
}

const TOMBSTONE = {
  sqlite: `INSERT OR REPLACE INTO memory_tombstones (memory_id, agent_id, content_hash, reason, removed_at, purged_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
  postgres: `INSERT INTO memory_tombstones (memory_id, agent_id, content_hash, reason, removed_at, purged_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (memory_id) DO UPDATE SET agent_id = excluded.agent_id, content_hash = excluded.content_hash,
         reason = excluded.reason, removed_at = excluded.removed_at, purged_at = excluded.purged_at`,
};

const EVIDENCE_TABLES = ['dreaming_evidence_offsets', 'dreaming_evidence_exclusions', 'dreaming_evidence_reviews'];
// Tables of other subjects a purge touches; on PostgreSQL each exists once its subject's form has landed.
const OPTIONAL_TABLES = [
  ...EVIDENCE_TABLES,
  'document_memories',
  'entity_attributes',
  'dreaming_attention',
  'dreaming_provenance',
];

/** Removes one memory and everything derived from it; leaves a tombstone. */
function* purgeOne(
  target: WriterTarget,
  vectors: VectorIndexWriter | undefined,
  present: ReadonlySet<string>,
  memory: PurgeCandidate,
  now: number,
  c: PurgeCounts,
): Program<void> {
  const { id, agentId } = memory;
  // On PostgreSQL the pgvector mirror's rows go with their `embeddings` rows (foreign key cascade).
  c.vectors += yield* deleteSourceEmbeddingsProgram({ sourceType: 'memory', sourceId: id }, vectors);
  c.embeddingFailures += (yield* run(portable('DELETE FROM embedding_failures WHERE memory_id = ?', id))).changes;
  const [history, cold] = yield* scrubHistory(id);
  c.historyScrubbed += history;
  c.coldCopies += cold;
  // Mentions go through the repository so entity mention counts drop with them.
  c.mentions += yield* deleteMentionsOfMemoryProgram(agentId, id);
  const ref = `memory:${id}`;
  for (const table of EVIDENCE_TABLES)
    if (present.has(table))
      c.evidenceRows += (yield* run(
        portable(`DELETE FROM ${table} WHERE agent_id = ? AND source_ref = ?`, agentId, ref),
      )).changes;
  // The rest cascades from the row (hints with their text postings, links, document links); counted
  // first. PostgreSQL has no trigger to take hint postings: the hint program does.
  if (target.dialect === 'postgres') c.hints += yield* deleteHintsProgram('postgres', agentId, id);
  else c.hints += yield* countOf('SELECT count(*) AS n FROM memory_hints WHERE memory_id = ?', id);
  c.links += yield* countOf('SELECT count(*) AS n FROM memory_links WHERE memory_id = ?', id);
  if (present.has('document_memories'))
    c.documentLinks += yield* countOf('SELECT count(*) AS n FROM document_memories WHERE memory_id = ?', id);
  // A forgotten row has no text postings left (they went when it was forgotten); an expired one
  // still has them: SQLite's delete trigger takes them, on PostgreSQL this program does. On SQLite
  // `secure_delete` zeroes the row's bytes in the file.
  if (target.dialect === 'postgres') {
    const gone = yield* all<{ content: string; is_deleted: number }>(
      portable('DELETE FROM memories WHERE seq = ? RETURNING content, is_deleted', memory.seq),
    );
    c.memories += gone.length;
    const row = gone[0];
    if (row && row.is_deleted === 0)
      yield* unindexTextRowsProgram('memory', agentId, [{ row: memory.seq, text: row.content }]);
  } else c.memories += (yield* run(portable('DELETE FROM memories WHERE seq = ?', memory.seq))).changes;
  const parameters = [id, agentId, memory.contentHash, memory.reason, memory.removedAt, now];
  yield* run(perDialect({ sql: TOMBSTONE.sqlite, parameters }, { sql: TOMBSTONE.postgres, parameters }));
}

/**
 * Purges memories inside the caller's write transaction: each row with its vectors (and vector
 * index rows), hints, mentions, host links, document links, evidence bookkeeping, cold
 * copies and embedding failures; its history keeps events without content; a tombstone records it.
 * Claims left without evidence are marked for review. `shouldStop` ends the batch early (after at
 * least one memory) so a transaction stays short whatever the machine. Returns the rows touched per
 * table and the memories purged.
 */
export function purgeMemories(
  sql: SqlExecutor,
  deps: { vectorAvailable: boolean; nextId: () => string; shouldStop?: () => boolean },
  memories: readonly PurgeCandidate[],
  now: number,
): { counts: PurgeCounts; purged: PurgeCandidate[] } {
  return runSqliteProgram(sql, purgeMemoriesProgram({ dialect: 'sqlite', sql }, deps, memories, now));
}

/**
 * {@link purgeMemories} as a program. On SQLite (`target` with its executor) the vec0 index rows go
 * through the vector index writer; on PostgreSQL the pgvector mirror follows `embeddings` by
 * cascade, and the program removes the text postings SQLite's triggers would (hints, expired rows).
 */
export function* purgeMemoriesProgram(
  target: WriterTarget,
  deps: { vectorAvailable: boolean; nextId: () => string; shouldStop?: () => boolean },
  memories: readonly PurgeCandidate[],
  now: number,
): Program<{ counts: PurgeCounts; purged: PurgeCandidate[] }> {
  const counts = emptyPurgeCounts();
  const vectors =
    target.dialect === 'sqlite' ? new VectorIndexWriter(target.sql, deps.vectorAvailable, now) : undefined;
  const present = yield* presentTablesProgram(OPTIONAL_TABLES);
  const byAgent = new Map<string, string[]>();
  const purged: PurgeCandidate[] = [];
  for (const memory of memories) {
    // At least one per call, then only while the caller's time slice lasts.
    if (purged.length > 0 && deps.shouldStop?.()) break;
    yield* purgeOne(target, vectors, present, memory, now, counts);
    purged.push(memory);
    const list = byAgent.get(memory.agentId) ?? [];
    list.push(memory.id);
    byAgent.set(memory.agentId, list);
  }
  for (const [agentId, ids] of byAgent) yield* reviewDerivedProgram(agentId, ids, now, deps.nextId, present, counts);
  return { counts, purged };
}

/** Whether a memory was purged (its tombstone), in the agent's scope. */
export function findTombstone(
  sql: SqlExecutor,
  agentId: string,
  memoryId: string,
): { contentHash: string; reason: string; purgedAt: number } | undefined {
  return runSqliteProgram(sql, findTombstoneProgram(agentId, memoryId));
}

/** {@link findTombstone} as a program (both dialects). */
export function* findTombstoneProgram(
  agentId: string,
  memoryId: string,
): Program<{ contentHash: string; reason: string; purgedAt: number } | undefined> {
  return yield* get(
    portable(
      'SELECT content_hash AS "contentHash", reason, purged_at AS "purgedAt" FROM memory_tombstones WHERE agent_id = ? AND memory_id = ?',
      agentId,
      memoryId,
    ),
  );
}
