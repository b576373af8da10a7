import { raw, type SqlExecutor } from '../internal/sql.js';

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
  readonly now: number;
}

// One row per applied operation, inside the operation's savepoint: a cached statement.
const INSERT_PROVENANCE = `INSERT INTO dreaming_provenance (agent_id, pass_id, actor, operation, target_type, target_id, evidence_json, confidence, previous_json, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** Records the provenance of an applied Dreaming operation. */
export function insertProvenance(sql: SqlExecutor, row: ProvenanceRecord): void {
  sql.run(
    raw(
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
      row.now,
    ),
  );
}
