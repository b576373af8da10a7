/**
 * The store's raw SQL door: the compile-only Kysely builder, `raw` statements and the synchronous
 * executor. Only `@memory/queue`'s one-operation-per-file modules (the queue's own store) and tests
 * use it; every other package calls named store functions (a test in the repository checks this).
 * Hosts have no reason to import it.
 */
export { queryBuilder, type RawQuery, type RunResult, raw, SqlExecutor } from './internal/sql.js';
export { type Database, sqliteDatabase } from './program/database.js';
// Programs: units of work written once for both dialects (see `program/program.ts`).
export {
  all,
  arrays,
  type BuiltQuery,
  type Dialect,
  type DialectQuery,
  get,
  type PortableQuery,
  type Program,
  perDialect,
  portable,
  postgresOnly,
  run,
  type Step,
  statementFor,
} from './program/program.js';
export { runSqliteProgram } from './program/run-sqlite.js';
