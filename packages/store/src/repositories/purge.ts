import { contentHash } from '@memory/core';
import { raw, type SqlExecutor } from '../internal/sql.js';
import { VectorIndexWriter } from '../vector-index/index-writer.js';
import { deleteSourceEmbeddings } from './embeddings.js';
import { deleteMentionsOfMemory } from './mentions.js';

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

// Each half walks its own partial index (memories_deleted_at, memories_expiring) in time order, so
// finding a batch never scans live memories. Pinned memories never expire into a purge.
const DUE = `
  SELECT * FROM (SELECT seq, id, agent_id AS agentId, content_hash AS contentHash, 'forgotten' AS reason,
      deleted_at AS removedAt
    FROM memories WHERE is_deleted = 1 AND deleted_at <= ? ORDER BY deleted_at LIMIT ?)
  UNION ALL
  SELECT * FROM (SELECT seq, id, agent_id, content_hash, 'expired', expires_at
    FROM memories WHERE is_deleted = 0 AND expires_at IS NOT NULL AND expires_at <= ? AND pinned = 0
    ORDER BY expires_at LIMIT ?)`;

/**
 * Up to `limit` memories due for purge: forgotten at or before `cutoff`, or expired at or before it
 * (the cutoff is now minus the recover window).
 */
export function duePurges(sql: SqlExecutor, cutoff: number, limit: number): PurgeCandidate[] {
  return sql.all<PurgeCandidate>(raw(DUE, cutoff, limit, cutoff, limit)).slice(0, limit);
}

/** How many memories are due for purge (two index range counts). */
export function countDuePurges(sql: SqlExecutor, cutoff: number): { forgotten: number; expired: number } {
  const forgotten =
    sql.get<{ n: number }>(raw('SELECT count(*) AS n FROM memories WHERE is_deleted = 1 AND deleted_at <= ?', cutoff))
      ?.n ?? 0;
  const expired =
    sql.get<{ n: number }>(
      raw(
        'SELECT count(*) AS n FROM memories WHERE is_deleted = 0 AND expires_at IS NOT NULL AND expires_at <= ? AND pinned = 0',
        cutoff,
      ),
    )?.n ?? 0;
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
function scrubHistory(sql: SqlExecutor, memoryId: string): [number, number] {
  const rows = sql.all<{ id: string; old_content: string | null; new_content: string | null }>(
    raw('SELECT id, old_content, new_content FROM memory_history WHERE memory_id = ?', memoryId),
  );
  let cold = 0;
  for (const row of rows) {
    cold += sql.run(raw('DELETE FROM memories_cold WHERE id = ?', row.id)).changes;
    const metadata = JSON.stringify({
      purged: true,
      oldContentHash: hashOrNull(row.old_content),
      newContentHash: hashOrNull(row.new_content),
    });
    sql.run(
      raw(
        'UPDATE memory_history SET old_content = NULL, new_content = NULL, metadata = ? WHERE id = ?',
        metadata,
        row.id,
      ),
    );
  }
  return [rows.length, cold];
}

const countOf = (sql: SqlExecutor, query: string, ...params: unknown[]): number =>
  sql.get<{ n: number }>(raw(query, ...params))?.n ?? 0;

/** Removes one memory and everything derived from it; leaves a tombstone. */
function purgeOne(sql: SqlExecutor, vectors: VectorIndexWriter, memory: PurgeCandidate, now: number, c: PurgeCounts) {
  const { id, agentId } = memory;
  c.vectors += deleteSourceEmbeddings(sql, { sourceType: 'memory', sourceId: id }, vectors);
  c.embeddingFailures += sql.run(raw('DELETE FROM embedding_failures WHERE memory_id = ?', id)).changes;
  const [history, cold] = scrubHistory(sql, id);
  c.historyScrubbed += history;
  c.coldCopies += cold;
  // Mentions go through the repository so entity mention counts drop with them.
  c.mentions += deleteMentionsOfMemory(sql, agentId, id);
  const ref = `memory:${id}`;
  for (const table of ['dreaming_evidence_offsets', 'dreaming_evidence_exclusions', 'dreaming_evidence_reviews'])
    c.evidenceRows += sql.run(raw(`DELETE FROM ${table} WHERE agent_id = ? AND source_ref = ?`, agentId, ref)).changes;
  // The rest cascades from the row (hints with their text postings, links, document links); counted first.
  c.hints += countOf(sql, 'SELECT count(*) AS n FROM memory_hints WHERE memory_id = ?', id);
  c.links += countOf(sql, 'SELECT count(*) AS n FROM memory_links WHERE memory_id = ?', id);
  c.documentLinks += countOf(sql, 'SELECT count(*) AS n FROM document_memories WHERE memory_id = ?', id);
  // A forgotten row has no text postings left (they went when it was forgotten); `secure_delete`
  // zeroes the row's bytes in the file.
  c.memories += sql.run(raw('DELETE FROM memories WHERE seq = ?', memory.seq)).changes;
  sql.run(
    raw(
      `INSERT OR REPLACE INTO memory_tombstones (memory_id, agent_id, content_hash, reason, removed_at, purged_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
      id,
      agentId,
      memory.contentHash,
      memory.reason,
      memory.removedAt,
      now,
    ),
  );
}

// Active claims that cited a purged memory (as their source memory or in their evidence) and cite
// nothing else that still exists: their only support is gone, so a Dreaming pass must review them.
const UNSUPPORTED_CLAIMS = `
  SELECT c.id FROM entity_attributes AS c
  WHERE c.agent_id = ? AND c.status = 'active'
    AND (c.source_memory_id IN (SELECT value FROM json_each(?))
      OR EXISTS (SELECT 1 FROM json_each(c.evidence_json) AS e WHERE e.value ->> '$.sourceRef' IN (SELECT value FROM json_each(?))))
    AND NOT EXISTS (
      SELECT 1 FROM json_each(c.evidence_json) AS e
      WHERE e.value ->> '$.sourceRef' NOT IN (SELECT value FROM json_each(?))
        AND NOT (e.value ->> '$.sourceRef' LIKE 'memory:%'
          AND NOT EXISTS (SELECT 1 FROM memories AS m WHERE m.id = substr(e.value ->> '$.sourceRef', 8))))
  LIMIT 10000`;

// Replaces the quote of every citation of a purged memory with null, keeping the reference.
const SCRUB_QUOTES = (table: string) => `
  UPDATE ${table} SET evidence_json = (
    SELECT json_group_array(CASE WHEN e.value ->> '$.sourceRef' IN (SELECT value FROM json_each(?))
      THEN json_set(e.value, '$.quote', NULL) ELSE json(e.value) END)
    FROM json_each(${table}.evidence_json) AS e)
  WHERE agent_id = ? AND json_valid(evidence_json) AND EXISTS (
    SELECT 1 FROM json_each(${table}.evidence_json) AS e WHERE e.value ->> '$.sourceRef' IN (SELECT value FROM json_each(?)))`;

/**
 * Marks claims whose only evidence was purged for review (an open `review_due` attention record
 * each) and removes the purged memories' quotes from claim and provenance evidence.
 */
function reviewDerived(
  sql: SqlExecutor,
  agentId: string,
  ids: readonly string[],
  now: number,
  nextId: () => string,
  c: PurgeCounts,
): void {
  const idsJson = JSON.stringify(ids);
  const refsJson = JSON.stringify(ids.map((id) => `memory:${id}`));
  for (const { id } of sql.all<{ id: string }>(raw(UNSUPPORTED_CLAIMS, agentId, idsJson, refsJson, refsJson))) {
    c.markedForReview += sql.run(
      raw(
        `INSERT INTO dreaming_attention (id, agent_id, kind, subject_ref, priority, details, created_by, created_at)
         VALUES (?, ?, 'review_due', ?, 70, 'its only evidence was purged', 'engine', ?) ON CONFLICT DO NOTHING`,
        nextId(),
        agentId,
        `claim:${id}`,
        now,
      ),
    ).changes;
  }
  for (const table of ['entity_attributes', 'dreaming_provenance'])
    c.quotesScrubbed += sql.run(raw(SCRUB_QUOTES(table), refsJson, agentId, refsJson)).changes;
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
  const counts = emptyPurgeCounts();
  const vectors = new VectorIndexWriter(sql, deps.vectorAvailable, now);
  const byAgent = new Map<string, string[]>();
  const purged: PurgeCandidate[] = [];
  for (const memory of memories) {
    // At least one per call, then only while the caller's time slice lasts.
    if (purged.length > 0 && deps.shouldStop?.()) break;
    purgeOne(sql, vectors, memory, now, counts);
    purged.push(memory);
    const list = byAgent.get(memory.agentId) ?? [];
    list.push(memory.id);
    byAgent.set(memory.agentId, list);
  }
  for (const [agentId, ids] of byAgent) reviewDerived(sql, agentId, ids, now, deps.nextId, counts);
  return { counts, purged };
}

/** Whether a memory was purged (its tombstone), in the agent's scope. */
export function findTombstone(
  sql: SqlExecutor,
  agentId: string,
  memoryId: string,
): { contentHash: string; reason: string; purgedAt: number } | undefined {
  return sql.get(
    raw(
      'SELECT content_hash AS contentHash, reason, purged_at AS purgedAt FROM memory_tombstones WHERE agent_id = ? AND memory_id = ?',
      agentId,
      memoryId,
    ),
  );
}
