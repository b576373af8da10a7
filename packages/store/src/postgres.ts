/**
 * The PostgreSQL dialect of the store (needs the `pg` package; PGlite needs `@electric-sql/pglite`).
 * Programs (`@memory/store`'s dialect-neutral units of work) run here with an await per statement
 * and on SQLite synchronously.
 */
export type { PGliteDatabase, PostgresClient, PostgresPool, PostgresTarget } from './postgres/connection.js';
export type { SqliteCopyReport, TableCopy } from './postgres/copy-from-sqlite.js';
export { copySqliteToPostgres } from './postgres/copy-from-sqlite.js';
export { isSerializationFailure, sqlState, wrapPostgresError } from './postgres/errors.js';
export { runPostgresMigrations } from './postgres/migrations.js';
export type {
  OpenPostgresStoreOptions,
  PostgresStore,
  PostgresWriteOptions,
  ProgramFactory,
} from './postgres/open-postgres-store.js';
export { openPostgresStore } from './postgres/open-postgres-store.js';
export type { PostgresVectorQuery, PostgresVectorSearch } from './postgres/vector-search.js';
export { searchPostgresVectors } from './postgres/vector-search.js';
export type { PostgresVectorSupport } from './postgres/vector-support.js';
export { postgresVectorIndexesDueProgram } from './postgres/vector-upkeep.js';
