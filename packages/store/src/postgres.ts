/**
 * The PostgreSQL dialect of the store (needs the `pg` package; PGlite needs `@electric-sql/pglite`).
 * Programs (`@memory/store`'s dialect-neutral units of work) run here with an await per statement
 * and on SQLite synchronously.
 */
export type { PGliteDatabase, PostgresClient, PostgresPool, PostgresTarget } from './postgres/connection.js';
export { isSerializationFailure, sqlState, wrapPostgresError } from './postgres/errors.js';
export { runPostgresMigrations } from './postgres/migrations.js';
export type {
  OpenPostgresStoreOptions,
  PostgresStore,
  ProgramFactory,
  WriteOptions,
} from './postgres/open-postgres-store.js';
export { openPostgresStore } from './postgres/open-postgres-store.js';
