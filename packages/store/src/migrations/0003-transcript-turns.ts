import type { Migration } from './migration.js';
import { POSTGRES_TRANSCRIPT_TURNS } from './postgres/transcripts.js';

// Transcript turns as rows: appends are idempotent per turn (unique turn key per session), the
// rendered transcript is written once at completion, and turns are searchable through FTS5.
export const transcriptTurns: Migration = {
  version: 3,
  name: 'transcript-turns',
  statements: [
    `CREATE TABLE IF NOT EXISTS session_transcript_turns (
      seq INTEGER PRIMARY KEY,
      agent_id TEXT NOT NULL,
      session_key TEXT NOT NULL,
      turn_key TEXT NOT NULL,
      role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
      content TEXT NOT NULL,
      at INTEGER,
      created_at INTEGER NOT NULL,
      FOREIGN KEY (agent_id, session_key) REFERENCES session_transcripts (agent_id, session_key) ON DELETE CASCADE,
      UNIQUE (agent_id, session_key, turn_key)
    )`,
    `CREATE INDEX IF NOT EXISTS session_transcript_turns_session ON session_transcript_turns (agent_id, session_key, seq)`,
    `CREATE INDEX IF NOT EXISTS session_transcripts_idle ON session_transcripts (updated_at) WHERE completed_at IS NULL`,
    `CREATE VIRTUAL TABLE IF NOT EXISTS session_transcript_turns_fts USING fts5(
      content, content='session_transcript_turns', content_rowid='seq', tokenize="porter unicode61 remove_diacritics 2"
    )`,
    `CREATE TRIGGER IF NOT EXISTS session_transcript_turns_ai AFTER INSERT ON session_transcript_turns BEGIN
      INSERT INTO session_transcript_turns_fts (rowid, content) VALUES (new.seq, new.content);
    END`,
    `CREATE TRIGGER IF NOT EXISTS session_transcript_turns_ad AFTER DELETE ON session_transcript_turns BEGIN
      INSERT INTO session_transcript_turns_fts (session_transcript_turns_fts, rowid, content) VALUES ('delete', old.seq, old.content);
    END`,
  ],
  postgres: [...POSTGRES_TRANSCRIPT_TURNS],
};
