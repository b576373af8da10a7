import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import { all, type Dialect, type Program, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { unindexTextRowsProgram } from './text-index-writes.js';

// Deleting sessions: their turns go by the foreign key's cascade on both dialects. Their postings
// in the scoped text index go by SQLite's delete trigger; on PostgreSQL the program deletes the
// turns first, returning their text, and takes it out of the index (a cascade cannot tokenize).

/** PostgreSQL: deletes the turns of sessions matching `where` and unindexes them. */
function* unindexTurnsPostgres(agentId: string, where: string, value: string): Program<void> {
  const gone = yield* all<{ seq: number; content: string }>(
    portable(
      `DELETE FROM session_transcript_turns AS u
       USING session_transcripts AS t
       WHERE t.agent_id = ? AND t.${where} = ? AND u.agent_id = t.agent_id AND u.session_key = t.session_key
       RETURNING u.seq, u.content`,
      agentId,
      value,
    ),
  );
  yield* unindexTextRowsProgram(
    'turn',
    agentId,
    gone.map((t) => ({ row: t.seq, text: t.content })),
  );
}

/**
 * Deletes the sessions one source brought into `agentId`'s scope (their turns and search index go
 * with them). Returns how many sessions were deleted.
 */
export function deleteSourceTranscripts(sql: SqlExecutor, agentId: string, sourceId: string): number {
  return runSqliteProgram(sql, deleteSourceTranscriptsProgram('sqlite', agentId, sourceId));
}

/** {@link deleteSourceTranscripts} as a program. */
export function* deleteSourceTranscriptsProgram(dialect: Dialect, agentId: string, sourceId: string): Program<number> {
  if (dialect === 'postgres') yield* unindexTurnsPostgres(agentId, 'source_id', sourceId);
  return (yield* run(
    queryBuilder.deleteFrom('session_transcripts').where('agent_id', '=', agentId).where('source_id', '=', sourceId),
  )).changes;
}

/**
 * Deletes one session (its turns and search index go with it). Returns false when it is not in
 * `agentId`'s scope.
 */
export function deleteTranscript(sql: SqlExecutor, agentId: string, sessionKey: string): boolean {
  return runSqliteProgram(sql, deleteTranscriptProgram('sqlite', agentId, sessionKey));
}

/** {@link deleteTranscript} as a program. */
export function* deleteTranscriptProgram(dialect: Dialect, agentId: string, sessionKey: string): Program<boolean> {
  if (dialect === 'postgres') yield* unindexTurnsPostgres(agentId, 'session_key', sessionKey);
  return (
    (yield* run(
      queryBuilder
        .deleteFrom('session_transcripts')
        .where('agent_id', '=', agentId)
        .where('session_key', '=', sessionKey),
    )).changes > 0
  );
}
