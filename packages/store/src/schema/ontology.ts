import type { Generated, Insertable, Selectable } from 'kysely';

// What the Dreaming apply seam writes besides the graph itself (migrations 6 and 7): attention
// records, proposals and contradictions, and the provenance of every applied operation.

export type AttentionKind = 'hygiene' | 'review_due' | 'contested_claim' | 'evidence_requeue' | 'surprisal';

/** `dreaming_attention`: what a pass should look at; at most one open record per agent, kind and subject. */
export interface DreamingAttentionTable {
  id: string;
  agent_id: string;
  kind: AttentionKind;
  subject_ref: string;
  priority: Generated<number>;
  details: Generated<string>;
  created_by: string;
  created_at: number;
  resolved_at: number | null;
  resolved_by_pass_id: string | null;
  resolution: 'resolved' | 'declined' | null;
}
export type DreamingAttentionRow = Selectable<DreamingAttentionTable>;
export type NewDreamingAttentionRow = Insertable<DreamingAttentionTable>;

export type ProposalRoute = 'shadow' | 'review_required' | 'contradiction';

/** `ontology_proposals`: operations recorded for review instead of applied. */
export interface OntologyProposalsTable {
  id: string;
  agent_id: string;
  pass_id: string | null;
  actor: string;
  operation: string;
  operation_json: string;
  route: ProposalRoute;
  reason: string | null;
  status: Generated<'pending' | 'accepted' | 'rejected'>;
  created_at: number;
  decided_at: number | null;
  /** Who accepted or rejected it (migration 14). */
  decided_by: string | null;
  /** Why it was rejected, or the note given with an accept (migration 14). */
  decision_reason: string | null;
}
export type OntologyProposalRow = Selectable<OntologyProposalsTable>;
export type NewOntologyProposalRow = Insertable<OntologyProposalsTable>;

/** `ontology_contradictions`: a proposal that disagrees with an active claim, until resolved. */
export interface OntologyContradictionsTable {
  id: string;
  agent_id: string;
  claim_id: string;
  proposal_id: string | null;
  details: string;
  status: Generated<'open' | 'resolved'>;
  created_at: number;
  resolved_at: number | null;
}
export type OntologyContradictionRow = Selectable<OntologyContradictionsTable>;
export type NewOntologyContradictionRow = Insertable<OntologyContradictionsTable>;

/** `dreaming_provenance`: one row per applied operation, with its evidence and the target's prior row. */
export interface DreamingProvenanceTable {
  seq: Generated<number>;
  agent_id: string;
  pass_id: string | null;
  actor: string;
  operation: string;
  target_type: string;
  target_id: string;
  evidence_json: string;
  confidence: number | null;
  /** The target's row before an update or archive, as JSON. */
  previous_json: string | null;
  created_at: number;
  /** Every row the operation wrote, before and after, as JSON (migration 14; null before it). */
  changes_json: string | null;
  /** The proposal whose acceptance applied this operation (migration 14). */
  proposal_id: string | null;
  /** When a revert took this operation back, and which (migration 14). */
  reverted_at: number | null;
  revert_id: string | null;
}
export type DreamingProvenanceRow = Selectable<DreamingProvenanceTable>;
export type NewDreamingProvenanceRow = Insertable<DreamingProvenanceTable>;

/** `dreaming_reverts`: one row per reverted pass (migration 14); the provenance rows point at it. */
export interface DreamingRevertsTable {
  id: string;
  agent_id: string;
  pass_id: string;
  actor: string;
  reason: string | null;
  operations: number;
  rows_restored: number;
  created_at: number;
}
export type DreamingRevertRow = Selectable<DreamingRevertsTable>;
