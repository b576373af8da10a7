import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';
import { all, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

/** One applied Dreaming operation, as its provenance row records it. JSON fields are serialized. */
export interface ProvenanceRecord {
  readonly agentId: string;
  readonly passId: string | null;
  readonly actor: string;
  readonly operation: string;
  readonly targetType: string;
  readonly targetId: string;
  readonly evidenceJson: string;
  readonly confidence: number | null;
  /** The target's row before the operation changed it, as JSON. */
  readonly previousJson: string | null;
  /** Every row the operation wrote, with its image before and after, as JSON. */
  readonly changesJson?: string | null;
  /** The proposal whose acceptance applied the operation. */
  readonly proposalId?: string | null;
  readonly now: number;
}

// One row per applied operation, inside the operation's savepoint: a cached statement.
const INSERT_PROVENANCE = `INSERT INTO dreaming_provenance (agent_id, pass_id, actor, operation, target_type, target_id, evidence_json, confidence, previous_json, changes_json, proposal_id, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** Records the provenance of an applied Dreaming operation. */
export function insertProvenance(sql: SqlExecutor, row: ProvenanceRecord): void {
  runSqliteProgram(sql, insertProvenanceProgram(row));
}

/** {@link insertProvenance} as a program (both dialects). */
export function* insertProvenanceProgram(row: ProvenanceRecord): Program<void> {
  yield* run(
    portable(
      INSERT_PROVENANCE,
      row.agentId,
      row.passId,
      row.actor,
      row.operation,
      row.targetType,
      row.targetId,
      row.evidenceJson,
      row.confidence,
      row.previousJson,
      row.changesJson ?? null,
      row.proposalId ?? null,
      row.now,
    ),
  );
}

/** A provenance row as the review reads return it (JSON columns still serialized). */
export interface ProvenanceRow {
  readonly seq: number;
  readonly passId: string | null;
  readonly actor: string;
  readonly operation: string;
  readonly targetType: string;
  readonly targetId: string;
  readonly evidenceJson: string;
  readonly confidence: number | null;
  readonly previousJson: string | null;
  readonly changesJson: string | null;
  readonly proposalId: string | null;
  readonly createdAt: number;
  readonly revertedAt: number | null;
  readonly revertId: string | null;
}

const PROVENANCE_COLUMNS = [
  'seq',
  'pass_id as passId',
  'actor',
  'operation',
  'target_type as targetType',
  'target_id as targetId',
  'evidence_json as evidenceJson',
  'confidence',
  'previous_json as previousJson',
  'changes_json as changesJson',
  'proposal_id as proposalId',
  'created_at as createdAt',
  'reverted_at as revertedAt',
  'revert_id as revertId',
] as const;

/** The provenance of one target in the agent's scope, oldest first, after `afterSeq`, at most `limit`. */
export function listTargetProvenance(
  sql: SqlExecutor,
  agentId: string,
  target: { type: string; id: string },
  afterSeq: number,
  limit: number,
): ProvenanceRow[] {
  return runSqliteProgram(sql, listTargetProvenanceProgram(agentId, target, afterSeq, limit));
}

/** {@link listTargetProvenance} as a program (both dialects). */
export function* listTargetProvenanceProgram(
  agentId: string,
  target: { type: string; id: string },
  afterSeq: number,
  limit: number,
): Program<ProvenanceRow[]> {
  return (yield* all(
    queryBuilder
      .selectFrom('dreaming_provenance')
      .select(PROVENANCE_COLUMNS)
      .where('agent_id', '=', agentId)
      .where('target_type', '=', target.type)
      .where('target_id', '=', target.id)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit),
  )) as ProvenanceRow[];
}

/** Everything a pass wrote in the agent's scope, in the order it was written (reverted rows too). */
export function listPassProvenance(sql: SqlExecutor, agentId: string, passId: string, limit: number): ProvenanceRow[] {
  return runSqliteProgram(sql, listPassProvenanceProgram(agentId, passId, limit));
}

/** {@link listPassProvenance} as a program (both dialects). */
export function* listPassProvenanceProgram(agentId: string, passId: string, limit: number): Program<ProvenanceRow[]> {
  return (yield* all(
    queryBuilder
      .selectFrom('dreaming_provenance')
      .select(PROVENANCE_COLUMNS)
      .where('agent_id', '=', agentId)
      .where('pass_id', '=', passId)
      .orderBy('seq')
      .limit(limit),
  )) as ProvenanceRow[];
}

/** Marks provenance rows as taken back by a revert. */
export function markProvenanceReverted(sql: SqlExecutor, seqs: readonly number[], revertId: string, now: number): void {
  runSqliteProgram(sql, markProvenanceRevertedProgram(seqs, revertId, now));
}

/** {@link markProvenanceReverted} as a program (both dialects). */
export function* markProvenanceRevertedProgram(seqs: readonly number[], revertId: string, now: number): Program<void> {
  if (seqs.length === 0) return;
  const json = JSON.stringify(seqs);
  yield* run(
    perDialect(
      raw(
        'UPDATE dreaming_provenance SET reverted_at = ?, revert_id = ? WHERE seq IN (SELECT value FROM json_each(?))',
        now,
        revertId,
        json,
      ),
      raw(
        'UPDATE dreaming_provenance SET reverted_at = $1, revert_id = $2 WHERE seq IN (SELECT jsonb_array_elements_text($3::jsonb)::bigint)',
        now,
        revertId,
        json,
      ),
    ),
  );
}

/** A revert to record. */
export interface NewRevert {
  id: string;
  agentId: string;
  passId: string;
  actor: string;
  reason: string | null;
  operations: number;
  rowsRestored: number;
  now: number;
}

/** Records a revert of a pass (the audit record its provenance rows point at). */
export function insertRevert(sql: SqlExecutor, row: NewRevert): void {
  runSqliteProgram(sql, insertRevertProgram(row));
}

/** {@link insertRevert} as a program (both dialects). */
export function* insertRevertProgram(row: NewRevert): Program<void> {
  yield* run(
    queryBuilder.insertInto('dreaming_reverts').values({
      id: row.id,
      agent_id: row.agentId,
      pass_id: row.passId,
      actor: row.actor,
      reason: row.reason,
      operations: row.operations,
      rows_restored: row.rowsRestored,
      created_at: row.now,
    }),
  );
}
