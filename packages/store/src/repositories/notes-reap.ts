import { raw, type SqlExecutor } from '../internal/sql.js';
import type { NoteRow } from '../schema/notes.js';

/**
 * Active notes of every agent not updated since `staleBefore`, oldest update first, up to `limit`
 * (a range of the partial index `notes_active_updated`: resolved and archived notes are not in it).
 */
export function staleActiveNotes(sql: SqlExecutor, staleBefore: number, limit: number): NoteRow[] {
  return sql.all(
    raw(
      "SELECT * FROM notes WHERE status = 'active' AND updated_at < ? ORDER BY updated_at, seq LIMIT ?",
      staleBefore,
      limit,
    ),
  );
}

/** How many active notes (all agents) were not updated since `staleBefore`. */
export function countStaleActiveNotes(sql: SqlExecutor, staleBefore: number): number {
  return (
    sql.get<{ n: number }>(
      raw("SELECT count(*) AS n FROM notes WHERE status = 'active' AND updated_at < ?", staleBefore),
    )?.n ?? 0
  );
}
