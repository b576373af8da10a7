import type { Generated, Selectable } from 'kysely';

/** `session_transcripts`: one row per (agent, session); user and assistant turns only. */
export interface SessionTranscriptsTable {
  agent_id: string;
  session_key: string;
  content: string;
  harness: string | null;
  project: string | null;
  content_hash: string | null;
  source_id: string | null;
  source_record_id: string | null;
  source_meta_json: string | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

export type TranscriptRole = 'user' | 'assistant';

/** `session_transcript_turns`: one kept turn; `turn_key` makes appends idempotent per session. */
export interface SessionTranscriptTurnsTable {
  seq: Generated<number>;
  agent_id: string;
  session_key: string;
  turn_key: string;
  role: TranscriptRole;
  content: string;
  at: number | null;
  created_at: number;
}
export type TranscriptRow = Selectable<SessionTranscriptsTable>;
export type TranscriptTurnRow = Selectable<SessionTranscriptTurnsTable>;
