import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

// Sessions that came from elsewhere (an import): found by their source record, inserted complete,
// listed by source.

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
