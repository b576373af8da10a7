import type { SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, portable } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { NoteRow } from '../schema/notes.js';

const STALE = "SELECT * FROM notes WHERE status = 'active' AND updated_at < ? ORDER BY updated_at, seq LIMIT ?";
const COUNT_STALE = "SELECT count(*) AS n FROM notes WHERE status = 'active' AND updated_at < ?";

/**
 * Active notes of every agent not updated since `staleBefore`, oldest update first, up to `limit`
 * (a range of the partial index `notes_active_updated`: resolved and archived notes are not in it).
 */
export function staleActiveNotes(sql: SqlExecutor, staleBefore: number, limit: number): NoteRow[] {
  return runSqliteProgram(sql, staleActiveNotesProgram(staleBefore, limit));
}

/** {@link staleActiveNotes} as a program (both dialects). */
export function* staleActiveNotesProgram(staleBefore: number, limit: number): Program<NoteRow[]> {
  return yield* all<NoteRow>(portable(STALE, staleBefore, limit));
}

/** How many active notes (all agents) were not updated since `staleBefore`. */
export function countStaleActiveNotes(sql: SqlExecutor, staleBefore: number): number {
  return runSqliteProgram(sql, countStaleActiveNotesProgram(staleBefore));
}

/** {@link countStaleActiveNotes} as a program (both dialects). */
export function* countStaleActiveNotesProgram(staleBefore: number): Program<number> {
  return (yield* get<{ n: number }>(portable(COUNT_STALE, staleBefore)))?.n ?? 0;
}
