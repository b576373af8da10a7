import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { AttentionKind } from '../schema/ontology.js';

// Dreaming attention records: what a pass should look at. At most one record is open per agent,
// kind and subject (a unique partial index); resolved ones stay as history. Each function has a
// program form (`...Program`) for either dialect; the synchronous one runs it on SQLite.

// Opening a record that is already open is a no-op (ON CONFLICT on the partial index). Detection and
// markDerivedForReview open many in a loop: one cached statement.
const OPEN_ATTENTION = `INSERT INTO dreaming_attention (id, agent_id, kind, subject_ref, priority, details, created_by, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;

/** A record to open. */
export interface NewAttention {
  id: string;
  agentId: string;
  kind: AttentionKind;
  subjectRef: string;
  priority: number;
  details: string;
  createdBy: string;
  now: number;
}

/** Opens an attention record unless one is open for the same kind and subject. Returns 1 if opened, else 0. */
export function openAttention(sql: SqlExecutor, row: NewAttention): number {
  return runSqliteProgram(sql, openAttentionProgram(row));
}

/** {@link openAttention} as a program (both dialects). */
export function* openAttentionProgram(row: NewAttention): Program<number> {
  const result = yield* run(
    portable(
      OPEN_ATTENTION,
      row.id,
      row.agentId,
      row.kind,
      row.subjectRef,
      row.priority,
      row.details,
      row.createdBy,
      row.now,
    ),
  );
  return result.changes;
}

/** The id of the open record for this kind and subject, if any. */
export function findOpenAttentionId(
  sql: SqlExecutor,
  agentId: string,
  kind: string,
  subjectRef: string,
): string | undefined {
  return runSqliteProgram(sql, findOpenAttentionIdProgram(agentId, kind, subjectRef));
}

/** {@link findOpenAttentionId} as a program (both dialects). */
export function* findOpenAttentionIdProgram(
  agentId: string,
  kind: string,
  subjectRef: string,
): Program<string | undefined> {
  const row = yield* get<{ id: string }>(
    portable(
      'SELECT id FROM dreaming_attention WHERE agent_id = ? AND kind = ? AND subject_ref = ? AND resolved_at IS NULL',
      agentId,
      kind,
      subjectRef,
    ),
  );
  return row?.id;
}

/** An attention record's scope, subject and whether it is still open. */
export interface AttentionState {
  agentId: string;
  kind: string;
  subjectRef: string;
  open: boolean;
}

/** An attention record wherever it lives, with its subject and whether it is still open. */
export function attentionState(sql: SqlExecutor, id: string): AttentionState | undefined {
  return runSqliteProgram(sql, attentionStateProgram(id));
}

/** {@link attentionState} as a program (both dialects). */
export function* attentionStateProgram(id: string): Program<AttentionState | undefined> {
  const row = yield* get<{ agentId: string; kind: string; subjectRef: string; resolvedAt: number | null }>(
    portable(
      'SELECT agent_id AS "agentId", kind, subject_ref AS "subjectRef", resolved_at AS "resolvedAt" FROM dreaming_attention WHERE id = ?',
      id,
    ),
  );
  return row
    ? { agentId: row.agentId, kind: row.kind, subjectRef: row.subjectRef, open: row.resolvedAt === null }
    : undefined;
}

/** Open attention records of one agent. */
export function countOpenAttention(sql: SqlExecutor, agentId: string): number {
  return runSqliteProgram(sql, countOpenAttentionProgram(agentId));
}

/** {@link countOpenAttention} as a program (both dialects). */
export function* countOpenAttentionProgram(agentId: string): Program<number> {
  const row = yield* get<{ n: number }>(
    portable('SELECT count(*) AS n FROM dreaming_attention WHERE agent_id = ? AND resolved_at IS NULL', agentId),
  );
  return row?.n ?? 0;
}

/** An open record as Dreaming's tools show it. */
export interface OpenAttention {
  readonly id: string;
  readonly kind: string;
  readonly subjectRef: string;
  readonly priority: number;
  readonly details: string;
}

/** The agent's open records, highest priority first (then oldest), at most `limit`. */
export function listOpenAttention(sql: SqlExecutor, agentId: string, limit: number): OpenAttention[] {
  return runSqliteProgram(sql, listOpenAttentionProgram(agentId, limit));
}

/** {@link listOpenAttention} as a program (both dialects). */
export function* listOpenAttentionProgram(agentId: string, limit: number): Program<OpenAttention[]> {
  return yield* all<OpenAttention>(
    queryBuilder
      .selectFrom('dreaming_attention')
      .select(['id', 'kind', 'subject_ref as subjectRef', 'priority', 'details'])
      .where('agent_id', '=', agentId)
      .where('resolved_at', 'is', null)
      .orderBy('priority', 'desc')
      .orderBy('created_at')
      .limit(limit),
  );
}

const RESOLVE_SUBJECT =
  "UPDATE dreaming_attention SET resolved_at = ?, resolved_by_pass_id = ?, resolution = 'resolved' WHERE agent_id = ? AND subject_ref = ? AND resolved_at IS NULL";

/** Resolves every open record of the agent about `subjectRef` (a pass acted on it). Returns how many. */
export function resolveAttentionAbout(
  sql: SqlExecutor,
  agentId: string,
  subjectRef: string,
  passId: string | null,
  now: number,
): number {
  return runSqliteProgram(sql, resolveAttentionAboutProgram(agentId, subjectRef, passId, now));
}

/** {@link resolveAttentionAbout} as a program (both dialects). */
export function* resolveAttentionAboutProgram(
  agentId: string,
  subjectRef: string,
  passId: string | null,
  now: number,
): Program<number> {
  return (yield* run(portable(RESOLVE_SUBJECT, now, passId, agentId, subjectRef))).changes;
}

/** Declines an open record (a pass decided it needs nothing). Returns 1 if it was open, else 0. */
export function declineAttention(sql: SqlExecutor, id: string, passId: string | null, now: number): number {
  return runSqliteProgram(sql, declineAttentionProgram(id, passId, now));
}

/** {@link declineAttention} as a program (both dialects). */
export function* declineAttentionProgram(id: string, passId: string | null, now: number): Program<number> {
  const result = yield* run(
    portable(
      "UPDATE dreaming_attention SET resolved_at = ?, resolved_by_pass_id = ?, resolution = 'declined' WHERE id = ? AND resolved_at IS NULL",
      now,
      passId,
      id,
    ),
  );
  return result.changes;
}

// Knowledge derived from evidence that is gone: active claims citing it, and anything the Dreaming
// seam wrote with it as provenance.
const DERIVED = `
  SELECT 'claim:' || c.id AS subject FROM entity_attributes AS c
  WHERE c.agent_id = ? AND c.status = 'active'
    AND EXISTS (SELECT 1 FROM json_each(c.evidence_json) AS e WHERE e.value ->> '$.sourceRef' IN (SELECT value FROM json_each(?)))
  UNION
  SELECT p.target_type || ':' || p.target_id FROM dreaming_provenance AS p
  WHERE p.agent_id = ? AND p.target_type IN ('entity', 'aspect', 'claim', 'link', 'memory')
    AND EXISTS (SELECT 1 FROM json_each(p.evidence_json) AS e WHERE e.value ->> '$.sourceRef' IN (SELECT value FROM json_each(?)))
  LIMIT 10000`;
const DERIVED_PG = `
  SELECT 'claim:' || c.id AS subject FROM entity_attributes AS c
  WHERE c.agent_id = $1 AND c.status = 'active'
    AND EXISTS (SELECT 1 FROM jsonb_array_elements(c.evidence_json::jsonb) AS e WHERE e ->> 'sourceRef' IN (SELECT jsonb_array_elements_text($2::jsonb)))
  UNION
  SELECT p.target_type || ':' || p.target_id FROM dreaming_provenance AS p
  WHERE p.agent_id = $1 AND p.target_type IN ('entity', 'aspect', 'claim', 'link', 'memory')
    AND EXISTS (SELECT 1 FROM jsonb_array_elements(p.evidence_json::jsonb) AS e WHERE e ->> 'sourceRef' IN (SELECT jsonb_array_elements_text($2::jsonb)))
  LIMIT 10000`;

/**
 * Opens a `review_due` attention record for every piece of knowledge that cited evidence which was
 * removed (`refs`: `transcript:<key>`, `import:<recordId>`, …), so a Dreaming pass re-checks it.
 * Returns how many were opened.
 */
export function markDerivedForReview(
  sql: SqlExecutor,
  agentId: string,
  refs: readonly string[],
  reason: string,
  now: number,
  nextId: () => string,
): number {
  return runSqliteProgram(sql, markDerivedForReviewProgram(agentId, refs, reason, now, nextId));
}

/** {@link markDerivedForReview} as a program (both dialects). */
export function* markDerivedForReviewProgram(
  agentId: string,
  refs: readonly string[],
  reason: string,
  now: number,
  nextId: () => string,
): Program<number> {
  if (refs.length === 0) return 0;
  const json = JSON.stringify(refs);
  let opened = 0;
  const subjects = yield* all<{ subject: string }>(
    perDialect(raw(DERIVED, agentId, json, agentId, json), raw(DERIVED_PG, agentId, json)),
  );
  for (const { subject } of subjects) {
    opened += yield* openAttentionProgram({
      id: nextId(),
      agentId,
      kind: 'review_due',
      subjectRef: subject,
      priority: 70,
      details: reason,
      createdBy: 'engine',
      now,
    });
  }
  return opened;
}

/** An attention record as the review reads return it. */
export interface AttentionView {
  readonly id: string;
  readonly kind: string;
  readonly subjectRef: string;
  readonly priority: number;
  readonly details: string;
  readonly createdBy: string;
  readonly createdAt: number;
  readonly resolvedAt: number | null;
  readonly resolvedByPassId: string | null;
  readonly resolution: 'resolved' | 'declined' | null;
}

/**
 * The agent's attention records, newest first, open, resolved or both, before the keyset `before`
 * (created_at, id), at most `limit`.
 */
export function listAttention(
  sql: SqlExecutor,
  agentId: string,
  state: 'open' | 'resolved' | 'all',
  before: { createdAt: number; id: string } | null,
  limit: number,
): AttentionView[] {
  return runSqliteProgram(sql, listAttentionProgram(agentId, state, before, limit));
}

/** {@link listAttention} as a program (both dialects). */
export function* listAttentionProgram(
  agentId: string,
  state: 'open' | 'resolved' | 'all',
  before: { createdAt: number; id: string } | null,
  limit: number,
): Program<AttentionView[]> {
  return yield* all<AttentionView>(
    portable(
      `SELECT id, kind, subject_ref AS "subjectRef", priority, details, created_by AS "createdBy", created_at AS "createdAt",
              resolved_at AS "resolvedAt", resolved_by_pass_id AS "resolvedByPassId", resolution
       FROM dreaming_attention
       WHERE agent_id = ? AND (CAST(? AS TEXT) = 'all' OR (CAST(? AS TEXT) = 'open') = (resolved_at IS NULL))
         AND (CAST(? AS INTEGER) IS NULL OR (created_at, id) < (CAST(? AS BIGINT), CAST(? AS TEXT)))
       ORDER BY created_at DESC, id DESC LIMIT ?`,
      agentId,
      state,
      state,
      before === null ? null : 1,
      before?.createdAt ?? null,
      before?.id ?? null,
      limit,
    ),
  );
}
