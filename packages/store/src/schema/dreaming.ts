import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

// The Dreaming control plane (migration 7): per-agent state, passes and their tool calls, evidence
// delivery bookkeeping, and the MEMORY.md head. The seam's own records are in `ontology.ts`.

/** `dreaming_state`: one row per agent: failure streak, last pass, and the agent's runbook notes. */
export interface DreamingStateTable {
  agent_id: string;
  consecutive_failures: Generated<number>;
  last_failure_at: number | null;
  last_pass_at: number | null;
  last_mode: string | null;
  runbook: Generated<string>;
  updated_at: number;
}
export type DreamingStateRow = Selectable<DreamingStateTable>;
export type NewDreamingStateRow = Insertable<DreamingStateTable>;
export type DreamingStateUpdate = Updateable<DreamingStateTable>;

export type DreamingPassStatus = 'running' | 'completed' | 'failed' | 'skipped';

/** `dreaming_passes`: one row per pass, written when it ends (JSON columns hold text). */
export interface DreamingPassesTable {
  id: string;
  agent_id: string;
  trigger: string;
  mode: string;
  status: DreamingPassStatus;
  usage_json: Generated<string>;
  mutations_json: Generated<string>;
  summary: string | null;
  error: string | null;
  evidence_window_json: Generated<string>;
  runbook_json: Generated<string>;
  started_at: number;
  finished_at: number | null;
}
export type DreamingPassRow = Selectable<DreamingPassesTable>;
export type NewDreamingPassRow = Insertable<DreamingPassesTable>;

/** `dreaming_tool_calls`: a pass's tool calls in order (`ordinal` is unique per pass). */
export interface DreamingToolCallsTable {
  seq: Generated<number>;
  pass_id: string;
  ordinal: number;
  tool: string;
  arguments: string;
  result: string;
  ok: 0 | 1;
  duration_ms: number;
  created_at: number;
}
export type DreamingToolCallRow = Selectable<DreamingToolCallsTable>;
export type NewDreamingToolCallRow = Insertable<DreamingToolCallsTable>;

/** `dreaming_evidence_offsets`: how far each source's rendering has been delivered, in characters. */
export interface DreamingEvidenceOffsetsTable {
  agent_id: string;
  source_ref: string;
  delivered_chars: number;
  total_chars: number;
  updated_at: number;
}
export type DreamingEvidenceOffsetRow = Selectable<DreamingEvidenceOffsetsTable>;

/** `dreaming_evidence_exclusions`: sources a pass decided never to be delivered again. */
export interface DreamingEvidenceExclusionsTable {
  agent_id: string;
  source_ref: string;
  reason: string;
  pass_id: string | null;
  created_at: number;
}
export type DreamingEvidenceExclusionRow = Selectable<DreamingEvidenceExclusionsTable>;

/** `dreaming_evidence_reviews`: what a pass concluded about a source (append-only). */
export interface DreamingEvidenceReviewsTable {
  seq: Generated<number>;
  agent_id: string;
  source_ref: string;
  pass_id: string | null;
  verdict: string;
  notes: string | null;
  created_at: number;
}
export type DreamingEvidenceReviewRow = Selectable<DreamingEvidenceReviewsTable>;
export type NewDreamingEvidenceReviewRow = Insertable<DreamingEvidenceReviewsTable>;

/** `memory_md_heads`: the agent's curated MEMORY.md, replaced by compare-and-swap on `revision`. */
export interface MemoryMdHeadsTable {
  agent_id: string;
  revision: number;
  content: string;
  content_hash: string;
  entries_json: string;
  pass_id: string | null;
  updated_at: number;
}
export type MemoryMdHeadRow = Selectable<MemoryMdHeadsTable>;
export type NewMemoryMdHeadRow = Insertable<MemoryMdHeadsTable>;
