import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import type { ProposalRoute } from '../schema/ontology.js';

// Operations the Dreaming seam recorded for review instead of applying, and the contradictions
// between a proposed and an active claim.

/** Records an operation for review. */
export function insertProposal(
  sql: SqlExecutor,
  row: {
    id: string;
    agentId: string;
    passId: string | null;
    actor: string;
    operation: string;
    operationJson: string;
    route: ProposalRoute;
    reason: string | null;
    now: number;
  },
): void {
  sql.run(
    queryBuilder
      .insertInto('ontology_proposals')
      .values({
        id: row.id,
        agent_id: row.agentId,
        pass_id: row.passId,
        actor: row.actor,
        operation: row.operation,
        operation_json: row.operationJson,
        route: row.route,
        reason: row.reason,
        created_at: row.now,
      })
      .compile(),
  );
}

/** Records that a proposal contradicts an active claim (open until resolved). */
export function insertContradiction(
  sql: SqlExecutor,
  row: { id: string; agentId: string; claimId: string; proposalId: string; details: string; now: number },
): void {
  sql.run(
    queryBuilder
      .insertInto('ontology_contradictions')
      .values({
        id: row.id,
        agent_id: row.agentId,
        claim_id: row.claimId,
        proposal_id: row.proposalId,
        details: row.details,
        created_at: row.now,
      })
      .compile(),
  );
}

/** An open contradiction as Dreaming's tools show it. */
export interface OpenContradiction {
  readonly id: string;
  readonly claimId: string;
  readonly proposalId: string | null;
  readonly details: string;
}

/** The agent's open contradictions, oldest first, at most `limit`. */
export function listOpenContradictions(sql: SqlExecutor, agentId: string, limit: number): OpenContradiction[] {
  return sql.all(
    queryBuilder
      .selectFrom('ontology_contradictions')
      .select(['id', 'claim_id as claimId', 'proposal_id as proposalId', 'details'])
      .where('agent_id', '=', agentId)
      .where('status', '=', 'open')
      .orderBy('created_at')
      .limit(limit)
      .compile(),
  );
}
