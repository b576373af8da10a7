import type { Migration } from './migration.js';
import { POSTGRES_NOTES } from './postgres/notes.js';

// Working notes (seed 003, issue 14): the agent's shorter-lived second tier. A note is never
// deleted by the engine: it is `active`, then `resolved` or `archived`, and every change is a
// `note_events` row (before/after images, actor, reason). Only an erasure of the whole scope
// removes notes.
//
// Host links live in `note_links`, one row per (note, type, refId), indexed on
// (agent_id, ref_type, ref_id): the SQLite form of the seed's GIN index over linked_entities, so a
// lookup by entity is one index range, never a scan of the agent's notes.
//
// Text search reuses the per-agent BM25 index of migration 13 (same `text_terms` tokenizer, same
// ranking code), in tables of its own: `text_scopes.corpus` is CHECK-constrained to memory, turn and
// hint, and widening a CHECK in SQLite means rebuilding that table and the seven triggers of other
// tables that write to it. Notes' index is title and content.
//
// Vectors (with an embedder) are one row per note and model, searched by an exact scan of the
// agent's rows: notes are few per agent (thousands), so no vec0 partition is needed.

const NOTE_TEXT = '(new.title || char(10) || new.content)';
const OLD_NOTE_TEXT = '(old.title || char(10) || old.content)';
const SCOPE = (agent: string) => `(SELECT scope FROM note_text_scopes WHERE corpus = 'note' AND agent_id = ${agent})`;

const addText = (agent: string, row: string, text: string) => [
  `INSERT OR IGNORE INTO note_text_scopes (corpus, agent_id) VALUES ('note', ${agent});`,
  `INSERT OR IGNORE INTO note_text_postings (scope, term, row, tf, len)
     SELECT ${SCOPE(agent)}, t.term, ${row}, t.tf, t.len FROM text_terms(${text}) AS t;`,
  `UPDATE note_text_scopes SET docs = docs + 1, tokens = tokens + text_length(${text})
     WHERE corpus = 'note' AND agent_id = ${agent};`,
];

const removeText = (agent: string, row: string, text: string) => [
  `DELETE FROM note_text_postings
     WHERE scope = ${SCOPE(agent)} AND term IN (SELECT term FROM text_terms(${text})) AND row = ${row};`,
  `UPDATE note_text_scopes SET docs = docs - 1, tokens = tokens - text_length(${text})
     WHERE corpus = 'note' AND agent_id = ${agent};`,
];

const body = (statements: string[]) => `BEGIN\n  ${statements.join('\n  ')}\nEND`;

export const notes: Migration = {
  version: 15,
  name: 'notes',
  statements: [
    `CREATE TABLE IF NOT EXISTS notes (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      agent_id TEXT NOT NULL,
      title TEXT NOT NULL,
      content TEXT NOT NULL,
      tags TEXT NOT NULL DEFAULT '[]',
      status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'resolved', 'archived')),
      linked_entities TEXT NOT NULL DEFAULT '[]',
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      resolved_at INTEGER,
      archived_at INTEGER
    )`,
    // Listing newest first (all statuses, or one status): each page one index range.
    `CREATE INDEX IF NOT EXISTS notes_agent_seq ON notes (agent_id, seq)`,
    `CREATE INDEX IF NOT EXISTS notes_agent_status_seq ON notes (agent_id, status, seq)`,
    // Reaping walks stale active notes of every agent, oldest update first.
    `CREATE INDEX IF NOT EXISTS notes_active_updated ON notes (updated_at) WHERE status = 'active'`,
    `CREATE TABLE IF NOT EXISTS note_links (
      note_id TEXT NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
      agent_id TEXT NOT NULL,
      ref_type TEXT NOT NULL,
      ref_id TEXT NOT NULL,
      label TEXT,
      PRIMARY KEY (note_id, ref_type, ref_id)
    )`,
    `CREATE INDEX IF NOT EXISTS note_links_ref ON note_links (agent_id, ref_type, ref_id, note_id)`,
    `CREATE TABLE IF NOT EXISTS note_events (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      note_id TEXT NOT NULL,
      agent_id TEXT NOT NULL,
      event TEXT NOT NULL CHECK (event IN ('created', 'updated', 'resolved', 'archived')),
      actor TEXT NOT NULL,
      actor_type TEXT NOT NULL CHECK (actor_type IN ('operator', 'agent', 'engine')),
      reason TEXT,
      before_json TEXT,
      after_json TEXT NOT NULL,
      metadata TEXT NOT NULL DEFAULT '{}',
      created_at INTEGER NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS note_events_note ON note_events (note_id, seq)`,
    `CREATE TABLE IF NOT EXISTS note_vectors (
      note_id TEXT NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
      agent_id TEXT NOT NULL,
      model TEXT NOT NULL,
      dimensions INTEGER NOT NULL CHECK (dimensions > 0),
      content_hash TEXT NOT NULL,
      vector BLOB NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (note_id, model)
    )`,
    `CREATE INDEX IF NOT EXISTS note_vectors_agent_model ON note_vectors (agent_id, model)`,
    // The per-agent text index (see migration 13 for the scheme); `corpus` is always 'note', kept
    // so the one ranking function reads both indexes with the same statements.
    `CREATE TABLE IF NOT EXISTS note_text_scopes (
      scope INTEGER PRIMARY KEY,
      corpus TEXT NOT NULL CHECK (corpus = 'note'),
      agent_id TEXT NOT NULL,
      docs INTEGER NOT NULL DEFAULT 0,
      tokens INTEGER NOT NULL DEFAULT 0,
      UNIQUE (corpus, agent_id)
    )`,
    `CREATE TABLE IF NOT EXISTS note_text_postings (
      scope INTEGER NOT NULL,
      term TEXT NOT NULL,
      row INTEGER NOT NULL,
      tf INTEGER NOT NULL,
      len INTEGER NOT NULL,
      PRIMARY KEY (scope, term, row)
    ) WITHOUT ROWID`,
    `CREATE TRIGGER IF NOT EXISTS notes_terms_ai AFTER INSERT ON notes ${body(addText('new.agent_id', 'new.seq', NOTE_TEXT))}`,
    `CREATE TRIGGER IF NOT EXISTS notes_terms_ad AFTER DELETE ON notes ${body(removeText('old.agent_id', 'old.seq', OLD_NOTE_TEXT))}`,
    `CREATE TRIGGER IF NOT EXISTS notes_terms_au AFTER UPDATE OF title, content ON notes
      WHEN old.title IS NOT new.title OR old.content IS NOT new.content ${body([
        ...removeText('old.agent_id', 'old.seq', OLD_NOTE_TEXT),
        ...addText('new.agent_id', 'new.seq', NOTE_TEXT),
      ])}`,
  ],
  postgres: [...POSTGRES_NOTES],
};
