import { findEvidenceSourceProgram, type Program, runSqliteProgram, type SqlExecutor } from '@memory/store';

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

/**
 * A reference to a row that exists, but in another agent's scope. The caller is answered exactly
 * as if the row did not exist (so ids and guessable session keys cannot be probed across scopes);
 * the attempt is reported to operators through this callback instead.
 */
export interface CrossScopeReference {
  /** The reference as given, e.g. `transcript:chat-42` or `entity:01J…`. */
  readonly ref: string;
  /** The scope the row belongs to. */
  readonly ownerAgentId: string;
}

export type CrossScopeReporter = (reference: CrossScopeReference) => void;

/** What a reference resolves to, in one agent's scope. */
export type EvidenceLookup =
  | { readonly found: true; readonly text: string }
  | { readonly found: false; readonly reason: 'not_found' | 'not_completed' | 'not_evidence' };

/**
 * The evidence text a reference names, only in `agentId`'s scope. A reference that exists only in
 * another agent's scope is `not_found`, like one that exists nowhere (never read, never told
 * apart); `report` hears about it for the operators' log.
 */
export function lookupEvidence(
  sql: SqlExecutor,
  agentId: string,
  ref: SourceRef,
  report?: CrossScopeReporter,
): EvidenceLookup {
  return runSqliteProgram(sql, lookupEvidenceProgram(agentId, ref, report));
}

/** {@link lookupEvidence} as a program (both dialects). */
export function* lookupEvidenceProgram(
  agentId: string,
  ref: SourceRef,
  report?: CrossScopeReporter,
): Program<EvidenceLookup> {
  if (ref.kind === 'attention') return { found: false, reason: 'not_evidence' };
  const row = yield* findEvidenceSourceProgram(agentId, ref.kind, ref.id);
  if (!row) return { found: false, reason: 'not_found' };
  if (row.agent_id !== agentId) {
    report?.({ ref: `${ref.kind}:${ref.id}`, ownerAgentId: row.agent_id });
    return { found: false, reason: 'not_found' };
  }
  if (row.ready !== 1 || row.text === null) return { found: false, reason: 'not_completed' };
  return { found: true, text: row.text };
}
