import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';
import { all, type Dialect, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { NewNoteEventRow, NewNoteRow, NoteEventRow, NoteRow, NoteStatus } from '../schema/notes.js';
import type { LinkRef } from './links.js';
import { indexTextRowsProgram, unindexTextRowsProgram } from './text-index-writes.js';

// On SQLite, triggers keep the notes' text index (migration 15); on PostgreSQL the tokenizer is
// JavaScript, so the write programs below keep it themselves when told the dialect is 'postgres'.

/** The text a note is indexed by: what SQLite's triggers index (`title || char(10) || content`). */
const indexedText = (row: Pick<NoteRow, 'title' | 'content'>): string => `${row.title}\n${row.content}`;

/** Stores a new note; returns the row as written (with its `seq`). */
export function insertNote(sql: SqlExecutor, row: NewNoteRow): NoteRow {
  return runSqliteProgram(sql, insertNoteProgram('sqlite', row));
}

/** {@link insertNote} as a program (both dialects; on PostgreSQL it indexes the note's text itself). */
export function* insertNoteProgram(dialect: Dialect, row: NewNoteRow): Program<NoteRow> {
  const note = (yield* get<NoteRow>(queryBuilder.insertInto('notes').values(row).returningAll())) as NoteRow;
  yield* indexInsertedNoteProgram(dialect, note);
  return note;
}

/**
 * Indexes a note just inserted, where no trigger does (PostgreSQL); on SQLite `notes_terms_ai`
 * (migration 15) has already done it, so nothing happens there.
 */
export function* indexInsertedNoteProgram(
  dialect: Dialect,
  note: Pick<NoteRow, 'agent_id' | 'seq' | 'title' | 'content'>,
): Program<void> {
  if (dialect === 'postgres')
    yield* indexTextRowsProgram('note', note.agent_id, [{ row: note.seq, text: indexedText(note) }]);
}

/** A note in `agentId`'s scope, or undefined (another agent's note is answered as a missing one). */
export function findNote(sql: SqlExecutor, agentId: string, id: string): NoteRow | undefined {
  return runSqliteProgram(sql, findNoteProgram(agentId, id));
}

/** {@link findNote} as a program (both dialects). */
export function* findNoteProgram(agentId: string, id: string): Program<NoteRow | undefined> {
  return yield* get<NoteRow>(
    queryBuilder.selectFrom('notes').selectAll().where('id', '=', id).where('agent_id', '=', agentId),
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
  return runSqliteProgram(sql, updateNoteProgram('sqlite', agentId, id, expected, patch));
}

/** {@link updateNote} as a program (both dialects; on PostgreSQL it moves the note's text index rows itself). */
export function* updateNoteProgram(
  dialect: Dialect,
  agentId: string,
  id: string,
  expected: NoteStatus,
  patch: NotePatch,
): Program<NoteRow | undefined> {
  const textMayChange = dialect === 'postgres' && (patch.title !== undefined || patch.content !== undefined);
  const before = textMayChange ? yield* findNoteProgram(agentId, id) : undefined;
  const note = yield* get<NoteRow>(
    queryBuilder
      .updateTable('notes')
      .set(patch)
      .where('id', '=', id)
      .where('agent_id', '=', agentId)
      .where('status', '=', expected)
      .returningAll(),
  );
  if (note && before && (before.title !== note.title || before.content !== note.content)) {
    yield* unindexTextRowsProgram('note', agentId, [{ row: before.seq, text: indexedText(before) }]);
    yield* indexTextRowsProgram('note', agentId, [{ row: note.seq, text: indexedText(note) }]);
  }
  return note;
}

const INSERT_LINK =
  'INSERT OR IGNORE INTO note_links (note_id, agent_id, ref_type, ref_id, label) VALUES (?, ?, ?, ?, ?)';
const INSERT_LINK_PG =
  'INSERT INTO note_links (note_id, agent_id, ref_type, ref_id, label) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING';

/** Replaces a note's link rows (the index of its `linked_entities`) with `refs`. */
export function replaceNoteLinks(sql: SqlExecutor, agentId: string, noteId: string, refs: readonly LinkRef[]): void {
  runSqliteProgram(sql, replaceNoteLinksProgram(agentId, noteId, refs));
}

/** {@link replaceNoteLinks} as a program (both dialects). */
export function* replaceNoteLinksProgram(agentId: string, noteId: string, refs: readonly LinkRef[]): Program<void> {
  yield* run(queryBuilder.deleteFrom('note_links').where('note_id', '=', noteId));
  for (const ref of refs) {
    const parameters = [noteId, agentId, ref.type, ref.refId, ref.label ?? null];
    yield* run(perDialect({ sql: INSERT_LINK, parameters }, { sql: INSERT_LINK_PG, parameters }));
  }
}

/** Appends one audit row. */
export function insertNoteEvent(sql: SqlExecutor, row: NewNoteEventRow): void {
  runSqliteProgram(sql, insertNoteEventProgram(row));
}

/** {@link insertNoteEvent} as a program (both dialects). */
export function* insertNoteEventProgram(row: NewNoteEventRow): Program<void> {
  yield* run(queryBuilder.insertInto('note_events').values(row));
}

/** A note's audit rows, oldest first (scoped: another agent's note has none). */
export function listNoteEvents(sql: SqlExecutor, agentId: string, noteId: string): NoteEventRow[] {
  return runSqliteProgram(sql, listNoteEventsProgram(agentId, noteId));
}

/** {@link listNoteEvents} as a program (both dialects). */
export function* listNoteEventsProgram(agentId: string, noteId: string): Program<NoteEventRow[]> {
  return yield* all<NoteEventRow>(
    queryBuilder
      .selectFrom('note_events')
      .selectAll()
      .where('note_id', '=', noteId)
      .where('agent_id', '=', agentId)
      .orderBy('seq'),
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
// PostgreSQL: jsonb containment of one array of strings in another is "every wanted tag is there".
const tagsMatchPg = (p: number) => `($${p}::jsonb IS NULL OR n.tags::jsonb @> $${p}::jsonb)`;

const PAGE_BY_ENTITY = `SELECT n.* FROM note_links AS l JOIN notes AS n ON n.id = l.note_id
  WHERE l.agent_id = ? AND l.ref_type = ? AND l.ref_id = ? AND n.agent_id = l.agent_id
    AND (? IS NULL OR n.status = ?) AND (? IS NULL OR n.seq < ?) AND ${TAGS_MATCH}
  ORDER BY n.seq DESC LIMIT ?`;
const PAGE_BY_ENTITY_PG = `SELECT n.* FROM note_links AS l JOIN notes AS n ON n.id = l.note_id
  WHERE l.agent_id = $1 AND l.ref_type = $2 AND l.ref_id = $3 AND n.agent_id = l.agent_id
    AND ($4::text IS NULL OR n.status = $4) AND ($5::bigint IS NULL OR n.seq < $5) AND ${tagsMatchPg(6)}
  ORDER BY n.seq DESC LIMIT $7`;

/**
 * A page of the scope's notes, newest first (by `seq`, creation order). With an entity the page
 * starts from that reference's link rows (index `note_links_ref`), so its cost follows the notes
 * linked to it, not the agent's notes; without one it is a range of `notes_agent_seq` or
 * `notes_agent_status_seq`.
 */
export function listNotePage(sql: SqlExecutor, f: NoteListFilter): NoteRow[] {
  return runSqliteProgram(sql, listNotePageProgram(f));
}

/** {@link listNotePage} as a program (both dialects). */
export function* listNotePageProgram(f: NoteListFilter): Program<NoteRow[]> {
  const tags = f.tags && f.tags.length > 0 ? JSON.stringify(f.tags) : null;
  const before = f.beforeSeq ?? null;
  if (f.entity) {
    const status = f.status ?? null;
    const { type, refId } = f.entity;
    return yield* all<NoteRow>(
      perDialect(
        raw(PAGE_BY_ENTITY, f.agentId, type, refId, status, status, before, before, tags, tags, f.limit),
        raw(PAGE_BY_ENTITY_PG, f.agentId, type, refId, status, before, tags, f.limit),
      ),
    );
  }
  // Two statements rather than `? IS NULL OR status = ?`, so each is planned on its own index.
  const statusClause = f.status === undefined ? '' : 'AND n.status = ?';
  const statusValues = f.status === undefined ? [] : [f.status];
  const head = `SELECT n.* FROM notes AS n WHERE n.agent_id = ? ${statusClause} AND n.seq < ? AND`;
  const upTo = before ?? Number.MAX_SAFE_INTEGER;
  const pgHead = portable(head).postgres.sql;
  const p = statusValues.length + 3;
  return yield* all<NoteRow>(
    perDialect(
      raw(`${head} ${TAGS_MATCH} ORDER BY n.seq DESC LIMIT ?`, f.agentId, ...statusValues, upTo, tags, tags, f.limit),
      raw(
        `${pgHead} ${tagsMatchPg(p)} ORDER BY n.seq DESC LIMIT $${p + 1}`,
        f.agentId,
        ...statusValues,
        upTo,
        tags,
        f.limit,
      ),
    ),
  );
}

/** Notes of the scope by `seq` (rows of a text ranking), in no particular order; other scopes' seqs are dropped. */
export function findNotesBySeq(sql: SqlExecutor, agentId: string, seqs: readonly number[]): NoteRow[] {
  return runSqliteProgram(sql, findNotesBySeqProgram(agentId, seqs));
}

/** {@link findNotesBySeq} as a program (both dialects). */
export function* findNotesBySeqProgram(agentId: string, seqs: readonly number[]): Program<NoteRow[]> {
  if (seqs.length === 0) return [];
  return yield* all<NoteRow>(
    perDialect(
      raw(
        'SELECT n.* FROM notes AS n WHERE n.seq IN (SELECT value FROM json_each(?)) AND n.agent_id = ?',
        JSON.stringify(seqs),
        agentId,
      ),
      raw('SELECT n.* FROM notes AS n WHERE n.seq = ANY($1::bigint[]) AND n.agent_id = $2', [...seqs], agentId),
    ),
  );
}

/** Notes of the scope by id, in no particular order; other scopes' ids are dropped. */
export function findNotesById(sql: SqlExecutor, agentId: string, ids: readonly string[]): NoteRow[] {
  return runSqliteProgram(sql, findNotesByIdProgram(agentId, ids));
}

/** {@link findNotesById} as a program (both dialects). */
export function* findNotesByIdProgram(agentId: string, ids: readonly string[]): Program<NoteRow[]> {
  if (ids.length === 0) return [];
  return yield* all<NoteRow>(
    perDialect(
      raw(
        'SELECT n.* FROM notes AS n WHERE n.id IN (SELECT value FROM json_each(?)) AND n.agent_id = ?',
        JSON.stringify(ids),
        agentId,
      ),
      raw('SELECT n.* FROM notes AS n WHERE n.id = ANY($1::text[]) AND n.agent_id = $2', [...ids], agentId),
    ),
  );
}

/** A note linked to a host reference, and which reference. */
export interface NoteLinkHit {
  readonly noteId: string;
  readonly refType: string;
  readonly refId: string;
}

const LINKED_NOTES =
  'SELECT note_id FROM note_links WHERE agent_id = ? AND ref_type = ? AND ref_id = ? ORDER BY note_id LIMIT ?';

/** Notes linked to any of `refs` in the scope (one index range per reference), up to `limit` per reference. */
export function findLinkedNotes(
  sql: SqlExecutor,
  agentId: string,
  refs: ReadonlyArray<{ readonly type: string; readonly refId: string }>,
  limit: number,
): NoteLinkHit[] {
  return runSqliteProgram(sql, findLinkedNotesProgram(agentId, refs, limit));
}

/** {@link findLinkedNotes} as a program (both dialects). */
export function* findLinkedNotesProgram(
  agentId: string,
  refs: ReadonlyArray<{ readonly type: string; readonly refId: string }>,
  limit: number,
): Program<NoteLinkHit[]> {
  const out: NoteLinkHit[] = [];
  for (const ref of refs) {
    const rows = yield* all<{ note_id: string }>(portable(LINKED_NOTES, agentId, ref.type, ref.refId, limit));
    for (const r of rows) out.push({ noteId: r.note_id, refType: ref.type, refId: ref.refId });
  }
  return out;
}
