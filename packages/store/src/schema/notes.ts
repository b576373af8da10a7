import type { Generated, Insertable, Selectable } from 'kysely';
import type { ActorType } from './memories.js';

/** A note's lifecycle: `active` → `resolved` → `archived`, or `active` → `archived`. */
export const NOTE_STATUSES = ['active', 'resolved', 'archived'] as const;
export type NoteStatus = (typeof NOTE_STATUSES)[number];

/** What a `note_events` row records. */
export const NOTE_EVENTS = ['created', 'updated', 'resolved', 'archived'] as const;
export type NoteEventKind = (typeof NOTE_EVENTS)[number];

/** `notes`: working notes. Never deleted by the engine (resolved or archived instead). Times in epoch ms. */
export interface NotesTable {
  seq: Generated<number>;
  id: string;
  agent_id: string;
  title: string;
  content: string;
  /** JSON array of strings. */
  tags: string;
  status: NoteStatus;
  /** JSON array of `{ type, refId, label? }`; `note_links` is its index. */
  linked_entities: string;
  created_at: number;
  updated_at: number;
  resolved_at: number | null;
  archived_at: number | null;
}
export type NoteRow = Selectable<NotesTable>;
export type NewNoteRow = Insertable<NotesTable>;

/** `note_links`: one row per note and host reference, indexed on (agent_id, ref_type, ref_id). */
export interface NoteLinksTable {
  note_id: string;
  agent_id: string;
  ref_type: string;
  ref_id: string;
  label: string | null;
}

/** `note_events`: the audit trail, one row per change, with the note before and after as JSON. */
export interface NoteEventsTable {
  seq: Generated<number>;
  id: string;
  note_id: string;
  agent_id: string;
  event: NoteEventKind;
  actor: string;
  actor_type: ActorType;
  reason: string | null;
  /** The note before the change (null for `created`). */
  before_json: string | null;
  after_json: string;
  /** JSON object: what else the writer recorded (reaping's rule, ...). */
  metadata: Generated<string>;
  created_at: number;
}
export type NoteEventRow = Selectable<NoteEventsTable>;
export type NewNoteEventRow = Insertable<NoteEventsTable>;

/** `note_vectors`: one vector per note and embedding model (float32 blob). */
export interface NoteVectorsTable {
  note_id: string;
  agent_id: string;
  model: string;
  dimensions: number;
  content_hash: string;
  vector: Buffer;
  created_at: number;
}

/** `note_text_scopes`: the notes' per-agent text index counts (see `text_scopes`). */
export interface NoteTextScopesTable {
  scope: Generated<number>;
  corpus: 'note';
  agent_id: string;
  docs: Generated<number>;
  tokens: Generated<number>;
}

/** `note_text_postings`: the notes' per-agent postings (see `text_postings`). */
export interface NoteTextPostingsTable {
  scope: number;
  term: string;
  row: number;
  tf: number;
  len: number;
}
