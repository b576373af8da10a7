import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { ProposalRoute } from '../schema/ontology.js';

// Operations the Dreaming seam recorded for review instead of applying, and the contradictions
// between a proposed and an active claim.

/** Records an operation for review. */
export function insertProposal(sql: SqlExecutor, row: NewProposal): void {
  runSqliteProgram(sql, insertProposalProgram(row));
}

/** A proposal to record. */
export interface NewProposal {
  id: string;
  agentId: string;
  passId: string | null;
  actor: string;
  operation: string;
  operationJson: string;
  route: ProposalRoute;
  reason: string | null;
  now: number;
}

/** {@link insertProposal} as a program (both dialects). */
export function* insertProposalProgram(row: NewProposal): Program<void> {
  yield* run(
    queryBuilder.insertInto('ontology_proposals').values({
      id: row.id,
      agent_id: row.agentId,
      pass_id: row.passId,
      actor: row.actor,
      operation: row.operation,
      operation_json: row.operationJson,
      route: row.route,
      reason: row.reason,
      created_at: row.now,
    }),
  );
}

/** Records that a proposal contradicts an active claim (open until resolved). */
export function insertContradiction(sql: SqlExecutor, row: NewContradiction): void {
  runSqliteProgram(sql, insertContradictionProgram(row));
}

/** A contradiction to record. */
export interface NewContradiction {
  id: string;
  agentId: string;
  claimId: string;
  proposalId: string;
  details: string;
  now: number;
}

/** {@link insertContradiction} as a program (both dialects). */
export function* insertContradictionProgram(row: NewContradiction): Program<void> {
  yield* run(
    queryBuilder.insertInto('ontology_contradictions').values({
      id: row.id,
      agent_id: row.agentId,
      claim_id: row.claimId,
      proposal_id: row.proposalId,
      details: row.details,
      created_at: row.now,
    }),
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
  return runSqliteProgram(sql, listOpenContradictionsProgram(agentId, limit));
}

/** {@link listOpenContradictions} as a program (both dialects). */
export function* listOpenContradictionsProgram(agentId: string, limit: number): Program<OpenContradiction[]> {
  return yield* all<OpenContradiction>(
    queryBuilder
      .selectFrom('ontology_contradictions')
      .select(['id', 'claim_id as claimId', 'proposal_id as proposalId', 'details'])
      .where('agent_id', '=', agentId)
      .where('status', '=', 'open')
      .orderBy('created_at')
      .limit(limit),
  );
}

/** A proposal as the review reads return it (the operation still serialized). */
export interface ProposalView {
  readonly id: string;
  readonly passId: string | null;
  readonly actor: string;
  readonly operation: string;
  readonly operationJson: string;
  readonly route: ProposalRoute;
  readonly reason: string | null;
  readonly status: 'pending' | 'accepted' | 'rejected';
  readonly createdAt: number;
  readonly decidedAt: number | null;
  readonly decidedBy: string | null;
  readonly decisionReason: string | null;
  /** The contradiction recorded with it (route `contradiction`), if any. */
  readonly contradictionId: string | null;
  readonly contradictedClaimId: string | null;
  readonly contradictionStatus: 'open' | 'resolved' | null;
}

const PROPOSAL_SELECT = `SELECT p.id, p.pass_id AS "passId", p.actor, p.operation, p.operation_json AS "operationJson", p.route, p.reason,
    p.status, p.created_at AS "createdAt", p.decided_at AS "decidedAt", p.decided_by AS "decidedBy", p.decision_reason AS "decisionReason",
    c.id AS "contradictionId", c.claim_id AS "contradictedClaimId", c.status AS "contradictionStatus"
  FROM ontology_proposals AS p LEFT JOIN ontology_contradictions AS c ON c.proposal_id = p.id`;

/**
 * The agent's proposals, oldest first (a review queue), after the keyset `after` (created_at, id),
 * filtered by status and route when given, at most `limit`.
 */
export function listProposals(
  sql: SqlExecutor,
  agentId: string,
  filter: { status: string | null; route: string | null },
  after: { createdAt: number; id: string } | null,
  limit: number,
): ProposalView[] {
  return runSqliteProgram(sql, listProposalsProgram(agentId, filter, after, limit));
}

/** {@link listProposals} as a program (both dialects). */
export function* listProposalsProgram(
  agentId: string,
  filter: { status: string | null; route: string | null },
  after: { createdAt: number; id: string } | null,
  limit: number,
): Program<ProposalView[]> {
  return yield* all<ProposalView>(
    portable(
      `${PROPOSAL_SELECT}
       WHERE p.agent_id = ? AND (CAST(? AS TEXT) IS NULL OR p.status = ?) AND (CAST(? AS TEXT) IS NULL OR p.route = ?)
         AND (CAST(? AS INTEGER) IS NULL OR (p.created_at, p.id) > (CAST(? AS BIGINT), CAST(? AS TEXT)))
       ORDER BY p.created_at, p.id LIMIT ?`,
      agentId,
      filter.status,
      filter.status,
      filter.route,
      filter.route,
      after === null ? null : 1,
      after?.createdAt ?? null,
      after?.id ?? null,
      limit,
    ),
  );
}

/** A proposal of the agent, or undefined (another scope's is answered the same as a missing one). */
export function findProposal(sql: SqlExecutor, agentId: string, id: string): ProposalView | undefined {
  return runSqliteProgram(sql, findProposalProgram(agentId, id));
}

/** {@link findProposal} as a program (both dialects). */
export function* findProposalProgram(agentId: string, id: string): Program<ProposalView | undefined> {
  return yield* get<ProposalView>(portable(`${PROPOSAL_SELECT} WHERE p.id = ? AND p.agent_id = ?`, id, agentId));
}

/** A reviewer's decision on a proposal. */
export interface ProposalDecision {
  agentId: string;
  id: string;
  status: 'accepted' | 'rejected';
  by: string;
  reason: string | null;
  now: number;
}

/**
 * Records the decision on a pending proposal and resolves its contradiction. Returns false when
 * the proposal was no longer pending (nothing changed).
 */
export function decideProposal(sql: SqlExecutor, decision: ProposalDecision): boolean {
  return runSqliteProgram(sql, decideProposalProgram(decision));
}

/** {@link decideProposal} as a program (both dialects). */
export function* decideProposalProgram(decision: ProposalDecision): Program<boolean> {
  const changed = (yield* run(
    portable(
      "UPDATE ontology_proposals SET status = ?, decided_at = ?, decided_by = ?, decision_reason = ? WHERE id = ? AND agent_id = ? AND status = 'pending'",
      decision.status,
      decision.now,
      decision.by,
      decision.reason,
      decision.id,
      decision.agentId,
    ),
  )).changes;
  if (changed === 0) return false;
  yield* run(
    portable(
      "UPDATE ontology_contradictions SET status = 'resolved', resolved_at = ? WHERE proposal_id = ? AND agent_id = ? AND status = 'open'",
      decision.now,
      decision.id,
      decision.agentId,
    ),
  );
  return true;
}
