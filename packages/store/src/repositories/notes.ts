import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';
import type { NewNoteEventRow, NewNoteRow, NoteEventRow, NoteRow, NoteStatus } from '../schema/notes.js';
import type { LinkRef } from './links.js';

/** Stores a new note; returns the row as written (with its `seq`). */
export function insertNote(sql: SqlExecutor, row: NewNoteRow): NoteRow {
  return sql.get(queryBuilder.insertInto('notes').values(row).returningAll().compile()) as NoteRow;
}

/** A note in `agentId`'s scope, or undefined (another agent's note is answered as a missing one). */
export function findNote(sql: SqlExecutor, agentId: string, id: string): NoteRow | undefined {
  return sql.get(
    queryBuilder.selectFrom('notes').selectAll().where('id', '=', id).where('agent_id', '=', agentId).compile(),
  );
}

/** The changeable fields of a note. */
export interface NotePatch {
  readonly title?: string;
  readonly content?: string;
  readonly tags?: string;
  readonly linked_entities?: string;
  readonly status?: NoteStatus;
  readonly resolved_at?: number | null;
  readonly archived_at?: number | null;
  readonly updated_at: number;
}

/**
 * Writes `patch` to the note if it is still in `expected` status (the caller read it in the same
 * transaction; the status guard keeps a transition from applying twice). Returns the new row, or
 * undefined when nothing matched.
 */
export function updateNote(
  sql: SqlExecutor,
  agentId: string,
  id: string,
  expected: NoteStatus,
  patch: NotePatch,
): NoteRow | undefined {
  return sql.get(
    queryBuilder
      .updateTable('notes')
      .set(patch)
      .where('id', '=', id)
      .where('agent_id', '=', agentId)
      .where('status', '=', expected)
      .returningAll()
      .compile(),
  );
}

/** Replaces a note's link rows (the index of its `linked_entities`) with `refs`. */
export function replaceNoteLinks(sql: SqlExecutor, agentId: string, noteId: string, refs: readonly LinkRef[]): void {
  sql.run(queryBuilder.deleteFrom('note_links').where('note_id', '=', noteId).compile());
  for (const ref of refs) {
    sql.run(
      raw(
        'INSERT OR IGNORE INTO note_links (note_id, agent_id, ref_type, ref_id, label) VALUES (?, ?, ?, ?, ?)',
        noteId,
        agentId,
        ref.type,
        ref.refId,
        ref.label ?? null,
      ),
    );
  }
}

/** Appends one audit row. */
export function insertNoteEvent(sql: SqlExecutor, row: NewNoteEventRow): void {
  sql.run(queryBuilder.insertInto('note_events').values(row).compile());
}

/** A note's audit rows, oldest first (scoped: another agent's note has none). */
export function listNoteEvents(sql: SqlExecutor, agentId: string, noteId: string): NoteEventRow[] {
  return sql.all(
    queryBuilder
      .selectFrom('note_events')
      .selectAll()
      .where('note_id', '=', noteId)
      .where('agent_id', '=', agentId)
      .orderBy('seq')
      .compile(),
  );
}

/** What a page of notes is filtered by. */
export interface NoteListFilter {
  readonly agentId: string;
  readonly status?: NoteStatus | undefined;
  /** Only notes linked to this host reference (one range of `note_links_ref`). */
  readonly entity?: { readonly type: string; readonly refId: string } | undefined;
  /** Every tag listed must be on the note. */
  readonly tags?: readonly string[] | undefined;
  /** Notes with a lower `seq` than this (the page cursor). */
  readonly beforeSeq?: number | undefined;
  readonly limit: number;
}

const TAGS_MATCH = `(? IS NULL OR NOT EXISTS (
  SELECT 1 FROM json_each(?) AS wanted WHERE wanted.value NOT IN (SELECT value FROM json_each(n.tags))))`;

/**
 * A page of the scope's notes, newest first (by `seq`, creation order). With an entity the page
 * starts from that reference's link rows (index `note_links_ref`), so its cost follows the notes
 * linked to it, not the agent's notes; without one it is a range of `notes_agent_seq` or
 * `notes_agent_status_seq`.
 */
export function listNotePage(sql: SqlExecutor, f: NoteListFilter): NoteRow[] {
  const tags = f.tags && f.tags.length > 0 ? JSON.stringify(f.tags) : null;
  const before = f.beforeSeq ?? null;
  if (f.entity) {
    return sql.all(
      raw(
        `SELECT n.* FROM note_links AS l JOIN notes AS n ON n.id = l.note_id
         WHERE l.agent_id = ? AND l.ref_type = ? AND l.ref_id = ? AND n.agent_id = l.agent_id
           AND (? IS NULL OR n.status = ?) AND (? IS NULL OR n.seq < ?) AND ${TAGS_MATCH}
         ORDER BY n.seq DESC LIMIT ?`,
        f.agentId,
        f.entity.type,
        f.entity.refId,
        f.status ?? null,
        f.status ?? null,
        before,
        before,
        tags,
        tags,
        f.limit,
      ),
    );
  }
  // Two statements rather than `? IS NULL OR status = ?`, so each is planned on its own index.
  const statusClause = f.status === undefined ? '' : 'AND n.status = ?';
  return sql.all(
    raw(
      `SELECT n.* FROM notes AS n
       WHERE n.agent_id = ? ${statusClause} AND n.seq < ? AND ${TAGS_MATCH}
       ORDER BY n.seq DESC LIMIT ?`,
      f.agentId,
      ...(f.status === undefined ? [] : [f.status]),
      before ?? Number.MAX_SAFE_INTEGER,
      tags,
      tags,
      f.limit,
    ),
  );
}

/** Notes of the scope by `seq` (rows of a text ranking), in no particular order; other scopes' seqs are dropped. */
export function findNotesBySeq(sql: SqlExecutor, agentId: string, seqs: readonly number[]): NoteRow[] {
  if (seqs.length === 0) return [];
  return sql.all(
    raw(
      'SELECT n.* FROM notes AS n WHERE n.seq IN (SELECT value FROM json_each(?)) AND n.agent_id = ?',
      JSON.stringify(seqs),
      agentId,
    ),
  );
}

/** Notes of the scope by id, in no particular order; other scopes' ids are dropped. */
export function findNotesById(sql: SqlExecutor, agentId: string, ids: readonly string[]): NoteRow[] {
  if (ids.length === 0) return [];
  return sql.all(
    raw(
      'SELECT n.* FROM notes AS n WHERE n.id IN (SELECT value FROM json_each(?)) AND n.agent_id = ?',
      JSON.stringify(ids),
      agentId,
    ),
  );
}

/** A note linked to a host reference, and which reference. */
export interface NoteLinkHit {
  readonly noteId: string;
  readonly refType: string;
  readonly refId: string;
}

/** Notes linked to any of `refs` in the scope (one index range per reference), up to `limit` per reference. */
export function findLinkedNotes(
  sql: SqlExecutor,
  agentId: string,
  refs: ReadonlyArray<{ readonly type: string; readonly refId: string }>,
  limit: number,
): NoteLinkHit[] {
  const out: NoteLinkHit[] = [];
  for (const ref of refs) {
    const rows = sql.all<{ note_id: string }>(
      raw(
        'SELECT note_id FROM note_links WHERE agent_id = ? AND ref_type = ? AND ref_id = ? ORDER BY note_id LIMIT ?',
        agentId,
        ref.type,
        ref.refId,
        limit,
      ),
    );
    for (const r of rows) out.push({ noteId: r.note_id, refType: ref.type, refId: ref.refId });
  }
  return out;
}
