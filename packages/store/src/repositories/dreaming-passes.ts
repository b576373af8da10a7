import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { DreamingPassStatus } from '../schema/dreaming.js';

// The Dreaming control plane: per-agent state (failure streak, last pass, runbook notes), passes and
// their tool calls, and which agents could have work.

/** An agent's pass bookkeeping (a row written only by the runbook tool holds the defaults). */
export interface DreamingStateView {
  readonly consecutive_failures: number;
  readonly last_failure_at: number | null;
  readonly last_pass_at: number | null;
  readonly last_mode: string | null;
}

/** The agent's Dreaming state, or undefined before its first pass or runbook note. */
export function findDreamingState(sql: SqlExecutor, agentId: string): DreamingStateView | undefined {
  return runSqliteProgram(sql, findDreamingStateProgram(agentId));
}

/** {@link findDreamingState} as a program (both dialects). */
export function* findDreamingStateProgram(agentId: string): Program<DreamingStateView | undefined> {
  return yield* get(
    queryBuilder
      .selectFrom('dreaming_state')
      .select(['consecutive_failures', 'last_failure_at', 'last_pass_at', 'last_mode'])
      .where('agent_id', '=', agentId),
  );
}

// A failure extends the streak and stamps last_failure_at; a success resets the streak and stamps
// last_pass_at. The runbook column is never touched here.
const RECORD_OUTCOME = `INSERT INTO dreaming_state (agent_id, consecutive_failures, last_failure_at, last_pass_at, last_mode, updated_at) VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (agent_id) DO UPDATE SET
    consecutive_failures = CASE WHEN ? THEN dreaming_state.consecutive_failures + 1 ELSE 0 END,
    last_failure_at = CASE WHEN ? THEN excluded.last_failure_at ELSE dreaming_state.last_failure_at END,
    last_pass_at = CASE WHEN ? THEN dreaming_state.last_pass_at ELSE excluded.last_pass_at END,
    last_mode = excluded.last_mode, updated_at = excluded.updated_at`;
// PostgreSQL: CASE needs a boolean; the flag is compared with 1.
const RECORD_OUTCOME_PG = `INSERT INTO dreaming_state (agent_id, consecutive_failures, last_failure_at, last_pass_at, last_mode, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (agent_id) DO UPDATE SET
    consecutive_failures = CASE WHEN $7::integer = 1 THEN dreaming_state.consecutive_failures + 1 ELSE 0 END,
    last_failure_at = CASE WHEN $8::integer = 1 THEN excluded.last_failure_at ELSE dreaming_state.last_failure_at END,
    last_pass_at = CASE WHEN $9::integer = 1 THEN dreaming_state.last_pass_at ELSE excluded.last_pass_at END,
    last_mode = excluded.last_mode, updated_at = excluded.updated_at`;

/** Records a finished (completed or failed) pass in the agent's state. */
export function recordPassOutcome(
  sql: SqlExecutor,
  outcome: { agentId: string; failed: boolean; mode: string | null; now: number },
): void {
  runSqliteProgram(sql, recordPassOutcomeProgram(outcome));
}

/** {@link recordPassOutcome} as a program (both dialects). */
export function* recordPassOutcomeProgram(outcome: {
  agentId: string;
  failed: boolean;
  mode: string | null;
  now: number;
}): Program<void> {
  const failed = outcome.failed ? 1 : 0;
  const params = [
    outcome.agentId,
    failed,
    outcome.failed ? outcome.now : null,
    outcome.failed ? null : outcome.now,
    outcome.mode,
    outcome.now,
    failed,
    failed,
    failed,
  ];
  yield* run(perDialect(raw(RECORD_OUTCOME, ...params), raw(RECORD_OUTCOME_PG, ...params)));
}

/** The agent's runbook notes ('' when none). */
export function findRunbookNotes(sql: SqlExecutor, agentId: string): string {
  return runSqliteProgram(sql, findRunbookNotesProgram(agentId));
}

/** {@link findRunbookNotes} as a program (both dialects). */
export function* findRunbookNotesProgram(agentId: string): Program<string> {
  const row = yield* get(queryBuilder.selectFrom('dreaming_state').select('runbook').where('agent_id', '=', agentId));
  return row?.runbook ?? '';
}

/** Replaces the agent's runbook notes. */
export function saveRunbookNotes(sql: SqlExecutor, agentId: string, notes: string, now: number): void {
  runSqliteProgram(sql, saveRunbookNotesProgram(agentId, notes, now));
}

/** {@link saveRunbookNotes} as a program (both dialects). */
export function* saveRunbookNotesProgram(agentId: string, notes: string, now: number): Program<void> {
  yield* run(
    portable(
      'INSERT INTO dreaming_state (agent_id, runbook, updated_at) VALUES (?, ?, ?) ON CONFLICT (agent_id) DO UPDATE SET runbook = excluded.runbook, updated_at = excluded.updated_at',
      agentId,
      notes,
      now,
    ),
  );
}

/** A pass as it is recorded when it ends. JSON fields are serialized by the caller. */
export interface DreamingPassRecord {
  readonly id: string;
  readonly agentId: string;
  readonly trigger: string;
  readonly mode: string;
  readonly status: DreamingPassStatus;
  readonly usageJson: string;
  readonly mutationsJson: string;
  readonly summary: string | null;
  readonly error: string | null;
  readonly evidenceWindowJson: string;
  readonly runbookJson: string;
  readonly startedAt: number;
  readonly finishedAt: number;
}

/** Records a pass. */
export function insertDreamingPass(sql: SqlExecutor, pass: DreamingPassRecord): void {
  runSqliteProgram(sql, insertDreamingPassProgram(pass));
}

/** {@link insertDreamingPass} as a program (both dialects). */
export function* insertDreamingPassProgram(pass: DreamingPassRecord): Program<void> {
  yield* run(
    queryBuilder.insertInto('dreaming_passes').values({
      id: pass.id,
      agent_id: pass.agentId,
      trigger: pass.trigger,
      mode: pass.mode,
      status: pass.status,
      usage_json: pass.usageJson,
      mutations_json: pass.mutationsJson,
      summary: pass.summary,
      error: pass.error,
      evidence_window_json: pass.evidenceWindowJson,
      runbook_json: pass.runbookJson,
      started_at: pass.startedAt,
      finished_at: pass.finishedAt,
    }),
  );
}

const INSERT_TOOL_CALL =
  'INSERT INTO dreaming_tool_calls (pass_id, ordinal, tool, arguments, result, ok, duration_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';

/** One tool call of a pass, as it is recorded. */
export interface DreamingToolCallRecord {
  readonly passId: string;
  readonly ordinal: number;
  readonly tool: string;
  readonly arguments: string;
  readonly result: string;
  readonly ok: boolean;
  readonly durationMs: number;
  readonly now: number;
}

/** Records one tool call of a pass (called once per call, so one cached statement). */
export function insertDreamingToolCall(sql: SqlExecutor, call: DreamingToolCallRecord): void {
  runSqliteProgram(sql, insertDreamingToolCallProgram(call));
}

/** {@link insertDreamingToolCall} as a program (both dialects). */
export function* insertDreamingToolCallProgram(call: DreamingToolCallRecord): Program<void> {
  yield* run(
    portable(
      INSERT_TOOL_CALL,
      call.passId,
      call.ordinal,
      call.tool,
      call.arguments,
      call.result,
      call.ok ? 1 : 0,
      call.durationMs,
      call.now,
    ),
  );
}

// Agents that could have work: completed evidence or open attention.
const CANDIDATE_AGENTS = `
  SELECT agent_id FROM session_transcripts WHERE completed_at IS NOT NULL
  UNION SELECT agent_id FROM memories WHERE is_deleted = 0
  UNION SELECT agent_id FROM dreaming_attention WHERE resolved_at IS NULL
  ORDER BY agent_id LIMIT ?`;

/** Agents with completed evidence or open attention, by id, at most `limit`. */
export function dreamingCandidateAgents(sql: SqlExecutor, limit: number): string[] {
  return runSqliteProgram(sql, dreamingCandidateAgentsProgram(limit));
}

/** {@link dreamingCandidateAgents} as a program (both dialects; ids compared bytewise on both). */
export function* dreamingCandidateAgentsProgram(limit: number): Program<string[]> {
  const rows = yield* all<{ agent_id: string }>(
    perDialect(
      raw(CANDIDATE_AGENTS, limit),
      raw(
        `SELECT agent_id FROM (
           SELECT agent_id FROM session_transcripts WHERE completed_at IS NOT NULL
           UNION SELECT agent_id FROM memories WHERE is_deleted = 0
           UNION SELECT agent_id FROM dreaming_attention WHERE resolved_at IS NULL) AS a
         ORDER BY agent_id COLLATE "C" LIMIT $1`,
        limit,
      ),
    ),
  );
  return rows.map((r) => r.agent_id);
}

/** A recorded pass as the review reads return it (JSON columns still serialized). */
export interface DreamingPassView {
  readonly id: string;
  readonly trigger: string;
  readonly mode: string;
  readonly status: DreamingPassStatus;
  readonly usageJson: string;
  readonly mutationsJson: string;
  readonly summary: string | null;
  readonly error: string | null;
  readonly evidenceWindowJson: string;
  readonly runbookJson: string;
  readonly startedAt: number;
  readonly finishedAt: number | null;
  readonly toolCalls: number;
}

// Aliases are quoted: PostgreSQL folds unquoted ones to lower case (SQLite reads them the same).
const PASS_SELECT = `SELECT p.id, p.trigger, p.mode, p.status, p.usage_json AS "usageJson", p.mutations_json AS "mutationsJson",
    p.summary, p.error, p.evidence_window_json AS "evidenceWindowJson", p.runbook_json AS "runbookJson",
    p.started_at AS "startedAt", p.finished_at AS "finishedAt",
    (SELECT count(*) FROM dreaming_tool_calls AS t WHERE t.pass_id = p.id) AS "toolCalls"
  FROM dreaming_passes AS p`;

/** The agent's passes, newest first, before the keyset `before` (started_at, id), at most `limit`. */
export function listDreamingPasses(
  sql: SqlExecutor,
  agentId: string,
  status: string | null,
  before: { startedAt: number; id: string } | null,
  limit: number,
): DreamingPassView[] {
  return runSqliteProgram(sql, listDreamingPassesProgram(agentId, status, before, limit));
}

/** {@link listDreamingPasses} as a program (both dialects). */
export function* listDreamingPassesProgram(
  agentId: string,
  status: string | null,
  before: { startedAt: number; id: string } | null,
  limit: number,
): Program<DreamingPassView[]> {
  return yield* all<DreamingPassView>(
    portable(
      `${PASS_SELECT} WHERE p.agent_id = ? AND (CAST(? AS TEXT) IS NULL OR p.status = ?)
         AND (CAST(? AS INTEGER) IS NULL OR (p.started_at, p.id) < (CAST(? AS BIGINT), CAST(? AS TEXT)))
       ORDER BY p.started_at DESC, p.id DESC LIMIT ?`,
      agentId,
      status,
      status,
      before === null ? null : 1,
      before?.startedAt ?? null,
      before?.id ?? null,
      limit,
    ),
  );
}

/** One pass of the agent, or undefined (another scope's is answered like a missing one). */
export function findDreamingPass(sql: SqlExecutor, agentId: string, passId: string): DreamingPassView | undefined {
  return runSqliteProgram(sql, findDreamingPassProgram(agentId, passId));
}

/** {@link findDreamingPass} as a program (both dialects). */
export function* findDreamingPassProgram(agentId: string, passId: string): Program<DreamingPassView | undefined> {
  return yield* get<DreamingPassView>(portable(`${PASS_SELECT} WHERE p.id = ? AND p.agent_id = ?`, passId, agentId));
}

/** A tool call as the review reads return it. */
export interface DreamingToolCallView {
  ordinal: number;
  tool: string;
  arguments: string;
  result: string;
  ok: 0 | 1;
  durationMs: number;
  createdAt: number;
}

/** A pass's tool calls in order (bounded by the pass's own tool-call cap), at most `limit`. */
export function listDreamingToolCalls(sql: SqlExecutor, passId: string, limit: number): DreamingToolCallView[] {
  return runSqliteProgram(sql, listDreamingToolCallsProgram(passId, limit));
}

/** {@link listDreamingToolCalls} as a program (both dialects). */
export function* listDreamingToolCallsProgram(passId: string, limit: number): Program<DreamingToolCallView[]> {
  return (yield* all(
    queryBuilder
      .selectFrom('dreaming_tool_calls')
      .select(['ordinal', 'tool', 'arguments', 'result', 'ok', 'duration_ms as durationMs', 'created_at as createdAt'])
      .where('pass_id', '=', passId)
      .orderBy('ordinal')
      .limit(limit),
  )) as DreamingToolCallView[];
}
