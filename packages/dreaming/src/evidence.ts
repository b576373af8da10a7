import { findEvidenceSource, type SqlExecutor } from '@memory/store';

/** The kinds of evidence a Dreaming operation can cite. */
export const EVIDENCE_KINDS = ['transcript', 'memory', 'document', 'import'] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

/** A parsed `kind:id` reference, e.g. `transcript:chat-42`, `memory:01J…`. */
export interface SourceRef {
  readonly kind: EvidenceKind | 'attention';
  readonly id: string;
}

const REF = /^(transcript|memory|document|import|attention):(.{1,512})$/s;

/** Parses a source reference; undefined when it is not one of the known kinds. */
export function parseSourceRef(text: unknown): SourceRef | undefined {
  if (typeof text !== 'string') return undefined;
  const m = REF.exec(text);
  if (!m) return undefined;
  return { kind: m[1] as SourceRef['kind'], id: m[2] as string };
}

/** What a reference resolves to, in one agent's scope. */
export type EvidenceLookup =
  | { readonly found: true; readonly text: string }
  | { readonly found: false; readonly reason: 'not_found' | 'other_scope' | 'not_completed' | 'not_evidence' };

/**
 * The evidence text a reference names, as Dreaming reads it, only in `agentId`'s scope. A reference
 * that exists only in another agent's scope is reported as such (so the model can be told its
 * citation crossed scopes), never read.
 */
export function lookupEvidence(sql: SqlExecutor, agentId: string, ref: SourceRef): EvidenceLookup {
  if (ref.kind === 'attention') return { found: false, reason: 'not_evidence' };
  const row = findEvidenceSource(sql, agentId, ref.kind, ref.id);
  if (!row) return { found: false, reason: 'not_found' };
  if (row.agent_id !== agentId) return { found: false, reason: 'other_scope' };
  if (row.ready !== 1 || row.text === null) return { found: false, reason: 'not_completed' };
  return { found: true, text: row.text };
}
