import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';
import { get, type Program, perDialect, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

// The agent's MEMORY.md head: one row per agent, replaced only by compare-and-swap on the revision
// and hash the writer read, so two writers never overwrite each other.

/** The current head as readers see it. */
export interface MemoryHeadRow {
  readonly revision: number;
  readonly content: string;
  readonly contentHash: string;
  readonly updatedAt: number;
}

/** The agent's MEMORY.md head, or undefined before the first one is written. */
export function findMemoryHead(sql: SqlExecutor, agentId: string): MemoryHeadRow | undefined {
  return runSqliteProgram(sql, findMemoryHeadProgram(agentId));
}

/** {@link findMemoryHead} as a program (both dialects). */
export function* findMemoryHeadProgram(agentId: string): Program<MemoryHeadRow | undefined> {
  return yield* get<MemoryHeadRow>(
    queryBuilder
      .selectFrom('memory_md_heads')
      .select(['revision', 'content', 'content_hash as contentHash', 'updated_at as updatedAt'])
      .where('agent_id', '=', agentId),
  );
}

/** A new revision of the head. */
export interface MemoryHeadWrite {
  readonly agentId: string;
  readonly revision: number;
  readonly content: string;
  readonly contentHash: string;
  readonly entriesJson: string;
  readonly passId: string | null;
  readonly now: number;
}

/**
 * Replaces the head if it is still at `expected` (revision and hash). Returns the rows changed: 0
 * when another writer got there first.
 */
export function replaceMemoryHead(
  sql: SqlExecutor,
  head: MemoryHeadWrite,
  expected: { revision: number; contentHash: string },
): number {
  return runSqliteProgram(sql, replaceMemoryHeadProgram(head, expected));
}

/** {@link replaceMemoryHead} as a program (both dialects). */
export function* replaceMemoryHeadProgram(
  head: MemoryHeadWrite,
  expected: { revision: number; contentHash: string },
): Program<number> {
  const result = yield* run(
    queryBuilder
      .updateTable('memory_md_heads')
      .set({
        revision: head.revision,
        content: head.content,
        content_hash: head.contentHash,
        entries_json: head.entriesJson,
        pass_id: head.passId,
        updated_at: head.now,
      })
      .where('agent_id', '=', head.agentId)
      .where('revision', '=', expected.revision)
      .where('content_hash', '=', expected.contentHash),
  );
  return result.changes;
}

/** Writes the agent's first head unless one appeared meanwhile. Returns the rows changed (0 or 1). */
export function insertFirstMemoryHead(sql: SqlExecutor, head: MemoryHeadWrite): number {
  return runSqliteProgram(sql, insertFirstMemoryHeadProgram(head));
}

/** {@link insertFirstMemoryHead} as a program (both dialects). */
export function* insertFirstMemoryHeadProgram(head: MemoryHeadWrite): Program<number> {
  const params = [head.agentId, head.revision, head.content, head.contentHash, head.entriesJson, head.passId, head.now];
  const result = yield* run(
    perDialect(
      raw(
        'INSERT OR IGNORE INTO memory_md_heads (agent_id, revision, content, content_hash, entries_json, pass_id, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        ...params,
      ),
      raw(
        'INSERT INTO memory_md_heads (agent_id, revision, content, content_hash, entries_json, pass_id, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING',
        ...params,
      ),
    ),
  );
  return result.changes;
}

/** The head with its entries as written (JSON: `[{ text, evidence: [{ sourceRef, quote }] }]`). */
export function findMemoryHeadEntries(
  sql: SqlExecutor,
  agentId: string,
): { revision: number; contentHash: string; entriesJson: string } | undefined {
  return runSqliteProgram(sql, findMemoryHeadEntriesProgram(agentId));
}

/** {@link findMemoryHeadEntries} as a program (both dialects). */
export function* findMemoryHeadEntriesProgram(
  agentId: string,
): Program<{ revision: number; contentHash: string; entriesJson: string } | undefined> {
  return yield* get<{ revision: number; contentHash: string; entriesJson: string }>(
    queryBuilder
      .selectFrom('memory_md_heads')
      .select(['revision', 'content_hash as contentHash', 'entries_json as entriesJson'])
      .where('agent_id', '=', agentId),
  );
}
