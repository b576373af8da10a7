import { MemoryError } from '@memory/core';
import { raw } from '../internal/sql.js';
import type { Store } from '../open-store.js';
import { all, get, type Program, postgresOnly, run } from '../program/program.js';
import type { PostgresStore } from './open-postgres-store.js';

/** How one table's copy went. */
export interface TableCopy {
  readonly table: string;
  /** Rows in the SQLite table (0 when it does not exist there). */
  readonly sqliteRows: number;
  /** Rows in the PostgreSQL table after the copy. */
  readonly postgresRows: number;
  /** `copied`: the counts match. */
  readonly status: 'copied' | 'count-mismatch';
  /** Filled by a PostgreSQL trigger from the tables copied before it (not copied itself). */
  readonly derived?: true;
}

export interface SqliteCopyReport {
  readonly tables: readonly TableCopy[];
  /** SQLite tables with rows that have no PostgreSQL form yet, so were not copied. */
  readonly notCopied: ReadonlyArray<{ readonly table: string; readonly rows: number }>;
  /** True when every copied table's counts match. */
  readonly verified: boolean;
}

// Bookkeeping of each database's own migrations, and what PostgreSQL derives by itself.
const SKIPPED = new Set(['schema_migrations', 'schema_migrations_audit', 'memory_vectors']);
// Rows per INSERT statement are bounded by PostgreSQL's 65,535 parameters and by this.
const PAGE_ROWS = 500;

interface TargetTable {
  readonly name: string;
  readonly columns: readonly string[];
}

/**
 * Copies a SQLite store into an empty PostgreSQL store of the same schema version, in one
 * PostgreSQL transaction (all or nothing), and verifies the row count of every table. Tables are
 * copied parents first (by their foreign keys), in pages read by key; serial counters are moved past
 * the copied ids. Refuses (`CONFLICT`) a target that already holds rows, and (`INVALID_INPUT`) a
 * SQLite table with a column the PostgreSQL table lacks, so nothing is silently dropped. SQLite
 * tables that have no PostgreSQL form yet are listed in `notCopied`.
 *
 * @example
 * ```ts
 * const report = await copySqliteToPostgres({ from: await openStore({ path: 'memory.db' }), to: pgStore });
 * if (!report.verified) throw new Error('copy did not verify');
 * ```
 */
export async function copySqliteToPostgres(input: { from: Store; to: PostgresStore }): Promise<SqliteCopyReport> {
  const { from, to } = input;
  const targets = await to.read(() => targetTables());
  const sqliteTables = new Set(
    // Plain tables only: FTS5 and vec0 tables and their shadow tables are SQLite's own indexes.
    from
      .read((sql) =>
        sql.all<{ name: string }>(raw("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table'")),
      )
      .map((r) => r.name),
  );
  for (const table of targets) {
    if (!sqliteTables.has(table.name)) continue;
    const missing = sqliteColumns(from, table.name).filter((c) => !table.columns.includes(c));
    if (missing.length > 0)
      throw new MemoryError(
        'INVALID_INPUT',
        `SQLite table ${table.name} has columns the PostgreSQL table lacks (${missing.join(', ')}): are both stores at the same schema version?`,
        { details: { table: table.name, columns: missing } },
      );
  }
  const tables = await to.write(() => copyAll(from, targets, sqliteTables));
  const targetNames = new Set(targets.map((t) => t.name));
  const notCopied = [...sqliteTables]
    .filter((name) => !targetNames.has(name) && !SKIPPED.has(name) && !name.startsWith('sqlite_'))
    .map((table) => ({ table, rows: countSqlite(from, table) }))
    .filter((t) => t.rows > 0);
  return { tables, notCopied, verified: tables.every((t) => t.status === 'copied') };
}

/** The target's tables, parents before children, with their columns. */
function* targetTables(): Program<TargetTable[]> {
  const columns = yield* all<{ table_name: string; column_name: string }>(
    postgresOnly(
      raw(`SELECT c.table_name, c.column_name FROM information_schema.columns AS c
           JOIN information_schema.tables AS t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
           WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
           ORDER BY c.table_name, c.ordinal_position`),
    ),
  );
  const byTable = new Map<string, string[]>();
  for (const { table_name, column_name } of columns) {
    if (SKIPPED.has(table_name)) continue;
    const list = byTable.get(table_name) ?? [];
    list.push(column_name);
    byTable.set(table_name, list);
  }
  const edges = yield* all<{ child: string; parent: string }>(
    postgresOnly(
      raw(`SELECT child.relname AS child, parent.relname AS parent FROM pg_constraint AS k
           JOIN pg_class AS child ON child.oid = k.conrelid JOIN pg_class AS parent ON parent.oid = k.confrelid
           JOIN pg_namespace AS n ON n.oid = child.relnamespace
           WHERE k.contype = 'f' AND n.nspname = current_schema() AND k.conrelid <> k.confrelid`),
    ),
  );
  const order: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string): void => {
    if (order.includes(name) || visiting.has(name)) return;
    visiting.add(name);
    for (const edge of edges) if (edge.child === name && byTable.has(edge.parent)) visit(edge.parent);
    order.push(name);
  };
  for (const name of [...byTable.keys()].sort()) visit(name);
  return order.map((name) => ({ name, columns: byTable.get(name) ?? [] }));
}

function sqliteColumns(from: Store, table: string): string[] {
  return from
    .read((sql) => sql.all<{ name: string }>(raw('SELECT name FROM pragma_table_info(?)', table)))
    .map((r) => r.name);
}

function countSqlite(from: Store, table: string): number {
  return from.read((sql) => sql.get<{ n: number }>(raw(`SELECT count(*) AS n FROM ${quote(table)}`)))?.n ?? 0;
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The columns a SQLite table is paged by: its rowid, or its primary key when it has none. */
function pageKey(from: Store, table: string): string[] {
  const listed = from.read((sql) =>
    sql.get<{ wr: number }>(raw('SELECT wr FROM pragma_table_list WHERE name = ?', table)),
  );
  if (listed?.wr !== 1) return ['rowid'];
  return from
    .read((sql) =>
      sql.all<{ name: string; pk: number }>(raw('SELECT name, pk FROM pragma_table_info(?) WHERE pk > 0', table)),
    )
    .sort((a, b) => a.pk - b.pk)
    .map((r) => r.name);
}

function* copyAll(
  from: Store,
  targets: readonly TargetTable[],
  sqliteTables: ReadonlySet<string>,
): Program<TableCopy[]> {
  for (const table of targets) {
    const existing = yield* get<{ n: number }>(postgresOnly(raw(`SELECT count(*) AS n FROM ${quote(table.name)}`)));
    if ((existing?.n ?? 0) > 0)
      throw new MemoryError(
        'CONFLICT',
        `the PostgreSQL table ${table.name} already holds rows; copy into an empty store`,
        {
          details: { table: table.name },
        },
      );
  }
  const results: TableCopy[] = [];
  for (const table of targets) {
    const before = yield* get<{ n: number }>(postgresOnly(raw(`SELECT count(*) AS n FROM ${quote(table.name)}`)));
    // A table a PostgreSQL trigger keeps (memory counts) was filled while its sources were copied:
    // its rows are derived there, and only its count is compared.
    const derived = (before?.n ?? 0) > 0;
    const sqliteRows = !sqliteTables.has(table.name)
      ? 0
      : derived
        ? countSqlite(from, table.name)
        : yield* copyTable(from, table);
    const copied = yield* get<{ n: number }>(postgresOnly(raw(`SELECT count(*) AS n FROM ${quote(table.name)}`)));
    const postgresRows = copied?.n ?? 0;
    results.push({
      table: table.name,
      sqliteRows,
      postgresRows,
      status: postgresRows === sqliteRows ? 'copied' : 'count-mismatch',
      ...(derived ? { derived: true as const } : {}),
    });
  }
  yield* resetSerials();
  return results;
}

/** Copies one table page by page; returns the SQLite row count. */
function* copyTable(from: Store, table: TargetTable): Program<number> {
  const columns = sqliteColumns(from, table.name);
  const key = pageKey(from, table.name);
  const keyList = key.map((k) => (k === 'rowid' ? 'rowid' : quote(k))).join(', ');
  const selected = [...columns.map(quote), ...key.map((k, i) => `${k === 'rowid' ? 'rowid' : quote(k)} AS __k${i}`)];
  const perStatement = Math.max(1, Math.min(PAGE_ROWS, Math.floor(60_000 / Math.max(1, columns.length))));
  let after: unknown[] | undefined;
  let total = 0;
  for (;;) {
    const where = after ? `WHERE (${keyList}) > (${key.map(() => '?').join(', ')})` : '';
    const rows = from.read((sql) =>
      sql.arrays(
        raw(
          `SELECT ${selected.join(', ')} FROM ${quote(table.name)} ${where} ORDER BY ${keyList} LIMIT ?`,
          ...(after ?? []),
          perStatement,
        ),
      ),
    );
    if (rows.length === 0) break;
    const values: unknown[] = [];
    const tuples = rows.map((row) => {
      const placeholders = columns.map((_, i) => {
        values.push(row[i] ?? null);
        return `$${values.length}`;
      });
      return `(${placeholders.join(', ')})`;
    });
    yield* run(
      postgresOnly(
        raw(
          `INSERT INTO ${quote(table.name)} (${columns.map(quote).join(', ')}) VALUES ${tuples.join(', ')}`,
          ...values,
        ),
      ),
    );
    total += rows.length;
    const last = rows.at(-1) ?? [];
    after = key.map((_, i) => last[columns.length + i]);
    if (rows.length < perStatement) break;
  }
  return total;
}

/** Moves every serial and identity counter past the largest id copied into its column. */
function* resetSerials(): Program<void> {
  const serials = yield* all<{ table_name: string; column_name: string }>(
    postgresOnly(
      raw(`SELECT table_name, column_name FROM information_schema.columns
           WHERE table_schema = current_schema() AND (column_default LIKE 'nextval(%' OR is_identity = 'YES')`),
    ),
  );
  for (const { table_name, column_name } of serials) {
    yield* get(
      postgresOnly(
        raw(
          `SELECT setval(pg_get_serial_sequence($1, $2), greatest((SELECT max(${quote(column_name)}) FROM ${quote(table_name)}), 0) + 1, false)`,
          quote(table_name),
          column_name,
        ),
      ),
    );
  }
}
