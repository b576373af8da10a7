import type { QueryTerms } from '../fts-query.js';
import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import { all, type Dialect, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { TranscriptRole, TranscriptRow, TranscriptTurnRow } from '../schema/transcripts.js';
import { firstDepth } from './lexical-search.js';
import { rankScopedTextProgram } from './scoped-text-search.js';
import { indexTextRowsProgram } from './text-index-writes.js';

// Every function here is a program (both dialects) with a synchronous SQLite wrapper for the callers
// that still run on an executor. The scoped text index of turns (corpus 'turn') follows SQLite's
// triggers there; on PostgreSQL the programs that insert and delete turns keep it themselves.

/** The session row in `agentId`'s scope. */
export function findTranscript(sql: SqlExecutor, agentId: string, sessionKey: string): TranscriptRow | undefined {
  return runSqliteProgram(sql, findTranscriptProgram(agentId, sessionKey));
}

/** {@link findTranscript} as a program. */
export function findTranscriptProgram(agentId: string, sessionKey: string): Program<TranscriptRow | undefined> {
  return get<TranscriptRow>(
    queryBuilder
      .selectFrom('session_transcripts')
      .selectAll()
      .where('agent_id', '=', agentId)
      .where('session_key', '=', sessionKey),
  );
}

/** Creates the session row if missing; fills harness and project when they were unknown. */
export function upsertTranscript(
  sql: SqlExecutor,
  row: { agentId: string; sessionKey: string; harness: string | null; project: string | null; now: number },
): void {
  runSqliteProgram(sql, upsertTranscriptProgram(row));
}

/** {@link upsertTranscript} as a program (the same upsert text is valid on both dialects). */
export function* upsertTranscriptProgram(row: {
  agentId: string;
  sessionKey: string;
  harness: string | null;
  project: string | null;
  now: number;
}): Program<void> {
  yield* run(
    portable(
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

/** A turn to insert into one session. */
export interface NewTurn {
  readonly turnKey: string;
  readonly role: TranscriptRole;
  readonly content: string;
  readonly at: number | null;
}

/** Inserts a turn unless the session already has one with this key. Returns true when inserted. */
export function insertTurn(
  sql: SqlExecutor,
  turn: NewTurn & { agentId: string; sessionKey: string; now: number },
): boolean {
  return (
    runSqliteProgram(sql, insertTurnsProgram('sqlite', turn.agentId, turn.sessionKey, [turn], turn.now))[0] === true
  );
}

/**
 * Inserts turns into one session, each unless the session already has one with its key; returns
 * per turn whether it was inserted. On SQLite the scoped text index follows by trigger; on
 * PostgreSQL the program indexes the inserted turns itself, in one batch.
 */
export function* insertTurnsProgram(
  dialect: Dialect,
  agentId: string,
  sessionKey: string,
  turns: readonly NewTurn[],
  now: number,
): Program<boolean[]> {
  const inserted: boolean[] = [];
  const indexed: Array<{ row: number; text: string }> = [];
  for (const t of turns) {
    const values = [agentId, sessionKey, t.turnKey, t.role, t.content, t.at, now];
    if (dialect === 'sqlite') {
      const { changes } = yield* run(
        portable(
          `INSERT OR IGNORE INTO session_transcript_turns (agent_id, session_key, turn_key, role, content, at, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          ...values,
        ),
      );
      inserted.push(changes > 0);
      continue;
    }
    // A duplicate is looked for first: `ON CONFLICT` alone would take a seq from the identity for
    // every duplicate, and turn seqs are public (SQLite's skipped insert takes none).
    const row = yield* get<{ seq: number }>(
      portable(
        `INSERT INTO session_transcript_turns (agent_id, session_key, turn_key, role, content, at, created_at)
         SELECT ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (
           SELECT 1 FROM session_transcript_turns WHERE agent_id = ? AND session_key = ? AND turn_key = ?)
         ON CONFLICT (agent_id, session_key, turn_key) DO NOTHING RETURNING seq`,
        ...values,
        agentId,
        sessionKey,
        t.turnKey,
      ),
    );
    inserted.push(row !== undefined);
    if (row) indexed.push({ row: row.seq, text: t.content });
  }
  yield* indexTextRowsProgram('turn', agentId, indexed);
  return inserted;
}

/** A session's turns in append order. */
export function listTurns(sql: SqlExecutor, agentId: string, sessionKey: string): TranscriptTurnRow[] {
  return runSqliteProgram(sql, listTurnsProgram(agentId, sessionKey));
}

/** {@link listTurns} as a program. */
export function listTurnsProgram(agentId: string, sessionKey: string): Program<TranscriptTurnRow[]> {
  return all<TranscriptTurnRow>(
    queryBuilder
      .selectFrom('session_transcript_turns')
      .selectAll()
      .where('agent_id', '=', agentId)
      .where('session_key', '=', sessionKey)
      .orderBy('seq'),
  );
}

/** Marks a session completed with its rendered content and hash. */
export function completeTranscript(
  sql: SqlExecutor,
  row: { agentId: string; sessionKey: string; content: string; contentHash: string; now: number },
): void {
  runSqliteProgram(sql, completeTranscriptProgram(row));
}

/** {@link completeTranscript} as a program. */
export function* completeTranscriptProgram(row: {
  agentId: string;
  sessionKey: string;
  content: string;
  contentHash: string;
  now: number;
}): Program<void> {
  yield* run(
    portable(
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

/** What {@link listTranscripts} filters and pages on. */
export interface TranscriptListFilter {
  readonly agentId: string;
  readonly project?: string | undefined;
  readonly completed?: boolean | undefined;
  readonly after?: { updatedAt: number; sessionKey: string } | undefined;
  readonly limit: number;
}

/** Sessions of one agent, newest activity first, optionally filtered; keyset-paginated on (updated_at, session_key). */
export function listTranscripts(sql: SqlExecutor, filter: TranscriptListFilter): TranscriptSummaryRow[] {
  return runSqliteProgram(sql, listTranscriptsProgram(filter));
}

/** {@link listTranscripts} as a program: only the filters given become conditions. */
export function listTranscriptsProgram(filter: TranscriptListFilter): Program<TranscriptSummaryRow[]> {
  let query = queryBuilder
    .selectFrom('session_transcripts as t')
    .selectAll('t')
    .select((eb) =>
      eb
        .selectFrom('session_transcript_turns as u')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('u.agent_id', '=', 't.agent_id')
        .whereRef('u.session_key', '=', 't.session_key')
        .as('turn_count'),
    )
    .where('t.agent_id', '=', filter.agentId);
  if (filter.project !== undefined) query = query.where('t.project', '=', filter.project);
  if (filter.completed !== undefined) query = query.where('t.completed_at', filter.completed ? 'is not' : 'is', null);
  const after = filter.after;
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('t.updated_at', '<', after.updatedAt),
        eb.and([eb('t.updated_at', '=', after.updatedAt), eb('t.session_key', '>', after.sessionKey)]),
      ]),
    );
  return all<TranscriptSummaryRow>(query.orderBy('t.updated_at', 'desc').orderBy('t.session_key').limit(filter.limit));
}

/** Open sessions with no activity since `cutoff` (oldest first), for completion by TTL. */
export function findIdleTranscripts(
  sql: SqlExecutor,
  cutoff: number,
  limit: number,
): Array<{ agent_id: string; session_key: string }> {
  return runSqliteProgram(sql, findIdleTranscriptsProgram(cutoff, limit));
}

/** {@link findIdleTranscripts} as a program. */
export function findIdleTranscriptsProgram(
  cutoff: number,
  limit: number,
): Program<Array<{ agent_id: string; session_key: string }>> {
  return all(
    queryBuilder
      .selectFrom('session_transcripts')
      .select(['agent_id', 'session_key'])
      .where('completed_at', 'is', null)
      .where('updated_at', '<', cutoff)
      .orderBy('updated_at')
      .limit(limit),
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
// The scores are attached in JavaScript from the ranking (the same numbers SQLite reads back from JSON).
const TURNS_FOR_ROWS_POSTGRES = `
  SELECT u.session_key, u.seq, u.role, u.content, u.at
  FROM session_transcript_turns AS u
  JOIN session_transcripts t ON t.agent_id = u.agent_id AND t.session_key = u.session_key
  WHERE u.seq = ANY($1::bigint[]) AND u.agent_id = $2 AND ($3::integer = 0 OR t.completed_at IS NOT NULL)`;

/**
 * BM25 over one agent's transcript turns matching any of `terms`, from that agent's own statistics
 * (the scoped text index): other agents' turns change neither scores nor order. `completedOnly`
 * keeps to completed sessions. `bm25` is minus the score (lower is better), as FTS5's was.
 */
export function searchTranscriptTurns(
  sql: SqlExecutor,
  params: { agentId: string; terms: QueryTerms; completedOnly: boolean; limit: number },
): TranscriptHit[] {
  return runSqliteProgram(sql, searchTranscriptTurnsProgram(params));
}

/**
 * {@link searchTranscriptTurns} as a program: the ranking is the same program on both dialects
 * (the same postings, statistics and arithmetic), so SQLite and PostgreSQL return the same turns in
 * the same order with the same scores.
 */
export function* searchTranscriptTurnsProgram(params: {
  agentId: string;
  terms: QueryTerms;
  completedOnly: boolean;
  limit: number;
}): Program<TranscriptHit[]> {
  const completed = params.completedOnly ? 1 : 0;
  for (let depth = firstDepth(params.limit); ; depth *= 8) {
    const ranking = yield* rankScopedTextProgram('turn', params.agentId, params.terms.tokens, { depth });
    const pairs = ranking.rows.map((r) => [r.row, -r.score] as const);
    const scores = new Map(pairs);
    const rows = yield* all<Omit<TranscriptHit, 'bm25'> & { bm25?: number }>(
      perDialect(
        { sql: TURNS_FOR_ROWS, parameters: [JSON.stringify(pairs), params.agentId, completed] },
        { sql: TURNS_FOR_ROWS_POSTGRES, parameters: [pairs.map((p) => p[0]), params.agentId, completed] },
      ),
    );
    const found: TranscriptHit[] = rows.map((r) => ({ ...r, bm25: r.bm25 ?? (scores.get(r.seq) as number) }));
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
  return runSqliteProgram(sql, findSessionKeyBySourceRecordProgram(agentId, sourceRecordId));
}

/** {@link findSessionKeyBySourceRecord} as a program. */
export function* findSessionKeyBySourceRecordProgram(
  agentId: string,
  sourceRecordId: string,
): Program<string | undefined> {
  return (yield* get<{ session_key: string }>(
    queryBuilder
      .selectFrom('session_transcripts')
      .select('session_key')
      .where('agent_id', '=', agentId)
      .where('source_record_id', '=', sourceRecordId),
  ))?.session_key;
}

/** Whether `agentId`'s scope already has a session with this key. */
export function transcriptExists(sql: SqlExecutor, agentId: string, sessionKey: string): boolean {
  return runSqliteProgram(sql, transcriptExistsProgram(agentId, sessionKey));
}

/** {@link transcriptExists} as a program. */
export function* transcriptExistsProgram(agentId: string, sessionKey: string): Program<boolean> {
  return (
    (yield* get(
      queryBuilder
        .selectFrom('session_transcripts')
        .select('session_key')
        .where('agent_id', '=', agentId)
        .where('session_key', '=', sessionKey),
    )) !== undefined
  );
}

/** A session that arrives complete (an imported record), with its source identifiers. */
export interface CompletedTranscript {
  readonly agentId: string;
  readonly sessionKey: string;
  readonly content: string;
  readonly contentHash: string;
  readonly harness: string | null;
  readonly project: string | null;
  readonly sourceId: string;
  readonly sourceRecordId: string;
  readonly sourceMetaJson: string;
  /** When the conversation happened: its created, updated and completed time. */
  readonly at: number;
}

/** Inserts a session that arrives complete (an imported record), with its source identifiers. */
export function insertCompletedTranscript(sql: SqlExecutor, row: CompletedTranscript): void {
  runSqliteProgram(sql, insertCompletedTranscriptProgram(row));
}

/** {@link insertCompletedTranscript} as a program. */
export function* insertCompletedTranscriptProgram(row: CompletedTranscript): Program<void> {
  yield* run(
    queryBuilder.insertInto('session_transcripts').values({
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
    }),
  );
}

/** The sessions one source (an import) brought into `agentId`'s scope. */
export function listSourceTranscripts(
  sql: SqlExecutor,
  agentId: string,
  sourceId: string,
): Array<{ session_key: string; source_record_id: string | null }> {
  return runSqliteProgram(sql, listSourceTranscriptsProgram(agentId, sourceId));
}

/** {@link listSourceTranscripts} as a program. */
export function listSourceTranscriptsProgram(
  agentId: string,
  sourceId: string,
): Program<Array<{ session_key: string; source_record_id: string | null }>> {
  return all(
    queryBuilder
      .selectFrom('session_transcripts')
      .select(['session_key', 'source_record_id'])
      .where('agent_id', '=', agentId)
      .where('source_id', '=', sourceId),
  );
}

export {
  deleteSourceTranscripts,
  deleteSourceTranscriptsProgram,
  deleteTranscript,
  deleteTranscriptProgram,
} from './transcript-deletes.js';

/**
 * The lock keys of a write that inserts or deletes this agent's turns on PostgreSQL
 * (`WriteOptions.lockKeys`): such writes share the agent's turn statistics row in the scoped text
 * index, so they take turns instead of failing serialization against each other. Correctness does
 * not depend on them (SERIALIZABLE and the store's retry do that); throughput of one agent does.
 */
export function turnScopeLockKeys(agentId: string): string[] {
  return [`turn-scope:${agentId}`];
}
