import { type Clock, type IdGenerator, MemoryError, parseInput } from '@memory/core';
import {
  type ActorType,
  type Dialect,
  findNoteProgram,
  insertNoteEventProgram,
  insertNoteProgram,
  listNoteEventsProgram,
  listNotePageProgram,
  type NoteEventKind,
  type NotePatch,
  type NoteRow,
  type NoteStatus,
  type Program,
  replaceNoteLinksProgram,
  updateNoteProgram,
} from '@memory/store';
import type { z } from 'zod';
import type { EngineContext } from './context.js';
import type {
  CreateNoteInput,
  ListNotesInput,
  NoteRef,
  NoteSchemas,
  NoteTransitionInput,
  SearchNotesInput,
  UpdateNoteInput,
} from './note-schemas.js';
import { indexNoteVector, type NoteSearchHit } from './note-search.js';
import { type Note, type NoteEvent, toNote, toNoteEvent } from './note-view.js';

/**
 * Working notes (`engine.notes`): the agent's shorter-lived second tier (meeting context, action
 * items, follow-ups). Every method is scoped by `agentId`; another agent's note is `NOT_FOUND`
 * exactly like a missing one. Notes are resolved or archived, never deleted; every change is a
 * `note_events` row. Invalid transitions are `CONFLICT` (the message names the current status).
 */
export interface EngineNotes {
  /** A new `active` note. */
  create(input: CreateNoteInput): Promise<Note>;
  /** Changes title, content, tags or linkedEntities (replaced whole) of an active or resolved note. */
  update(input: UpdateNoteInput): Promise<Note>;
  /** active → resolved. */
  resolve(input: NoteTransitionInput): Promise<Note>;
  /** active or resolved → archived. */
  archive(input: NoteTransitionInput): Promise<Note>;
  get(input: NoteRef): Promise<Note>;
  /** Newest first (by creation), keyset-paged; filters: status, entity (`{ type, refId }`), tags (all). */
  list(input: ListNotesInput): Promise<NotePage>;
  /**
   * By text (the agent's own BM25, fused with vector similarity when an embedder is present),
   * filtered by entity and status; best first.
   */
  search(input: SearchNotesInput): Promise<NoteSearchHit[]>;
  /** The note's audit trail (`note_events`), oldest first. */
  history(input: NoteRef): Promise<NoteEvent[]>;
}

/** The notes part of the engine a module needs: the context and the schemas built for it. */
export interface NotesContext {
  readonly ctx: EngineContext;
  readonly schemas: NoteSchemas;
}

type Actor = z.output<NoteSchemas['create']>['actor'];

/** Who a change is recorded as: the agent itself unless the caller says otherwise. */
function actorOf(agentId: string, actor: Actor): { id: string; type: ActorType } {
  if (actor === undefined) return { id: agentId, type: 'agent' };
  return typeof actor === 'string' ? { id: actor, type: 'agent' } : actor;
}

/**
 * The lock key of writes to one agent's notes on PostgreSQL: they all update the scope's text
 * statistics row, so they take turns instead of failing serialization against each other (SQLite
 * ignores it: its one writer already serializes them).
 */
export const noteScopeLock = (agentId: string) => ({ lockKeys: [`note-scope:${agentId}`] });

const notFound = (id: string) => new MemoryError('NOT_FOUND', `no note ${id} in this scope`, { details: { id } });

/** The note in scope, or `NOT_FOUND` (another agent's note is answered exactly like a missing one). */
function* requireNote(agentId: string, id: string): Program<NoteRow> {
  const row = yield* findNoteProgram(agentId, id);
  if (!row) throw notFound(id);
  return row;
}

type Change = 'update' | 'resolve' | 'archive';

/** Whether a note in `status` may take `change`: the lifecycle active → resolved → archived, active → archived. */
function allows(status: NoteStatus, change: Change): boolean {
  switch (status) {
    case 'active':
      return true;
    case 'resolved':
      return change !== 'resolve';
    case 'archived':
      return false;
  }
}

function refuse(row: NoteRow, change: Change): MemoryError {
  return new MemoryError('CONFLICT', `cannot ${change} note ${row.id}: it is ${row.status}`, {
    details: { id: row.id, status: row.status, change },
  });
}

/** Records one change in `note_events`. */
export function* recordNoteEvent(
  ids: { next(): string },
  e: {
    note: NoteRow;
    event: NoteEventKind;
    actor: { id: string; type: ActorType };
    reason?: string | undefined;
    before: NoteRow | null;
    metadata?: Record<string, unknown>;
    now: number;
  },
): Program<void> {
  yield* insertNoteEventProgram({
    id: ids.next(),
    note_id: e.note.id,
    agent_id: e.note.agent_id,
    event: e.event,
    actor: e.actor.id,
    actor_type: e.actor.type,
    reason: e.reason ?? null,
    before_json: e.before ? JSON.stringify(toNote(e.before)) : null,
    after_json: JSON.stringify(toNote(e.note)),
    metadata: JSON.stringify(e.metadata ?? {}),
    created_at: e.now,
  });
}

/** `notes.create`: a new active note, its links and its `created` event in one transaction. */
export async function createNote(nc: NotesContext, input: unknown): Promise<Note> {
  const { ctx } = nc;
  const q = parseInput(nc.schemas.create, input, 'notes.create');
  const links = q.linkedEntities ?? [];
  const { dialect, clock, ids } = ctx.portable;
  const row = await ctx.portable.db.write(function* () {
    const now = clock.now();
    const note = yield* insertNoteProgram(dialect, {
      id: ids.next(),
      agent_id: q.agentId,
      title: q.title,
      content: q.content,
      tags: JSON.stringify([...new Set(q.tags ?? [])]),
      status: 'active',
      linked_entities: JSON.stringify(links),
      created_at: now,
      updated_at: now,
      resolved_at: null,
      archived_at: null,
    });
    yield* replaceNoteLinksProgram(q.agentId, note.id, links);
    yield* recordNoteEvent(ids, {
      note,
      event: 'created',
      actor: actorOf(q.agentId, q.actor),
      reason: q.reason,
      before: null,
      now,
    });
    return note;
  }, noteScopeLock(q.agentId));
  await indexNoteVector(ctx, row);
  return toNote(row);
}

/** `notes.update`: changes title, content, tags or links of an active or resolved note. */
export async function updateNoteFields(nc: NotesContext, input: unknown): Promise<Note> {
  const { ctx } = nc;
  const q = parseInput(nc.schemas.update, input, 'notes.update');
  const { dialect, clock, ids } = ctx.portable;
  const result = await ctx.portable.db.write(function* () {
    const before = yield* requireNote(q.agentId, q.id);
    if (!allows(before.status, 'update')) throw refuse(before, 'update');
    const tags = q.tags === undefined ? undefined : JSON.stringify([...new Set(q.tags)]);
    const links = q.linkedEntities === undefined ? undefined : JSON.stringify(q.linkedEntities);
    const changed =
      (q.title !== undefined && q.title !== before.title) ||
      (q.content !== undefined && q.content !== before.content) ||
      (tags !== undefined && tags !== before.tags) ||
      (links !== undefined && links !== before.linked_entities);
    // Nothing differs: no write and no audit row (the trail records changes).
    if (!changed) return { row: before, textChanged: false };
    const now = clock.now();
    const patch: NotePatch = {
      updated_at: now,
      ...(q.title !== undefined ? { title: q.title } : {}),
      ...(q.content !== undefined ? { content: q.content } : {}),
      ...(tags !== undefined ? { tags } : {}),
      ...(links !== undefined ? { linked_entities: links } : {}),
    };
    const note = (yield* updateNoteProgram(dialect, q.agentId, q.id, before.status, patch)) as NoteRow;
    if (q.linkedEntities !== undefined) yield* replaceNoteLinksProgram(q.agentId, note.id, q.linkedEntities);
    yield* recordNoteEvent(ids, {
      note,
      event: 'updated',
      actor: actorOf(q.agentId, q.actor),
      reason: q.reason,
      before,
      now,
    });
    return { row: note, textChanged: note.title !== before.title || note.content !== before.content };
  }, noteScopeLock(q.agentId));
  if (result.textChanged) await indexNoteVector(ctx, result.row);
  return toNote(result.row);
}

/** What a note transition runs with: the dialect (the text index) and the store's clock and ids. */
export interface NoteWriteDeps {
  readonly dialect: Dialect;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/** A parsed transition request. */
export type NoteTransition = z.output<NoteSchemas['transition']>;

/**
 * One status transition, checked against the lifecycle and audited, as a program: it runs inside
 * the caller's write transaction (a registry delete archives notes inside its own).
 */
export function* transitionNoteProgram(
  deps: NoteWriteDeps,
  q: NoteTransition,
  change: 'resolve' | 'archive',
): Program<NoteRow> {
  const before = yield* requireNote(q.agentId, q.id);
  if (!allows(before.status, change)) throw refuse(before, change);
  const now = deps.clock.now();
  const patch: NotePatch =
    change === 'resolve'
      ? { status: 'resolved', resolved_at: now, updated_at: now }
      : { status: 'archived', archived_at: now, updated_at: now };
  const note = (yield* updateNoteProgram(deps.dialect, q.agentId, q.id, before.status, patch)) as NoteRow;
  const event = change === 'resolve' ? 'resolved' : 'archived';
  yield* recordNoteEvent(deps.ids, {
    note,
    event,
    actor: actorOf(q.agentId, q.actor),
    reason: q.reason,
    before,
    now,
  });
  return note;
}

/** One status transition in one transaction: checked against the lifecycle, audited. */
export async function transitionNote(nc: NotesContext, input: unknown, change: 'resolve' | 'archive'): Promise<Note> {
  const { portable } = nc.ctx;
  const q = parseInput(nc.schemas.transition, input, `notes.${change}`);
  return toNote(await portable.db.write(() => transitionNoteProgram(portable, q, change)));
}

/** `notes.get`: the note, or `NOT_FOUND`. */
export async function getNote(nc: NotesContext, input: unknown): Promise<Note> {
  const q = parseInput(nc.schemas.ref, input, 'notes.get');
  return toNote(await nc.ctx.portable.db.read(() => requireNote(q.agentId, q.id)));
}

/** `notes.history`: the note's audit rows, oldest first; `NOT_FOUND` outside its scope. */
export async function noteHistory(nc: NotesContext, input: unknown): Promise<NoteEvent[]> {
  const q = parseInput(nc.schemas.ref, input, 'notes.history');
  const rows = await nc.ctx.portable.db.read(function* () {
    yield* requireNote(q.agentId, q.id);
    return yield* listNoteEventsProgram(q.agentId, q.id);
  });
  return rows.map(toNoteEvent);
}

/** A page of notes and the cursor of the next one (null on the last page). */
export interface NotePage {
  readonly items: Note[];
  readonly nextCursor: string | null;
}

// A cursor is the last row's seq, base64url-encoded: a position in the newest-first order.
function decodeCursor(cursor: string): number {
  const match = /^n(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match)
    throw new MemoryError('INVALID_INPUT', 'invalid input to notes.list: cursor: not a cursor of this list', {
      details: { operation: 'notes.list', issues: ['cursor: not a cursor of this list'] },
    });
  return Number(match[1]);
}

/** `notes.list`: the scope's notes newest first (by creation), filtered by status, entity and tags. */
export async function listNotes(nc: NotesContext, input: unknown): Promise<NotePage> {
  const q = parseInput(nc.schemas.list, input, 'notes.list');
  const limit = q.limit ?? 50;
  const beforeSeq = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
  const rows = await nc.ctx.portable.db.read(() =>
    listNotePageProgram({
      agentId: q.agentId,
      status: q.status,
      entity: q.entity,
      tags: q.tags,
      beforeSeq,
      limit: limit + 1,
    }),
  );
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return {
    items: shown.map(toNote),
    nextCursor: rows.length > limit && last ? Buffer.from(`n${last.seq}`, 'utf8').toString('base64url') : null,
  };
}
