import { MemoryError } from '@memory/core';
import { type Dialect, get, type Program, portable, run } from '../program/program.js';
import type { ScopeRow } from './scope-copy.js';
import { indexTextRowsProgram } from './text-index-writes.js';

// An `engine.export` transcript record written into a scope, as a program for either dialect (the
// scope copy's generic `insertScopeRowProgram` reads a table's columns from the schema; this is the
// same rule with the columns written down, and the turns' seqs read back for PostgreSQL's index). The exported columns
// are the tables' own minus what the export omits (the scope, the turn's rowid and parent key).
const SESSION_COLUMNS = new Set([
  'session_key',
  'content',
  'harness',
  'project',
  'content_hash',
  'source_id',
  'source_record_id',
  'source_meta_json',
  'created_at',
  'updated_at',
  'completed_at',
]);
const TURN_COLUMNS = new Set(['turn_key', 'role', 'content', 'at', 'created_at']);

/** The row's columns, each checked against the exported ones (`INVALID_INPUT` otherwise), plus `set`. */
function checked(table: string, allowed: ReadonlySet<string>, row: ScopeRow, set: ScopeRow): ScopeRow {
  for (const key of Object.keys(row))
    if (!allowed.has(key))
      throw new MemoryError('INVALID_INPUT', `${table} has no exported column ${key}`, { details: { table, key } });
  return { ...row, ...set };
}

/** `INSERT ... ON CONFLICT DO NOTHING` of one row (column names are checked, never input). */
function insert(table: string, values: ScopeRow, returning = '') {
  const keys = Object.keys(values);
  return portable(
    `INSERT INTO ${table} (${keys.join(', ')}) VALUES (${keys.map(() => '?').join(', ')}) ON CONFLICT DO NOTHING${returning}`,
    ...keys.map((k) => values[k]),
  );
}

/**
 * Writes an exported session and its turns into `agentId`'s scope: `duplicate` when the scope
 * already has a session with the key (nothing is written), else `imported`. Turns already there
 * (same key) are kept as they are. On PostgreSQL the inserted turns are indexed for search here
 * (SQLite's trigger does it there).
 */
export function* insertExportedTranscriptProgram(
  dialect: Dialect,
  agentId: string,
  session: ScopeRow,
  turns: readonly ScopeRow[],
): Program<'imported' | 'duplicate'> {
  const sessionKey = session['session_key'];
  if (typeof sessionKey !== 'string')
    throw new MemoryError('INVALID_INPUT', 'a transcript record needs a text session_key');
  const values = checked('session_transcripts', SESSION_COLUMNS, session, { agent_id: agentId });
  const owned = yield* get(
    portable('SELECT 1 AS found FROM session_transcripts WHERE agent_id = ? AND session_key = ?', agentId, sessionKey),
  );
  if (owned) return 'duplicate';
  yield* run(insert('session_transcripts', values));
  const indexed: Array<{ row: number; text: string }> = [];
  for (const turn of turns) {
    const turnValues = checked('session_transcript_turns', TURN_COLUMNS, turn, {
      agent_id: agentId,
      session_key: sessionKey,
    });
    // SQLite's insert trigger indexes the turn; PostgreSQL needs its seq to index it here.
    if (dialect === 'sqlite') {
      yield* run(insert('session_transcript_turns', turnValues));
      continue;
    }
    const row = yield* get<{ seq: number }>(insert('session_transcript_turns', turnValues, ' RETURNING seq'));
    if (row && typeof turnValues['content'] === 'string') indexed.push({ row: row.seq, text: turnValues['content'] });
  }
  yield* indexTextRowsProgram('turn', agentId, indexed);
  return 'imported';
}
