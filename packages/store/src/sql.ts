/**
 * The store's raw SQL door: the compile-only Kysely builder, `raw` statements and the synchronous
 * executor. Only `@memory/queue`'s one-operation-per-file modules (the queue's own store) and tests
 * use it; every other package calls named store functions (a test in the repository checks this).
 * Hosts have no reason to import it.
 */
export { queryBuilder, type RawQuery, type RunResult, raw, SqlExecutor } from './internal/sql.js';
