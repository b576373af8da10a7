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
