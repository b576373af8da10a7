import type { QueryTerms } from '../fts-query.js';
import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';
import type { TranscriptRole, TranscriptRow, TranscriptTurnRow } from '../schema/transcripts.js';
import { firstDepth } from './lexical-search.js';
import { rankScopedText } from './scoped-text-search.js';

/** The session row in `agentId`'s scope. */
export function findTranscript(sql: SqlExecutor, agentId: string, sessionKey: string): TranscriptRow | undefined {
  return sql.get(
    queryBuilder
      .selectFrom('session_transcripts')
      .selectAll()
      .where('agent_id', '=', agentId)
      .where('session_key', '=', sessionKey)
      .compile(),
  );
}

/** Creates the session row if missing; fills harness and project when they were unknown. */
export function upsertTranscript(
  sql: SqlExecutor,
  row: { agentId: string; sessionKey: string; harness: string | null; project: string | null; now: number },
): void {
  sql.run(
    raw(
      `INSERT INTO session_transcripts (agent_id, session_key, content, harness, project, created_at, updated_at)
       VALUES (?, ?, '', ?, ?, ?, ?)
       ON CONFLICT (agent_id, session_key) DO UPDATE SET
         harness = coalesce(session_transcripts.harness, excluded.harness),
         project = coalesce(session_transcripts.project, excluded.project),
         updated_at = excluded.updated_at`,
      row.agentId,
      row.sessionKey,
      row.harness,
      row.project,
      row.now,
      row.now,
    ),
  );
}

/** Inserts a turn unless the session already has one with this key. Returns true when inserted. */
export function insertTurn(
  sql: SqlExecutor,
  turn: {
    agentId: string;
    sessionKey: string;
    turnKey: string;
    role: TranscriptRole;
    content: string;
    at: number | null;
    now: number;
  },
): boolean {
  return (
    sql.run(
      raw(
        `INSERT OR IGNORE INTO session_transcript_turns (agent_id, session_key, turn_key, role, content, at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        turn.agentId,
        turn.sessionKey,
        turn.turnKey,
        turn.role,
        turn.content,
        turn.at,
        turn.now,
      ),
    ).changes > 0
  );
}

/** A session's turns in append order. */
export function listTurns(sql: SqlExecutor, agentId: string, sessionKey: string): TranscriptTurnRow[] {
  return sql.all(
    queryBuilder
      .selectFrom('session_transcript_turns')
      .selectAll()
      .where('agent_id', '=', agentId)
      .where('session_key', '=', sessionKey)
      .orderBy('seq')
      .compile(),
  );
}

/** Marks a session completed with its rendered content and hash. */
export function completeTranscript(
  sql: SqlExecutor,
  row: { agentId: string; sessionKey: string; content: string; contentHash: string; now: number },
): void {
  sql.run(
    raw(
      `UPDATE session_transcripts SET content = ?, content_hash = ?, completed_at = ?, updated_at = ?
       WHERE agent_id = ? AND session_key = ? AND completed_at IS NULL`,
      row.content,
      row.contentHash,
      row.now,
      row.now,
      row.agentId,
      row.sessionKey,
    ),
  );
}

export interface TranscriptSummaryRow extends TranscriptRow {
  readonly turn_count: number;
}

/** Sessions of one agent, newest activity first, optionally filtered; keyset-paginated on (updated_at, session_key). */
export function listTranscripts(
  sql: SqlExecutor,
  filter: {
    agentId: string;
    project?: string | undefined;
    completed?: boolean | undefined;
    after?: { updatedAt: number; sessionKey: string } | undefined;
    limit: number;
  },
): TranscriptSummaryRow[] {
  const completed = filter.completed === undefined ? null : filter.completed ? 1 : 0;
  return sql.all<TranscriptSummaryRow>(
    raw(
      `SELECT t.*, (SELECT count(*) FROM session_transcript_turns u WHERE u.agent_id = t.agent_id AND u.session_key = t.session_key) AS turn_count
       FROM session_transcripts t
       WHERE t.agent_id = ?
         AND (? IS NULL OR t.project = ?)
         AND (? IS NULL OR (t.completed_at IS NOT NULL) = ?)
         AND (? IS NULL OR t.updated_at < ? OR (t.updated_at = ? AND t.session_key > ?))
       ORDER BY t.updated_at DESC, t.session_key
       LIMIT ?`,
      filter.agentId,
      filter.project ?? null,
      filter.project ?? null,
      completed,
      completed,
      filter.after?.updatedAt ?? null,
      filter.after?.updatedAt ?? null,
      filter.after?.updatedAt ?? null,
      filter.after?.sessionKey ?? null,
      filter.limit,
    ),
  );
}

/** Open sessions with no activity since `cutoff` (oldest first), for completion by TTL. */
export function findIdleTranscripts(
  sql: SqlExecutor,
  cutoff: number,
  limit: number,
): Array<{ agent_id: string; session_key: string }> {
  return sql.all(
    raw(
      'SELECT agent_id, session_key FROM session_transcripts WHERE completed_at IS NULL AND updated_at < ? ORDER BY updated_at LIMIT ?',
      cutoff,
      limit,
    ),
  );
}

export interface TranscriptHit {
  readonly session_key: string;
  readonly seq: number;
  readonly role: TranscriptRole;
  readonly content: string;
  readonly at: number | null;
  readonly bm25: number;
}

const TURNS_FOR_ROWS = `
  SELECT u.session_key, u.seq, u.role, u.content, u.at, top.value ->> '$[1]' AS bm25
  FROM json_each(?) AS top
  CROSS JOIN session_transcript_turns AS u ON u.seq = top.value ->> '$[0]'
  JOIN session_transcripts t ON t.agent_id = u.agent_id AND t.session_key = u.session_key
  WHERE u.agent_id = ? AND (? = 0 OR t.completed_at IS NOT NULL)`;

/**
 * BM25 over one agent's transcript turns matching any of `terms`, from that agent's own statistics
 * (the scoped text index): other agents' turns change neither scores nor order. `completedOnly`
 * keeps to completed sessions. `bm25` is minus the score (lower is better), as FTS5's was.
 */
export function searchTranscriptTurns(
  sql: SqlExecutor,
  params: { agentId: string; terms: QueryTerms; completedOnly: boolean; limit: number },
): TranscriptHit[] {
  const completed = params.completedOnly ? 1 : 0;
  for (let depth = firstDepth(params.limit); ; depth *= 8) {
    const ranking = rankScopedText(sql, 'turn', params.agentId, params.terms.tokens, { depth });
    const pairs = JSON.stringify(ranking.rows.map((r) => [r.row, -r.score]));
    const found = sql.all<TranscriptHit>(raw(TURNS_FOR_ROWS, pairs, params.agentId, completed));
    // Enough passed (completed sessions only, when asked), or every match was ranked: done.
    if (found.length >= params.limit || ranking.complete)
      return found.sort((a, b) => a.bm25 - b.bm25 || a.seq - b.seq).slice(0, params.limit);
  }
}

/** The session key of the transcript that holds this source record in `agentId`'s scope, if any. */
export function findSessionKeyBySourceRecord(
  sql: SqlExecutor,
  agentId: string,
  sourceRecordId: string,
): string | undefined {
  return sql.get<{ session_key: string }>(
    queryBuilder
      .selectFrom('session_transcripts')
      .select('session_key')
      .where('agent_id', '=', agentId)
      .where('source_record_id', '=', sourceRecordId)
      .compile(),
  )?.session_key;
}

/** Whether `agentId`'s scope already has a session with this key. */
export function transcriptExists(sql: SqlExecutor, agentId: string, sessionKey: string): boolean {
  return (
    sql.get(
      queryBuilder
        .selectFrom('session_transcripts')
        .select('session_key')
        .where('agent_id', '=', agentId)
        .where('session_key', '=', sessionKey)
        .compile(),
    ) !== undefined
  );
}

/** Inserts a session that arrives complete (an imported record), with its source identifiers. */
export function insertCompletedTranscript(
  sql: SqlExecutor,
  row: {
    agentId: string;
    sessionKey: string;
    content: string;
    contentHash: string;
    harness: string | null;
    project: string | null;
    sourceId: string;
    sourceRecordId: string;
    sourceMetaJson: string;
    /** When the conversation happened: its created, updated and completed time. */
    at: number;
  },
): void {
  sql.run(
    queryBuilder
      .insertInto('session_transcripts')
      .values({
        agent_id: row.agentId,
        session_key: row.sessionKey,
        content: row.content,
        harness: row.harness,
        project: row.project,
        content_hash: row.contentHash,
        source_id: row.sourceId,
        source_record_id: row.sourceRecordId,
        source_meta_json: row.sourceMetaJson,
        created_at: row.at,
        updated_at: row.at,
        completed_at: row.at,
      })
      .compile(),
  );
}

/** The sessions one source (an import) brought into `agentId`'s scope. */
export function listSourceTranscripts(
  sql: SqlExecutor,
  agentId: string,
  sourceId: string,
): Array<{ session_key: string; source_record_id: string | null }> {
  return sql.all(
    queryBuilder
      .selectFrom('session_transcripts')
      .select(['session_key', 'source_record_id'])
      .where('agent_id', '=', agentId)
      .where('source_id', '=', sourceId)
      .compile(),
  );
}

/**
 * Deletes the sessions one source brought into `agentId`'s scope (their turns and search index go
 * with them by the foreign key's cascade and the FTS triggers). Returns how many sessions were deleted.
 */
export function deleteSourceTranscripts(sql: SqlExecutor, agentId: string, sourceId: string): number {
  return sql.run(
    queryBuilder
      .deleteFrom('session_transcripts')
      .where('agent_id', '=', agentId)
      .where('source_id', '=', sourceId)
      .compile(),
  ).changes;
}

/**
 * Deletes one session (its turns and search index go with it by the foreign key's cascade and the
 * FTS triggers). Returns false when it is not in `agentId`'s scope.
 */
export function deleteTranscript(sql: SqlExecutor, agentId: string, sessionKey: string): boolean {
  return (
    sql.run(
      queryBuilder
        .deleteFrom('session_transcripts')
        .where('agent_id', '=', agentId)
        .where('session_key', '=', sessionKey)
        .compile(),
    ).changes > 0
  );
}
