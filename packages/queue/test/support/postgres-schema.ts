// A private, empty schema on the configured PostgreSQL server for one test file, so files running
// in parallel on one database never see each other's jobs. Processes reach it by the URL returned
// (its search_path names the schema).
import { openPostgresStore } from '@memory/store/postgres';
import { perDialect, raw, run } from '@memory/store/sql';

/** Drops and recreates `schema`; resolves with a connection string whose search_path is that schema. */
export async function freshSchema(url: string, schema: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  const admin = await openPostgresStore({ target: { connectionString: url, maxConnections: 1 }, migrations: [] });
  try {
    await admin.write(() => run(perDialect(raw('SELECT 1'), raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`))));
    await admin.write(() => run(perDialect(raw('SELECT 1'), raw(`CREATE SCHEMA ${schema}`))));
  } finally {
    await admin.close();
  }
  const target = new URL(url);
  target.searchParams.set('options', `-c search_path=${schema}`);
  return target.toString();
}
