import { all, type Program, perDialect } from '../program/program.js';

/**
 * Which of `tables` exist in the database. On SQLite every table of the schema exists once it is
 * migrated; on PostgreSQL a subject's tables exist once its migrations have a PostgreSQL form, so
 * code that spans every subject (a scope erasure, memory health's orphan count) asks first and
 * leaves out what is not there yet, rather than failing on it.
 */
export function* presentTablesProgram(tables: readonly string[]): Program<Set<string>> {
  const names = JSON.stringify(tables);
  const rows = yield* all<{ name: string }>(
    perDialect(
      {
        sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (SELECT value FROM json_each(?))",
        parameters: [names],
      },
      {
        sql: 'SELECT t AS name FROM json_array_elements_text($1::json) AS t WHERE to_regclass(t) IS NOT NULL',
        parameters: [names],
      },
    ),
  );
  return new Set(rows.map((r) => r.name));
}
