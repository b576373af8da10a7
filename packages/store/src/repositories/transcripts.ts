import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import { all, type Dialect, get, type Program, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { TranscriptRole, TranscriptRow, TranscriptTurnRow } from '../schema/transcripts.js';
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

// PostgreSQL inserts a session's new turns in one statement per this many turns (8 parameters
// each, far below the protocol's 65,535).
const TURNS_PER_STATEMENT = 500;
const TURN_VALUES = '(?::integer, ?::text, ?::text, ?::text, ?::text, ?::text, ?::bigint, ?::bigint)';
// A duplicate is looked for first: `ON CONFLICT` alone would take a seq from the identity for every
// duplicate, and turn seqs are public (SQLite's skipped insert takes none). Rows are numbered in
// the call's order (`ORDER BY v.n`: the anti-join alone may hash them out of order), as SQLite's
// inserts one by one are.
const insertTurnsStatement = (n: number) =>
  `INSERT INTO session_transcript_turns (agent_id, session_key, turn_key, role, content, at, created_at)
   SELECT v.agent_id, v.session_key, v.turn_key, v.role, v.content, v.at, v.created_at
   FROM (VALUES ${Array(n).fill(TURN_VALUES).join(', ')}) AS v (n, agent_id, session_key, turn_key, role, content, at, created_at)
   WHERE NOT EXISTS (SELECT 1 FROM session_transcript_turns AS u
     WHERE u.agent_id = v.agent_id AND u.session_key = v.session_key AND u.turn_key = v.turn_key)
   ORDER BY v.n
   ON CONFLICT (agent_id, session_key, turn_key) DO NOTHING
   RETURNING seq, turn_key`;

/**
 * Inserts turns into one session, each unless the session already has one with its key (or an
 * earlier turn of this call had it); returns per turn whether it was inserted. On SQLite the scoped
 * text index follows by trigger; on PostgreSQL the program inserts the turns in one statement and
 * indexes the inserted ones itself, in one batch.
 */
export function* insertTurnsProgram(
  dialect: Dialect,
  agentId: string,
  sessionKey: string,
  turns: readonly NewTurn[],
  now: number,
): Program<boolean[]> {
  if (dialect === 'sqlite') {
    const inserted: boolean[] = [];
    for (const t of turns) {
      const { changes } = yield* run(
        portable(
          `INSERT OR IGNORE INTO session_transcript_turns (agent_id, session_key, turn_key, role, content, at, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          agentId,
          sessionKey,
          t.turnKey,
          t.role,
          t.content,
          t.at,
          now,
        ),
      );
      inserted.push(changes > 0);
    }
    return inserted;
  }
  // A key repeated within the call is sent once (a second row would take a seq and then conflict).
  const keys = new Set<string>();
  const firsts: NewTurn[] = [];
  for (const t of turns) {
    if (keys.has(t.turnKey)) continue;
    keys.add(t.turnKey);
    firsts.push(t);
  }
  const seqOf = new Map<string, number>();
  for (let i = 0; i < firsts.length; i += TURNS_PER_STATEMENT) {
    const chunk = firsts.slice(i, i + TURNS_PER_STATEMENT);
    const parameters = chunk.flatMap((t, n) => [n, agentId, sessionKey, t.turnKey, t.role, t.content, t.at, now]);
    const rows = yield* all<{ seq: number; turn_key: string }>(
      portable(insertTurnsStatement(chunk.length), ...parameters),
    );
    for (const row of rows) seqOf.set(row.turn_key, row.seq);
  }
  // The first turn with a key is the one inserted; a repeat within the call is a duplicate.
  const seen = new Set<string>();
  const indexed: Array<{ row: number; text: string }> = [];
  const inserted = turns.map((t) => {
    const seq = seqOf.get(t.turnKey);
    if (seq === undefined || seen.has(t.turnKey)) return false;
    seen.add(t.turnKey);
    indexed.push({ row: seq, text: t.content });
    return true;
  });
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

export {
  deleteSourceTranscripts,
  deleteSourceTranscriptsProgram,
  deleteTranscript,
  deleteTranscriptProgram,
} from './transcript-deletes.js';
export {
  searchTranscriptTurns,
  searchTranscriptTurnsProgram,
  type TranscriptHit,
} from './transcript-search.js';
export {
  type CompletedTranscript,
  findSessionKeyBySourceRecord,
  findSessionKeyBySourceRecordProgram,
  insertCompletedTranscript,
  insertCompletedTranscriptProgram,
  listSourceTranscripts,
  listSourceTranscriptsProgram,
  transcriptExists,
  transcriptExistsProgram,
} from './transcript-sources.js';

/**
 * The lock keys of a write that inserts or deletes this agent's turns on PostgreSQL
 * (`WriteOptions.lockKeys`): such writes share the agent's turn statistics row in the scoped text
 * index, so they take turns instead of failing serialization against each other. Correctness does
 * not depend on them (SERIALIZABLE and the store's retry do that); throughput of one agent does.
 */
export function turnScopeLockKeys(agentId: string): string[] {
  return [`turn-scope:${agentId}`];
}
