import { raw, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

// Reads for conflict detection's key index (ingest's conflict-keys.ts): the text of a scope's live
// memories of the checked kinds, walked in seq order, so the index can be built in bounded pages and
// caught up with rows written since (by any path) without reading the scope again. Each read has a
// program form (`...Program`) for either dialect; SQLite's connection-level `data_version`
// (`historyMark`, `dataVersion`) has none: on PostgreSQL the index catches up per scope instead
// (`scopeHistorySinceProgram`).

/** What the conflict rule reads of a memory. */
export interface ConflictSourceRow {
  readonly seq: number;
  readonly id: string;
  readonly type: string;
  readonly content: string;
  readonly contentHash: string;
  readonly linkedEntities: string;
}

// PostgreSQL folds unquoted aliases to lower case: quoted, the rows have the same keys on both.
const columns = (m: string) =>
  `${m}seq AS seq, ${m}id AS id, ${m}type AS type, ${m}content AS content, ${m}content_hash AS "contentHash",
   ${m}linked_entities AS "linkedEntities"`;

// `LIMIT (? + 0)`, not `LIMIT ?`: SQLite (3.53, as bundled) plans a bare bound LIMIT with its value, which marks
// the statement for a new prepare whenever that parameter is bound again, i.e. on every run (this
// statement parsed and planned once per remember of a checked kind: 12 against 3 µs of CPU).
const SOURCES_AFTER = `SELECT ${columns('')} FROM memories
  WHERE seq > ? AND +agent_id = ? AND is_deleted = 0 ORDER BY seq LIMIT (? + 0)`;
// No `+` (SQLite's planner hint) on PostgreSQL: the seq primary key drives the range there too.
const SOURCES_AFTER_POSTGRES = portable(`SELECT ${columns('')} FROM memories
  WHERE seq > ? AND agent_id = ? AND is_deleted = 0 ORDER BY seq LIMIT ?`).postgres.sql;

/**
 * Live memories of `agentId` with `seq > afterSeq`, in seq order (the caller keeps the kinds it
 * checks). Driven by the rowid range, so catching up after a batch reads only the rows written since
 * (`+agent_id` keeps the planner off the agent's index, which read every row of the scope once per
 * batch).
 */
export function conflictSourcesAfter(
  sql: SqlExecutor,
  agentId: string,
  afterSeq: number,
  limit: number,
): ConflictSourceRow[] {
  return runSqliteProgram(sql, conflictSourcesAfterProgram(agentId, afterSeq, limit));
}

/** {@link conflictSourcesAfter} as a program (both dialects). */
export function* conflictSourcesAfterProgram(
  agentId: string,
  afterSeq: number,
  limit: number,
): Program<ConflictSourceRow[]> {
  const parameters = [afterSeq, agentId, limit];
  return yield* all<ConflictSourceRow>(
    perDialect({ sql: SOURCES_AFTER, parameters }, { sql: SOURCES_AFTER_POSTGRES, parameters }),
  );
}

/** What the key index's catch-up reads of a row before deciding whether it needs the text. */
export interface ConflictHead {
  readonly seq: number;
  readonly id: string;
  readonly type: string;
  readonly contentHash: string;
}

const HEADS_AFTER = `SELECT seq, id, type, content_hash FROM memories
  WHERE seq > ? AND +agent_id = ? AND is_deleted = 0 ORDER BY seq LIMIT (? + 0)`;

/**
 * {@link conflictSourcesAfter} without the text: each row's seq, id, kind and content hash (SQLite).
 * The key index reads the text ({@link conflictSourcesOf}) only of rows whose content it does not
 * already know, so catching up after this engine's own batch does not read its rows' text back.
 * Read as arrays (no object per row).
 */
export function conflictHeadsAfter(sql: SqlExecutor, agentId: string, afterSeq: number, limit: number): ConflictHead[] {
  const rows = sql.arrays(raw(HEADS_AFTER, afterSeq, agentId, limit));
  const heads: ConflictHead[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as [number, string, string, string];
    heads[i] = { seq: row[0], id: row[1], type: row[2], contentHash: row[3] };
  }
  return heads;
}

const SOURCES_OF = `SELECT ${columns('m.')}
  FROM json_each(?) AS wanted CROSS JOIN memories AS m ON m.id = wanted.value
  WHERE m.agent_id = ? AND m.is_deleted = 0`;
const SOURCES_OF_POSTGRES = portable(`SELECT ${columns('m.')} FROM memories AS m
  WHERE m.id = ANY(?::text[]) AND m.agent_id = ? AND m.is_deleted = 0`).postgres.sql;

/** The live memories of `agentId` among `ids` (any kind; unordered). */
export function conflictSourcesOf(sql: SqlExecutor, agentId: string, ids: readonly string[]): ConflictSourceRow[] {
  return runSqliteProgram(sql, conflictSourcesOfProgram(agentId, ids));
}

/** {@link conflictSourcesOf} as a program (both dialects). */
export function* conflictSourcesOfProgram(agentId: string, ids: readonly string[]): Program<ConflictSourceRow[]> {
  if (ids.length === 0) return [];
  return yield* all<ConflictSourceRow>(
    perDialect(
      { sql: SOURCES_OF, parameters: [JSON.stringify(ids), agentId] },
      { sql: SOURCES_OF_POSTGRES, parameters: [[...ids], agentId] },
    ),
  );
}

const CANDIDATE_VECTORS = `SELECT e.source_id AS "memoryId", e.vector
  FROM json_each(?) AS wanted
  CROSS JOIN embeddings AS e ON e.source_type = 'memory' AND e.source_id = wanted.value AND e.model = ?
  WHERE e.agent_id = ?`;
const CANDIDATE_VECTORS_POSTGRES = portable(`SELECT e.source_id AS "memoryId", e.vector FROM embeddings AS e
  WHERE e.source_type = 'memory' AND e.source_id = ANY(?::text[]) AND e.model = ? AND e.agent_id = ?`).postgres.sql;
// The same by the memories' seqs (what the key index holds): each a rowid (primary key) lookup.
const CANDIDATE_VECTORS_AT = `SELECT m.id AS "memoryId", e.vector
  FROM json_each(?) AS wanted
  CROSS JOIN memories AS m ON m.seq = wanted.value
  CROSS JOIN embeddings AS e ON e.source_type = 'memory' AND e.source_id = m.id AND e.model = ?
  WHERE m.agent_id = ? AND e.agent_id = m.agent_id`;
const CANDIDATE_VECTORS_AT_POSTGRES = portable(`SELECT m.id AS "memoryId", e.vector FROM memories AS m
  JOIN embeddings AS e ON e.source_type = 'memory' AND e.source_id = m.id AND e.model = ? AND e.agent_id = m.agent_id
  WHERE m.seq = ANY(?::bigint[]) AND m.agent_id = ?`).postgres.sql;

/**
 * The `model` vectors of the candidate memories of `agentId` named by id (`ids`) or by seq (`seqs`,
 * as the conflict key index holds them), unordered; a memory named both ways comes back twice. What
 * the conflict rule compares an input's vector with. (Recall reads the same rows for its own purposes.)
 */
export function* conflictCandidateVectorsProgram(
  agentId: string,
  model: string,
  ids: readonly string[],
  seqs: readonly number[] = [],
): Program<Array<{ memoryId: string; vector: Buffer }>> {
  const rows: Array<{ memoryId: string; vector: Buffer }> = [];
  if (ids.length > 0)
    rows.push(
      ...(yield* all<{ memoryId: string; vector: Buffer }>(
        perDialect(
          { sql: CANDIDATE_VECTORS, parameters: [JSON.stringify(ids), model, agentId] },
          { sql: CANDIDATE_VECTORS_POSTGRES, parameters: [[...ids], model, agentId] },
        ),
      )),
    );
  if (seqs.length > 0)
    rows.push(
      ...(yield* all<{ memoryId: string; vector: Buffer }>(
        perDialect(
          { sql: CANDIDATE_VECTORS_AT, parameters: [JSON.stringify(seqs), model, agentId] },
          { sql: CANDIDATE_VECTORS_AT_POSTGRES, parameters: [model, [...seqs], agentId] },
        ),
      )),
    );
  return rows;
}

/** A memory a history row names: every change the memory writer makes writes one. */
export interface ChangedMemory {
  readonly agentId: string;
  readonly memoryId: string;
}

/** The row with the highest seq in `memories` (any agent, live or not), or none in an empty table. */
export interface MemoriesTop {
  readonly seq: number;
  readonly id: string | null;
}

/**
 * The highest `memory_history` seq, read with this connection's `data_version` in one read, so a
 * cache can tell which history rows came after it last looked and whether another connection
 * committed meanwhile; and the `memories` row with the highest seq (see {@link memoriesTopProgram}).
 * SQLite only (PostgreSQL has no `data_version`: see {@link scopeHistorySinceProgram}).
 */
export function historyMark(
  sql: SqlExecutor,
  withTop = true,
): {
  readonly version: number;
  readonly seq: number;
  /** Only when asked for (`withTop`). */
  readonly top: MemoriesTop | undefined;
} {
  // One statement, so all come from one snapshot: read apart, another connection's commit could
  // fall between them and its history rows be counted as seen (or as this connection's own).
  const row = sql.get<{ version: number; seq: number | null; topSeq?: number | null; topId?: string | null }>(
    raw(withTop ? MARK_WITH_TOP : MARK),
  );
  return {
    version: row?.version ?? 0,
    seq: row?.seq ?? 0,
    top: withTop ? { seq: row?.topSeq ?? 0, id: row?.topId ?? null } : undefined,
  };
}

const MARK = 'SELECT data_version AS version, (SELECT max(seq) FROM memory_history) AS seq FROM pragma_data_version';
// Scalar subqueries (each a seek to the last rowid), not a join on a subquery: that one is
// materialized into a temporary table on every run.
const MARK_WITH_TOP = `SELECT data_version AS version, (SELECT max(seq) FROM memory_history) AS seq,
  (SELECT seq FROM memories ORDER BY seq DESC LIMIT 1) AS topSeq,
  (SELECT id FROM memories ORDER BY seq DESC LIMIT 1) AS topId
  FROM pragma_data_version`;

const TOP = 'SELECT seq, id FROM memories ORDER BY seq DESC LIMIT 1';

/**
 * The `memories` row with the highest seq. SQLite gives a new row the highest seq plus one, so a
 * writer that reads the top before and after its own inserts, inside its transaction, can tell
 * that the rows between are exactly the ones it inserted (the key index then takes them without
 * reading them back).
 */
export function* memoriesTopProgram(): Program<MemoriesTop> {
  const row = yield* get<{ seq: number; id: string }>(portable(TOP));
  return { seq: row?.seq ?? 0, id: row?.id ?? null };
}

/** The memories changed by history rows with `afterSeq < seq <= toSeq` (a rowid range). */
export function memoryChangesBetween(sql: SqlExecutor, afterSeq: number, toSeq: number): ChangedMemory[] {
  return sql.all<ChangedMemory>(
    raw(
      'SELECT agent_id AS agentId, memory_id AS memoryId FROM memory_history WHERE seq > ? AND seq <= ?',
      afterSeq,
      toSeq,
    ),
  );
}

/**
 * The memories of `agentId` changed by history rows past `afterSeq`, and the new mark (the highest
 * history seq now), on either dialect; without `afterSeq`, only the mark. For PostgreSQL, where there is no `data_version`: run it in a
 * write holding the scope's lock keys (`memoryScopeLockKeys`). Every memory writer of the scope holds
 * them from before its transaction begins until after it commits, so while they are held no history
 * row of the scope is in flight, and none below the mark can commit later.
 */
export function* scopeHistorySinceProgram(
  agentId: string,
  afterSeq: number | undefined,
): Program<{ readonly mark: number; readonly memoryIds: string[] }> {
  const top = yield* get<{ seq: number | null }>(portable('SELECT max(seq) AS seq FROM memory_history'));
  const mark = Math.max(afterSeq ?? 0, top?.seq ?? 0);
  if (afterSeq === undefined || mark === afterSeq) return { mark, memoryIds: [] };
  const rows = yield* all<{ memoryId: string }>(
    portable(
      'SELECT memory_id AS "memoryId" FROM memory_history WHERE seq > ? AND seq <= ? AND agent_id = ?',
      afterSeq,
      mark,
      agentId,
    ),
  );
  return { mark, memoryIds: [...new Set(rows.map((r) => r.memoryId))] };
}

/**
 * SQLite's `data_version` of this connection: it changes when another connection (another process)
 * commits changes (a checkpoint does not), so a cache of the file's content can tell it may be stale.
 */
export function dataVersion(sql: SqlExecutor): number {
  return sql.get<{ data_version: number }>(raw('PRAGMA data_version'))?.data_version ?? 0;
}
