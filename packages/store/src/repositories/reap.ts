import type { SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { insertHistoryProgram } from './history.js';

/** A stale low-importance memory: reaping gives it `expires_at`. */
export interface ReapCandidate {
  readonly seq: number;
  readonly id: string;
  readonly agentId: string;
  readonly importance: number;
  readonly lastUsed: number;
}

// One bounded range of seq per step: the filter can match few rows, so walking by LIMIT alone could
// read the whole table in one statement. Pinned, forgotten and already-expiring memories are left.
const CANDIDATES = `
  SELECT seq, id, agent_id AS "agentId", importance, coalesce(last_accessed, created_at) AS "lastUsed"
  FROM memories
  WHERE seq > ? AND seq <= ? AND is_deleted = 0 AND pinned = 0 AND expires_at IS NULL
    AND importance <= ? AND coalesce(last_accessed, created_at) < ?
  ORDER BY seq`;

/**
 * Memories in the seq range (after, after + scanRows] due for reaping, and where the next range
 * starts (`next` is 0 once the range passed the last memory, so the walk starts over next run).
 */
export function reapCandidates(
  sql: SqlExecutor,
  range: { after: number; scanRows: number },
  rule: { maxImportance: number; staleBefore: number },
): { candidates: ReapCandidate[]; next: number } {
  return runSqliteProgram(sql, reapCandidatesProgram(range, rule));
}

/** {@link reapCandidates} as a program (both dialects). */
export function* reapCandidatesProgram(
  range: { after: number; scanRows: number },
  rule: { maxImportance: number; staleBefore: number },
): Program<{ candidates: ReapCandidate[]; next: number }> {
  const until = range.after + range.scanRows;
  const candidates = yield* all<ReapCandidate>(
    portable(CANDIDATES, range.after, until, rule.maxImportance, rule.staleBefore),
  );
  const last = (yield* get<{ seq: number | null }>(portable('SELECT max(seq) AS seq FROM memories')))?.seq ?? 0;
  return { candidates, next: until >= last ? 0 : until };
}

const COUNT_CANDIDATES = `SELECT count(*) AS n FROM memories WHERE is_deleted = 0 AND pinned = 0 AND expires_at IS NULL
         AND importance <= ? AND coalesce(last_accessed, created_at) < ?`;

/** How many memories reaping would expire now (a full count: for the dry run, not the schedule). */
export function countReapCandidates(sql: SqlExecutor, rule: { maxImportance: number; staleBefore: number }): number {
  return runSqliteProgram(sql, countReapCandidatesProgram(rule));
}

/** {@link countReapCandidates} as a program (both dialects). */
export function* countReapCandidatesProgram(rule: { maxImportance: number; staleBefore: number }): Program<number> {
  return (yield* get<{ n: number }>(portable(COUNT_CANDIDATES, rule.maxImportance, rule.staleBefore)))?.n ?? 0;
}

const EXPIRE = `UPDATE memories SET expires_at = ?, updated_at = ? WHERE seq = ? AND is_deleted = 0 AND pinned = 0
         AND expires_at IS NULL AND importance <= ? AND coalesce(last_accessed, created_at) < ?`;

/**
 * Gives each memory `expires_at = now` (never a delete) and records it in history with the rule
 * that reaped it. Returns how many were reaped (a row changed since it was read is left).
 */
export function reapMemories(
  sql: SqlExecutor,
  memories: readonly ReapCandidate[],
  rule: { maxImportance: number; staleBefore: number; afterDays: number },
  now: number,
  nextId: () => string,
): number {
  return runSqliteProgram(sql, reapMemoriesProgram(memories, rule, now, nextId));
}

/** {@link reapMemories} as a program (both dialects: no text or vector changes, so no index to follow). */
export function* reapMemoriesProgram(
  memories: readonly ReapCandidate[],
  rule: { maxImportance: number; staleBefore: number; afterDays: number },
  now: number,
  nextId: () => string,
): Program<number> {
  let reaped = 0;
  for (const m of memories) {
    const changed = (yield* run(portable(EXPIRE, now, now, m.seq, rule.maxImportance, rule.staleBefore))).changes;
    if (changed === 0) continue;
    reaped++;
    yield* insertHistoryProgram({
      id: nextId(),
      memory_id: m.id,
      agent_id: m.agentId,
      event: 'updated',
      old_content: null,
      new_content: null,
      changed_by: 'engine',
      actor_type: 'engine',
      reason: `reaped: importance ${m.importance} <= ${rule.maxImportance} and not accessed for ${rule.afterDays} days`,
      metadata: JSON.stringify({ changed: ['expires_at'], reaped: true, expiresAt: now, lastUsed: m.lastUsed }),
      session_id: null,
      request_id: null,
      created_at: now,
    });
  }
  return reaped;
}
