import type { MemoryId } from '@memory/core';
import { chunkSizes, statementsBySize, valueRows } from '../internal/row-chunks.js';
import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { MemoryRow, MemoryRowUpdate, NewMemoryRow } from '../schema/memories.js';

// Hot path: raw SQL rather than a compiled builder query, one prepared statement per row count.
const MEMORY_COLUMNS = `INSERT INTO memories (
  id, agent_id, project, type, category, content, normalized_content, content_hash, confidence, importance,
  source_type, source_id, tags, who, why, linked_entities, pinned, is_deleted, deleted_at, expires_at,
  access_count, last_accessed, update_count, embedding_model, created_at, updated_at
) VALUES `;
const MEMORY_VALUES = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, ?, 0, NULL, 0, ?, ?, ?)';
// A row whose content is live in its scope already is skipped (also a second equal row of the same
// statement). On PostgreSQL ON CONFLICT names the partial unique index's columns and predicate.
const DEDUP = 'ON CONFLICT (agent_id, content_hash) WHERE is_deleted = 0 DO NOTHING';
const INSERT_MEMORY_RETURNING = `${MEMORY_COLUMNS}${MEMORY_VALUES}\n${DEDUP} RETURNING seq`;
const INSERT_MEMORY_RETURNING_PG = portable(INSERT_MEMORY_RETURNING).postgres.sql;
// Many rows: statements of 16, 8, 4, 2, 1 rows (row-chunks.ts), 21 bound values a row.
const insertMemoryRows = statementsBySize((n) => {
  const sqlite = `${MEMORY_COLUMNS}${valueRows(n, MEMORY_VALUES)}\n${DEDUP} RETURNING seq, id`;
  return { sqlite, postgres: portable(sqlite).postgres.sql };
});

/** The columns a new memory is written with; lifecycle counters start at their defaults. */
export type NewLiveMemory = Omit<
  NewMemoryRow,
  'seq' | 'is_deleted' | 'deleted_at' | 'access_count' | 'last_accessed' | 'update_count'
>;

/**
 * Inserts a new live memory unless one with the same content hash is live in the same scope (the
 * unique partial index decides, so there is no separate lookup first). Returns false for a duplicate.
 */
export function insertMemory(sql: SqlExecutor, row: NewLiveMemory): boolean {
  return insertMemoryRow(sql, row) !== undefined;
}

/** {@link insertMemory}, returning the new row's seq (undefined for a duplicate). */
export function insertMemoryRow(sql: SqlExecutor, row: NewLiveMemory): number | undefined {
  return runSqliteProgram(sql, insertMemoryRowProgram(row));
}

/** {@link insertMemoryRow} as a program (both dialects). */
export function* insertMemoryRowProgram(row: NewLiveMemory): Program<number | undefined> {
  const parameters = memoryParameters(row);
  const inserted = yield* get<{ seq: number }>(
    perDialect({ sql: INSERT_MEMORY_RETURNING, parameters }, { sql: INSERT_MEMORY_RETURNING_PG, parameters }),
  );
  return inserted?.seq;
}

/**
 * Inserts new live memories in order (seqs follow the array), in statements of up to
 * `rowsPerStatement` rows (a power of two; 16/8/4/2/1 as in row-chunks.ts), and returns the seq of
 * each row written by id. A row missing from the result was refused: by the unique partial index
 * when its content is live in its scope already, including an equal row earlier in `rows` (the
 * caller looks the live one up by hash). Both dialects.
 *
 * On SQLite give 1: `memories` has row triggers (its counts, the text index), so SQLite copies a
 * multi-row VALUES into a temporary table before inserting it, which cost more per row than the
 * statements saved (a tight loop of 100-row transactions, same schema: 38–45 µs CPU per row in
 * statements of 16 against 33–40 µs one per statement). On PostgreSQL each statement is a round trip.
 */
export function* insertMemoryRowsProgram(
  rows: readonly NewLiveMemory[],
  rowsPerStatement = 16,
): Program<Map<string, number>> {
  const seqs = new Map<string, number>();
  let i = 0;
  for (const n of chunkSizes(rows.length, rowsPerStatement)) {
    const parameters: unknown[] = [];
    for (let j = i; j < i + n; j++) parameters.push(...memoryParameters(rows[j] as NewLiveMemory));
    const statement = insertMemoryRows(n);
    // RETURNING's row order is not promised: the rows are matched by id.
    const inserted = yield* all<{ seq: number; id: string }>(
      perDialect({ sql: statement.sqlite, parameters }, { sql: statement.postgres, parameters }),
    );
    for (const row of inserted) seqs.set(row.id, row.seq);
    i += n;
  }
  return seqs;
}

const ADD_LIVE_COUNT = `INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n) VALUES (?, 'live', ?, 0, ?, ?)
  ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + excluded.n`;

/** The UTC day `memory_counts` files a never-recalled memory under, as SQLite computes it (`created_at / 86400000`). */
export function countDay(createdAt: number): number {
  return Number.isInteger(createdAt) ? Math.trunc(createdAt / 86_400_000) : createdAt / 86_400_000;
}

/**
 * Counts new live, never-recalled memories in `memory_counts` (migration 17): `n` rows of one
 * scope, embedding model ('' for none) and {@link countDay}. SQLite only: for the memory writer's
 * own inserts, which the insert trigger leaves to it (migration 21).
 */
export function* addLiveMemoryCountsProgram(
  counts: Iterable<{ readonly agentId: string; readonly model: string; readonly day: number; readonly n: number }>,
): Program<void> {
  for (const c of counts) yield* run(portable(ADD_LIVE_COUNT, c.agentId, c.model, c.day, c.n));
}

function memoryParameters(row: NewLiveMemory): unknown[] {
  return [
    row.id,
    row.agent_id,
    row.project ?? null,
    row.type,
    row.category ?? null,
    row.content,
    row.normalized_content,
    row.content_hash,
    row.confidence ?? 1,
    row.importance ?? 0.5,
    row.source_type ?? null,
    row.source_id ?? null,
    row.tags ?? '[]',
    row.who ?? null,
    row.why ?? null,
    row.linked_entities ?? '[]',
    row.pinned ?? 0,
    row.expires_at ?? null,
    row.embedding_model ?? null,
    row.created_at,
    row.updated_at,
  ];
}

const FIND_LIVE_BY_HASH = 'SELECT id FROM memories WHERE agent_id = ? AND content_hash = ? AND is_deleted = 0';

/** The live memory with this content hash in this agent's scope, if any. */
export function findLiveMemoryIdByHash(sql: SqlExecutor, agentId: string, contentHash: string): MemoryId | undefined {
  return sql.get<{ id: MemoryId }>(raw(FIND_LIVE_BY_HASH, agentId, contentHash))?.id;
}

/** {@link findLiveMemoryIdByHash} as a program (both dialects). */
export function* findLiveMemoryIdByHashProgram(agentId: string, contentHash: string): Program<MemoryId | undefined> {
  return (yield* get<{ id: MemoryId }>(portable(FIND_LIVE_BY_HASH, agentId, contentHash)))?.id;
}

const FIND_LIVE_HASHES = `SELECT content_hash AS hash FROM memories
  WHERE agent_id = ? AND is_deleted = 0 AND content_hash IN (SELECT value FROM json_each(?))`;

const FIND_LIVE_HASHES_POSTGRES = portable(`SELECT content_hash AS hash FROM memories
  WHERE agent_id = ? AND is_deleted = 0 AND content_hash = ANY(?::text[])`).postgres.sql;

/** Which of these content hashes a live memory of this agent's scope already has (one query for a batch). */
export function findLiveMemoryHashes(sql: SqlExecutor, agentId: string, hashes: readonly string[]): Set<string> {
  return runSqliteProgram(sql, findLiveMemoryHashesProgram(agentId, hashes));
}

/** {@link findLiveMemoryHashes} as a program (both dialects). */
export function* findLiveMemoryHashesProgram(agentId: string, hashes: readonly string[]): Program<Set<string>> {
  if (hashes.length === 0) return new Set();
  if (hashes.length === 1) {
    const [hash] = hashes as [string];
    return new Set((yield* findLiveMemoryIdByHashProgram(agentId, hash)) === undefined ? [] : [hash]);
  }
  const rows = yield* all<{ hash: string }>(
    perDialect(
      { sql: FIND_LIVE_HASHES, parameters: [agentId, JSON.stringify(hashes)] },
      { sql: FIND_LIVE_HASHES_POSTGRES, parameters: [agentId, [...hashes]] },
    ),
  );
  return new Set(rows.map((r) => r.hash));
}

/** A memory by id, only when it belongs to `agentId`. Deleted memories only with `includeDeleted`. */
export function findMemory(
  sql: SqlExecutor,
  agentId: string,
  id: string,
  options: { includeDeleted?: boolean } = {},
): MemoryRow | undefined {
  return runSqliteProgram(sql, findMemoryProgram(agentId, id, options));
}

/**
 * {@link findMemory} as a program (both dialects): another agent's id reads as missing. On
 * PostgreSQL the row has no `fts_scope` (a SQLite FTS5 artifact nothing reads).
 */
export function* findMemoryProgram(
  agentId: string,
  id: string,
  options: { includeDeleted?: boolean } = {},
): Program<MemoryRow | undefined> {
  let query = queryBuilder.selectFrom('memories').selectAll().where('id', '=', id).where('agent_id', '=', agentId);
  if (!options.includeDeleted) query = query.where('is_deleted', '=', 0);
  return yield* get(query);
}

/** Updates columns of a memory in `agentId`'s scope. Returns the number of rows changed (0 or 1). */
export function updateMemory(sql: SqlExecutor, agentId: string, id: string, patch: MemoryRowUpdate): number {
  return runSqliteProgram(sql, updateMemoryProgram(agentId, id, patch));
}

/** {@link updateMemory} as a program (both dialects). */
export function* updateMemoryProgram(agentId: string, id: string, patch: MemoryRowUpdate): Program<number> {
  return (yield* run(
    queryBuilder.updateTable('memories').set(patch).where('id', '=', id).where('agent_id', '=', agentId),
  )).changes;
}

/** Keeps a lossless JSON copy of a memory row before it changes or is removed, keyed by the history event. */
export function copyMemoryToCold(
  sql: SqlExecutor,
  row: MemoryRow,
  historyId: string,
  reason: string,
  now: number,
): void {
  runSqliteProgram(sql, copyMemoryToColdProgram(row, historyId, reason, now));
}

/** {@link copyMemoryToCold} as a program (both dialects). */
export function* copyMemoryToColdProgram(
  row: MemoryRow,
  historyId: string,
  reason: string,
  now: number,
): Program<void> {
  yield* run(
    queryBuilder
      .insertInto('memories_cold')
      .values({ id: historyId, agent_id: row.agent_id, row_json: JSON.stringify(row), reason, archived_at: now }),
  );
}
