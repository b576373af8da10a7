import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';

// What Dreaming reads as evidence and what it records about it: undelivered sources and their
// delivered offsets, a source's rendering, citation lookups, exclusions and reviews.

// Undelivered evidence of one agent, oldest first: completed transcripts (and imports), then host
// memories (not chunks, not Dreaming's own), then finished documents. Excluded sources are skipped.
const UNDELIVERED_SOURCES = `
  SELECT sourceRef, total, delivered, at, kind, tie FROM (
    SELECT 'transcript:' || t.session_key AS sourceRef, length(t.content) AS total, coalesce(o.delivered_chars, 0) AS delivered, t.completed_at AS at, 0 AS kind, t.rowid AS tie
    FROM session_transcripts AS t
    LEFT JOIN dreaming_evidence_offsets AS o ON o.agent_id = t.agent_id AND o.source_ref = 'transcript:' || t.session_key
    WHERE t.agent_id = ? AND t.completed_at IS NOT NULL
    UNION ALL
    SELECT 'memory:' || m.id, length(m.content), coalesce(o.delivered_chars, 0), m.created_at, 1, m.seq
    FROM memories AS m
    LEFT JOIN dreaming_evidence_offsets AS o ON o.agent_id = m.agent_id AND o.source_ref = 'memory:' || m.id
    WHERE m.agent_id = ? AND m.is_deleted = 0 AND m.type <> 'document_chunk' AND coalesce(m.source_type, '') <> 'dreaming'
    UNION ALL
    SELECT 'document:' || d.id, coalesce(length(d.raw_content), (SELECT sum(length(p.text)) FROM document_content_parts AS p WHERE p.document_id = d.id)), coalesce(o.delivered_chars, 0), d.completed_at, 2, d.rowid
    FROM documents AS d
    LEFT JOIN dreaming_evidence_offsets AS o ON o.agent_id = d.agent_id AND o.source_ref = 'document:' || d.id
    WHERE d.agent_id = ? AND d.status = 'done' AND (d.raw_content IS NOT NULL OR EXISTS (SELECT 1 FROM document_content_parts AS p WHERE p.document_id = d.id)))
  WHERE delivered < total
    AND sourceRef NOT IN (SELECT source_ref FROM dreaming_evidence_exclusions WHERE agent_id = ?)`;
const UNDELIVERED_PAGE = `${UNDELIVERED_SOURCES} ORDER BY at, kind, tie LIMIT ? OFFSET ?`;
const UNDELIVERED_CHARS = `SELECT sum(total - delivered) AS chars FROM (${UNDELIVERED_SOURCES})`;

/** A source with evidence not yet delivered: its rendering's length and how much was delivered. */
export interface UndeliveredSource {
  readonly sourceRef: string;
  readonly total: number;
  readonly delivered: number;
}

/** One page of an agent's undelivered evidence sources, oldest first (see UNDELIVERED_SOURCES). */
export function undeliveredEvidence(
  sql: SqlExecutor,
  agentId: string,
  limit: number,
  offset: number,
): UndeliveredSource[] {
  return sql.all<UndeliveredSource>(raw(UNDELIVERED_PAGE, agentId, agentId, agentId, agentId, limit, offset));
}

/** Characters of an agent's evidence not yet delivered to a pass (0 when none). */
export function undeliveredEvidenceChars(sql: SqlExecutor, agentId: string): number {
  return sql.get<{ chars: number | null }>(raw(UNDELIVERED_CHARS, agentId, agentId, agentId, agentId))?.chars ?? 0;
}

// A document's text: its `raw_content`, or its parts in order for a large one (migration 8).
const DOCUMENT_TEXT =
  "coalesce(raw_content, (SELECT group_concat(p.text, '' ORDER BY p.part) FROM document_content_parts AS p WHERE p.document_id = documents.id))";

const RENDERING: Readonly<Record<string, string>> = {
  transcript: 'SELECT content AS text FROM session_transcripts WHERE agent_id = ? AND session_key = ?',
  memory: 'SELECT content AS text FROM memories WHERE agent_id = ? AND id = ?',
  document: `SELECT ${DOCUMENT_TEXT} AS text FROM documents WHERE agent_id = ? AND id = ?`,
};

/**
 * The text Dreaming reads for a source of `agentId` (`kind` is `transcript`, `memory` or
 * `document`; the id is a session key or row id); undefined when there is none or the kind is not
 * delivered in windows.
 */
export function evidenceRendering(sql: SqlExecutor, agentId: string, kind: string, id: string): string | undefined {
  const query = RENDERING[kind];
  return query ? (sql.get<{ text: string | null }>(raw(query, agentId, id))?.text ?? undefined) : undefined;
}

/** A citable source wherever it lives: its scope, its rendered text, and whether it can be cited yet. */
export interface EvidenceSourceRow {
  readonly agent_id: string;
  readonly text: string | null;
  readonly ready: number;
}

export type EvidenceSourceKind = 'transcript' | 'memory' | 'document' | 'import';

// One statement per kind: the row wherever it lives (to tell "another scope" from "missing"), its
// rendered text, and whether it is ready to be cited. Transcripts and imports prefer the agent's own
// row when several agents share a session key.
const LOOKUPS: Readonly<Record<EvidenceSourceKind, string>> = {
  memory: 'SELECT agent_id, content AS text, (is_deleted = 0) AS ready FROM memories WHERE id = ?',
  // A transcript is evidence once completed: its rendered content is what Dreaming reads.
  transcript:
    'SELECT agent_id, content AS text, (completed_at IS NOT NULL) AS ready FROM session_transcripts WHERE session_key = ? ORDER BY (agent_id = ?) DESC LIMIT 1',
  document: `SELECT agent_id, ${DOCUMENT_TEXT} AS text, (status = 'done') AS ready FROM documents WHERE id = ?`,
  // An imported conversation, by its record id in the export.
  import:
    'SELECT agent_id, content AS text, (completed_at IS NOT NULL) AS ready FROM session_transcripts WHERE source_record_id = ? ORDER BY (agent_id = ?) DESC LIMIT 1',
};

/** The source a citation names (in any scope; the caller compares `agent_id`), or undefined. */
export function findEvidenceSource(
  sql: SqlExecutor,
  agentId: string,
  kind: EvidenceSourceKind,
  id: string,
): EvidenceSourceRow | undefined {
  const params = kind === 'transcript' || kind === 'import' ? [id, agentId] : [id];
  return sql.get<EvidenceSourceRow>(raw(LOOKUPS[kind], ...params));
}

// Offsets only move forward: a later, shorter delivery never rewinds a source.
const UPSERT_OFFSET = `INSERT INTO dreaming_evidence_offsets (agent_id, source_ref, delivered_chars, total_chars, updated_at) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (agent_id, source_ref) DO UPDATE SET delivered_chars = max(delivered_chars, excluded.delivered_chars), total_chars = excluded.total_chars, updated_at = excluded.updated_at`;

/** Records how far a source was delivered (never moving its offset back). */
export function upsertDeliveredOffset(
  sql: SqlExecutor,
  row: { agentId: string; sourceRef: string; deliveredChars: number; totalChars: number; now: number },
): void {
  sql.run(raw(UPSERT_OFFSET, row.agentId, row.sourceRef, row.deliveredChars, row.totalChars, row.now));
}

/** Stops delivering a source to the agent's passes (replacing an earlier exclusion of it). */
export function excludeEvidenceSource(
  sql: SqlExecutor,
  row: { agentId: string; sourceRef: string; reason: string; passId: string | null; now: number },
): void {
  sql.run(
    raw(
      'INSERT OR REPLACE INTO dreaming_evidence_exclusions (agent_id, source_ref, reason, pass_id, created_at) VALUES (?, ?, ?, ?, ?)',
      row.agentId,
      row.sourceRef,
      row.reason,
      row.passId,
      row.now,
    ),
  );
}

/** Records what a pass concluded about a source (append-only). */
export function insertEvidenceReview(
  sql: SqlExecutor,
  row: {
    agentId: string;
    sourceRef: string;
    passId: string | null;
    verdict: string;
    notes: string | null;
    now: number;
  },
): void {
  sql.run(
    queryBuilder
      .insertInto('dreaming_evidence_reviews')
      .values({
        agent_id: row.agentId,
        source_ref: row.sourceRef,
        pass_id: row.passId,
        verdict: row.verdict,
        notes: row.notes,
        created_at: row.now,
      })
      .compile(),
  );
}
