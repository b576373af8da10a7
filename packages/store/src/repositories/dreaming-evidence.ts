import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

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

// PostgreSQL: the same sources; ties break on the row's key (there is no rowid), and a document's
// parts are summed the same way. One numbered parameter serves the four agent filters.
const UNDELIVERED_SOURCES_PG = `
  SELECT "sourceRef", total, delivered, at, kind, tie FROM (
    SELECT 'transcript:' || t.session_key AS "sourceRef", length(t.content) AS total, coalesce(o.delivered_chars, 0) AS delivered, t.completed_at AS at, 0 AS kind, t.session_key AS tie
    FROM session_transcripts AS t
    LEFT JOIN dreaming_evidence_offsets AS o ON o.agent_id = t.agent_id AND o.source_ref = 'transcript:' || t.session_key
    WHERE t.agent_id = $1 AND t.completed_at IS NOT NULL
    UNION ALL
    SELECT 'memory:' || m.id, length(m.content), coalesce(o.delivered_chars, 0), m.created_at, 1, lpad(m.seq::text, 20, '0')
    FROM memories AS m
    LEFT JOIN dreaming_evidence_offsets AS o ON o.agent_id = m.agent_id AND o.source_ref = 'memory:' || m.id
    WHERE m.agent_id = $1 AND m.is_deleted = 0 AND m.type <> 'document_chunk' AND coalesce(m.source_type, '') <> 'dreaming'
    UNION ALL
    SELECT 'document:' || d.id, coalesce(length(d.raw_content), (SELECT sum(length(p.text)) FROM document_content_parts AS p WHERE p.document_id = d.id))::bigint, coalesce(o.delivered_chars, 0), d.completed_at, 2, d.id
    FROM documents AS d
    LEFT JOIN dreaming_evidence_offsets AS o ON o.agent_id = d.agent_id AND o.source_ref = 'document:' || d.id
    WHERE d.agent_id = $1 AND d.status = 'done' AND (d.raw_content IS NOT NULL OR EXISTS (SELECT 1 FROM document_content_parts AS p WHERE p.document_id = d.id))) AS s
  WHERE delivered < total
    AND "sourceRef" NOT IN (SELECT source_ref FROM dreaming_evidence_exclusions WHERE agent_id = $1)`;
const UNDELIVERED_PAGE_PG = `${UNDELIVERED_SOURCES_PG} ORDER BY at, kind, tie LIMIT $2 OFFSET $3`;
const UNDELIVERED_CHARS_PG = `SELECT sum(total - delivered) AS chars FROM (${UNDELIVERED_SOURCES_PG}) AS u`;

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
  return runSqliteProgram(sql, undeliveredEvidenceProgram(agentId, limit, offset));
}

/** {@link undeliveredEvidence} as a program (both dialects). */
export function* undeliveredEvidenceProgram(
  agentId: string,
  limit: number,
  offset: number,
): Program<UndeliveredSource[]> {
  return yield* all<UndeliveredSource>(
    perDialect(
      raw(UNDELIVERED_PAGE, agentId, agentId, agentId, agentId, limit, offset),
      raw(UNDELIVERED_PAGE_PG, agentId, limit, offset),
    ),
  );
}

/** Characters of an agent's evidence not yet delivered to a pass (0 when none). */
export function undeliveredEvidenceChars(sql: SqlExecutor, agentId: string): number {
  return runSqliteProgram(sql, undeliveredEvidenceCharsProgram(agentId));
}

/** {@link undeliveredEvidenceChars} as a program (both dialects). */
export function* undeliveredEvidenceCharsProgram(agentId: string): Program<number> {
  const row = yield* get<{ chars: number | null }>(
    perDialect(raw(UNDELIVERED_CHARS, agentId, agentId, agentId, agentId), raw(UNDELIVERED_CHARS_PG, agentId)),
  );
  return row?.chars ?? 0;
}

// A document's text: its `raw_content`, or its parts in order for a large one (migration 8).
const DOCUMENT_TEXT =
  "coalesce(raw_content, (SELECT group_concat(p.text, '' ORDER BY p.part) FROM document_content_parts AS p WHERE p.document_id = documents.id))";

const DOCUMENT_TEXT_PG =
  "coalesce(raw_content, (SELECT string_agg(p.text, '' ORDER BY p.part) FROM document_content_parts AS p WHERE p.document_id = documents.id))";

const RENDERING_PG: Readonly<Record<string, string>> = {
  transcript: 'SELECT content AS text FROM session_transcripts WHERE agent_id = $1 AND session_key = $2',
  memory: 'SELECT content AS text FROM memories WHERE agent_id = $1 AND id = $2',
  document: `SELECT ${DOCUMENT_TEXT_PG} AS text FROM documents WHERE agent_id = $1 AND id = $2`,
};

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
  return runSqliteProgram(sql, evidenceRenderingProgram(agentId, kind, id));
}

/** {@link evidenceRendering} as a program (both dialects). */
export function* evidenceRenderingProgram(agentId: string, kind: string, id: string): Program<string | undefined> {
  const query = RENDERING[kind];
  const pg = RENDERING_PG[kind];
  if (!query || !pg) return undefined;
  const row = yield* get<{ text: string | null }>(perDialect(raw(query, agentId, id), raw(pg, agentId, id)));
  return row?.text ?? undefined;
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

// PostgreSQL: readiness as 0/1 (not boolean), so rows read the same on both dialects.
const LOOKUPS_PG: Readonly<Record<EvidenceSourceKind, string>> = {
  memory:
    'SELECT agent_id, content AS text, CASE WHEN is_deleted = 0 THEN 1 ELSE 0 END AS ready FROM memories WHERE id = $1',
  transcript:
    'SELECT agent_id, content AS text, CASE WHEN completed_at IS NOT NULL THEN 1 ELSE 0 END AS ready FROM session_transcripts WHERE session_key = $1 ORDER BY (agent_id = $2) DESC LIMIT 1',
  document: `SELECT agent_id, ${DOCUMENT_TEXT_PG} AS text, CASE WHEN status = 'done' THEN 1 ELSE 0 END AS ready FROM documents WHERE id = $1`,
  import:
    'SELECT agent_id, content AS text, CASE WHEN completed_at IS NOT NULL THEN 1 ELSE 0 END AS ready FROM session_transcripts WHERE source_record_id = $1 ORDER BY (agent_id = $2) DESC LIMIT 1',
};

/** The source a citation names (in any scope; the caller compares `agent_id`), or undefined. */
export function findEvidenceSource(
  sql: SqlExecutor,
  agentId: string,
  kind: EvidenceSourceKind,
  id: string,
): EvidenceSourceRow | undefined {
  return runSqliteProgram(sql, findEvidenceSourceProgram(agentId, kind, id));
}

/** {@link findEvidenceSource} as a program (both dialects). */
export function* findEvidenceSourceProgram(
  agentId: string,
  kind: EvidenceSourceKind,
  id: string,
): Program<EvidenceSourceRow | undefined> {
  const params = kind === 'transcript' || kind === 'import' ? [id, agentId] : [id];
  return yield* get<EvidenceSourceRow>(perDialect(raw(LOOKUPS[kind], ...params), raw(LOOKUPS_PG[kind], ...params)));
}

// Offsets only move forward: a later, shorter delivery never rewinds a source.
const UPSERT_OFFSET = `INSERT INTO dreaming_evidence_offsets (agent_id, source_ref, delivered_chars, total_chars, updated_at) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (agent_id, source_ref) DO UPDATE SET delivered_chars = max(delivered_chars, excluded.delivered_chars), total_chars = excluded.total_chars, updated_at = excluded.updated_at`;

const UPSERT_OFFSET_PG = `INSERT INTO dreaming_evidence_offsets (agent_id, source_ref, delivered_chars, total_chars, updated_at) VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (agent_id, source_ref) DO UPDATE SET delivered_chars = greatest(dreaming_evidence_offsets.delivered_chars, excluded.delivered_chars), total_chars = excluded.total_chars, updated_at = excluded.updated_at`;

/** Records how far a source was delivered (never moving its offset back). */
export function upsertDeliveredOffset(
  sql: SqlExecutor,
  row: { agentId: string; sourceRef: string; deliveredChars: number; totalChars: number; now: number },
): void {
  runSqliteProgram(sql, upsertDeliveredOffsetProgram(row));
}

/** {@link upsertDeliveredOffset} as a program (both dialects). */
export function* upsertDeliveredOffsetProgram(row: {
  agentId: string;
  sourceRef: string;
  deliveredChars: number;
  totalChars: number;
  now: number;
}): Program<void> {
  const params = [row.agentId, row.sourceRef, row.deliveredChars, row.totalChars, row.now];
  yield* run(perDialect(raw(UPSERT_OFFSET, ...params), raw(UPSERT_OFFSET_PG, ...params)));
}

/** Stops delivering a source to the agent's passes (replacing an earlier exclusion of it). */
export function excludeEvidenceSource(
  sql: SqlExecutor,
  row: { agentId: string; sourceRef: string; reason: string; passId: string | null; now: number },
): void {
  runSqliteProgram(sql, excludeEvidenceSourceProgram(row));
}

/** {@link excludeEvidenceSource} as a program (both dialects). */
export function* excludeEvidenceSourceProgram(row: {
  agentId: string;
  sourceRef: string;
  reason: string;
  passId: string | null;
  now: number;
}): Program<void> {
  const params = [row.agentId, row.sourceRef, row.reason, row.passId, row.now];
  yield* run(
    perDialect(
      raw(
        'INSERT OR REPLACE INTO dreaming_evidence_exclusions (agent_id, source_ref, reason, pass_id, created_at) VALUES (?, ?, ?, ?, ?)',
        ...params,
      ),
      raw(
        `INSERT INTO dreaming_evidence_exclusions (agent_id, source_ref, reason, pass_id, created_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (agent_id, source_ref) DO UPDATE SET reason = excluded.reason, pass_id = excluded.pass_id, created_at = excluded.created_at`,
        ...params,
      ),
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
  runSqliteProgram(sql, insertEvidenceReviewProgram(row));
}

/** {@link insertEvidenceReview} as a program (both dialects). */
export function* insertEvidenceReviewProgram(row: {
  agentId: string;
  sourceRef: string;
  passId: string | null;
  verdict: string;
  notes: string | null;
  now: number;
}): Program<void> {
  yield* run(
    queryBuilder.insertInto('dreaming_evidence_reviews').values({
      agent_id: row.agentId,
      source_ref: row.sourceRef,
      pass_id: row.passId,
      verdict: row.verdict,
      notes: row.notes,
      created_at: row.now,
    }),
  );
}
