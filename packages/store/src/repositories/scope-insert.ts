import { MemoryError } from '@memory/core';
import type { SqlExecutor } from '../internal/sql.js';
import { all, type Dialect, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { findNoteProgram, indexInsertedNoteProgram } from './notes.js';
import { omittedColumns, type ScopeRow, type ScopeTable } from './scope-copy.js';
import { indexTextRowsProgram } from './text-index-writes.js';

// The import side of a scope copy: exported rows back into a scope, checked against the table's
// own columns, and who owns an id already.

/**
 * Each table's columns as read from the schema, kept for the inserts that follow. An import passes
 * one for its whole run, so a large import reads each table's columns once (on PostgreSQL through
 * `information_schema`, a catalog query) instead of once per row. The schema does not change while a
 * store is open: migrations run when it opens.
 */
export type ScopeColumns = Map<ScopeTable, ReadonlySet<string>>;

// Column names are checked against the table itself, so a record can only name columns that exist.
function* columnsOf(table: ScopeTable, cache: ScopeColumns | undefined): Program<ReadonlySet<string>> {
  const known = cache?.get(table);
  if (known) return known;
  const rows = yield* all<{ name: string }>(
    perDialect(
      { sql: 'SELECT name FROM pragma_table_info(?)', parameters: [table] },
      {
        sql: `SELECT column_name AS name FROM information_schema.columns
              WHERE table_schema = current_schema() AND table_name = $1`,
        parameters: [table],
      },
    ),
  );
  const columns = new Set(rows.map((c) => c.name));
  // An empty list is a table this dialect does not have (yet): asked again, not remembered.
  if (columns.size > 0) cache?.set(table, columns);
  return columns;
}

/**
 * Inserts one exported row into the scope: the row's columns (each must be a column of the table
 * and not one the export omits) plus `set` (the scope, parents, derived columns). Returns whether
 * it was inserted (`OR IGNORE`: an existing key is left as it is).
 */
export function insertScopeRow(sql: SqlExecutor, table: ScopeTable, row: ScopeRow, set: ScopeRow): boolean {
  return runSqliteProgram(sql, insertScopeRowProgram(table, row, set));
}

/**
 * {@link insertScopeRow} as a program. On PostgreSQL an existing key is left by `ON CONFLICT DO
 * NOTHING` (SQLite's `OR IGNORE` also passes over a row that breaks a NOT NULL or CHECK
 * constraint; PostgreSQL refuses such a row with an error instead). `columns` keeps the tables'
 * columns between calls (one per import); without it they are read each call.
 */
export function* insertScopeRowProgram(
  table: ScopeTable,
  row: ScopeRow,
  set: ScopeRow,
  columns?: ScopeColumns,
): Program<boolean> {
  const known = yield* columnsOf(table, columns);
  const omit = omittedColumns(table);
  const values: ScopeRow = {};
  for (const [key, value] of Object.entries(row)) {
    if (!known.has(key) || omit.includes(key))
      throw new MemoryError('INVALID_INPUT', `${table} has no exported column ${key}`, { details: { table, key } });
    values[key] = value;
  }
  Object.assign(values, set);
  const keys = Object.keys(values);
  const parameters = keys.map((k) => values[k]);
  const changed = yield* run(
    perDialect(
      {
        sql: `INSERT OR IGNORE INTO ${table} (${keys.join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`,
        parameters,
      },
      {
        sql: `INSERT INTO ${table} (${keys.join(', ')}) VALUES (${keys.map((_, i) => `$${i + 1}`).join(', ')})
              ON CONFLICT DO NOTHING`,
        parameters,
      },
    ),
  );
  return changed.changes > 0;
}

/**
 * Inserts an exported memory row into `agentId`'s scope ({@link insertScopeRowProgram}; `set`
 * carries the scope and the derived columns). On PostgreSQL a live memory's text is indexed here,
 * as the memory writer's programs do; on SQLite the insert trigger (migration 20) does it. Returns
 * whether it was inserted (not when the id, or the same live content, is already there).
 */
export function* insertScopeMemoryProgram(
  dialect: Dialect,
  agentId: string,
  row: ScopeRow,
  set: ScopeRow,
  columns?: ScopeColumns,
): Program<boolean> {
  if (!(yield* insertScopeRowProgram('memories', row, { ...set, agent_id: agentId }, columns))) return false;
  if (dialect === 'postgres') {
    const memory = yield* get<{ seq: number; content: string; is_deleted: number }>(
      portable('SELECT seq, content, is_deleted FROM memories WHERE id = ? AND agent_id = ?', row['id'], agentId),
    );
    if (memory && memory.is_deleted === 0)
      yield* indexTextRowsProgram('memory', agentId, [{ row: memory.seq, text: memory.content }]);
  }
  return true;
}

/**
 * Inserts an exported note row into `agentId`'s scope and, on PostgreSQL, indexes its text as
 * `insertNoteProgram` does (SQLite's trigger does it there). Returns whether it was inserted.
 */
export function* insertScopeNoteProgram(
  dialect: Dialect,
  agentId: string,
  row: ScopeRow,
  columns?: ScopeColumns,
): Program<boolean> {
  if (!(yield* insertScopeRowProgram('notes', row, { agent_id: agentId }, columns))) return false;
  // The row's seq is the database's: read it back (a SQLite trigger needs no read).
  const note = dialect === 'postgres' ? yield* findNoteProgram(agentId, String(row['id'])) : undefined;
  if (note) yield* indexInsertedNoteProgram(dialect, note);
  return true;
}

/** Tables whose rows carry an id (or session key) an import checks the owner of. */
export type ScopeOwnedTable =
  | 'memories'
  | 'documents'
  | 'entities'
  | 'entity_dependencies'
  | 'session_transcripts'
  | 'notes'
  | 'registry_categories';

/** Whether a row with this id (or session key) exists anywhere in the file, and in which scope. */
export function findScopeRowOwner(
  sql: SqlExecutor,
  table: ScopeOwnedTable,
  key: string,
  agentId: string,
): 'this-scope' | 'other-scope' | undefined {
  return runSqliteProgram(sql, findScopeRowOwnerProgram(table, key, agentId));
}

/** {@link findScopeRowOwner} as a program (both dialects). */
export function* findScopeRowOwnerProgram(
  table: ScopeOwnedTable,
  key: string,
  agentId: string,
): Program<'this-scope' | 'other-scope' | undefined> {
  const row =
    table === 'session_transcripts'
      ? yield* get<{ agent_id: string }>(
          portable('SELECT agent_id FROM session_transcripts WHERE agent_id = ? AND session_key = ?', agentId, key),
        )
      : yield* get<{ agent_id: string }>(portable(`SELECT agent_id FROM ${table} WHERE id = ?`, key));
  if (!row) return undefined;
  return row.agent_id === agentId ? 'this-scope' : 'other-scope';
}
