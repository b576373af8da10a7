import { raw, type SqlExecutor } from '@memory/store';

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

interface Row {
  readonly agent_id: string;
  readonly text: string | null;
  readonly ready: number;
}

// One statement per kind: the row wherever it lives (to tell "another scope" from "missing"), its
// rendered text, and whether it is ready to be cited.
const LOOKUPS: Record<EvidenceKind, string> = {
  memory: 'SELECT agent_id, content AS text, (is_deleted = 0) AS ready FROM memories WHERE id = ?',
  // A transcript is evidence once completed: its rendered content is what Dreaming reads.
  transcript:
    'SELECT agent_id, content AS text, (completed_at IS NOT NULL) AS ready FROM session_transcripts WHERE session_key = ? ORDER BY (agent_id = ?) DESC LIMIT 1',
  document: "SELECT agent_id, raw_content AS text, (status = 'done') AS ready FROM documents WHERE id = ?",
  // An imported conversation, by its record id in the export.
  import:
    'SELECT agent_id, content AS text, (completed_at IS NOT NULL) AS ready FROM session_transcripts WHERE source_record_id = ? ORDER BY (agent_id = ?) DESC LIMIT 1',
};

/**
 * The evidence text a reference names, as Dreaming reads it, only in `agentId`'s scope. A reference
 * that exists only in another agent's scope is reported as such (so the model can be told its
 * citation crossed scopes), never read.
 */
export function lookupEvidence(sql: SqlExecutor, agentId: string, ref: SourceRef): EvidenceLookup {
  if (ref.kind === 'attention') return { found: false, reason: 'not_evidence' };
  const query = LOOKUPS[ref.kind];
  const params = ref.kind === 'transcript' || ref.kind === 'import' ? [ref.id, agentId] : [ref.id];
  const row = sql.get<Row>(raw(query, ...params));
  if (!row) return { found: false, reason: 'not_found' };
  if (row.agent_id !== agentId) return { found: false, reason: 'other_scope' };
  if (row.ready !== 1 || row.text === null) return { found: false, reason: 'not_completed' };
  return { found: true, text: row.text };
}
