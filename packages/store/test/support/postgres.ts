import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

// The run's private PostgreSQL server, as the vitest global setup (scripts/test/postgres-global-setup.ts)
// describes it in environment variables. Without one, tests that need it are skipped, unless
// MEMORY_REQUIRE_POSTGRES=1 (CI), where asking for it throws and the test file fails.

/** What a test file can use: a server to connect to, or why there is none. */
export type PostgresTestServer = { available: true; connectionString: string } | { available: false; reason: string };

/** Where the answer comes from, decided from the environment alone (no I/O). */
export type PostgresTestSource =
  | { kind: 'url'; connectionString: string }
  | { kind: 'state-file'; path: string }
  | { kind: 'unavailable'; reason: string };

type Env = Record<string, string | undefined>;

/** Reads the global setup's environment variables; an explicit MEMORY_TEST_POSTGRES_URL wins. */
export function postgresTestSource(env: Env): PostgresTestSource {
  if (env.MEMORY_TEST_POSTGRES_URL) return { kind: 'url', connectionString: env.MEMORY_TEST_POSTGRES_URL };
  if (env.MEMORY_TEST_POSTGRES_STATE) return { kind: 'state-file', path: env.MEMORY_TEST_POSTGRES_STATE };
  return {
    kind: 'unavailable',
    reason:
      env.MEMORY_TEST_POSTGRES_UNAVAILABLE ??
      'no PostgreSQL test server (run through vitest, whose global setup starts one, or set MEMORY_TEST_POSTGRES_URL)',
  };
}

/**
 * Applies MEMORY_REQUIRE_POSTGRES: with it set to 1 an unavailable server is an error (CI installs
 * PostgreSQL, so a skip there would hide a broken setup); otherwise the caller skips.
 */
export function requirePostgresIfAsked(server: PostgresTestServer, env: Env): PostgresTestServer {
  if (server.available || env.MEMORY_REQUIRE_POSTGRES !== '1') return server;
  throw new Error(`MEMORY_REQUIRE_POSTGRES=1 but there is no PostgreSQL test server: ${server.reason}`);
}

function readState(path: string): { state: string; connectionString?: string; reason?: string } | undefined {
  if (!existsSync(path)) return undefined;
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  return typeof parsed === 'object' && parsed !== null && 'state' in parsed ? (parsed as { state: string }) : undefined;
}

/** Waits for the global setup's server (it starts in the background) and resolves what it became. */
async function resolveSource(source: PostgresTestSource, timeoutMs: number): Promise<PostgresTestServer> {
  if (source.kind === 'url') return { available: true, connectionString: source.connectionString };
  if (source.kind === 'unavailable') return { available: false, reason: source.reason };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = readState(source.path);
    if (state?.state === 'ready' && state.connectionString) {
      return { available: true, connectionString: state.connectionString };
    }
    if (state?.state === 'failed') return { available: false, reason: `the test server failed: ${state.reason}` };
    if (state === undefined) return { available: false, reason: `the state file ${source.path} is gone` };
    if (Date.now() > deadline) return { available: false, reason: `the test server was not up after ${timeoutMs} ms` };
    await sleep(50);
  }
}

let shared: Promise<PostgresTestServer> | undefined;

/**
 * The run's PostgreSQL server, or why there is none; throws instead when MEMORY_REQUIRE_POSTGRES=1.
 * Await it at the top of a test file and skip with the reason:
 * @example
 * const server = await postgresTestServer();
 * describe.skipIf(!server.available)(`on PostgreSQL${server.available ? '' : ` (skipped: ${server.reason})`}`, () => {});
 */
export function postgresTestServer(options: { env?: Env; timeoutMs?: number } = {}): Promise<PostgresTestServer> {
  const env = options.env ?? process.env;
  const resolve = async () =>
    requirePostgresIfAsked(await resolveSource(postgresTestSource(env), options.timeoutMs ?? 300_000), env);
  if (options.env) return resolve();
  shared ??= resolve();
  return shared;
}

/** A database of its own on the run's server; `drop()` removes it (closing its other sessions). */
export interface PostgresTestDatabase {
  name: string;
  connectionString: string;
  drop(): Promise<void>;
}

/** Connection string of `base` pointing at database `name`. */
export function withDatabase(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

async function onServer<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates a fresh database `t_<random>` on the run's server, so test files never see each other's
 * tables. Throws when there is no server: call it only in a block skipped by `postgresTestServer()`.
 * @example
 * const db = await postgresTestDatabase();
 * const pool = new pg.Pool({ connectionString: db.connectionString });
 * // ... afterAll: await pool.end(); await db.drop();
 */
export async function postgresTestDatabase(): Promise<PostgresTestDatabase> {
  const server = await postgresTestServer();
  if (!server.available) throw new Error(`no PostgreSQL test server: ${server.reason}`);
  const name = `t_${randomBytes(8).toString('hex')}`;
  // The name is ours and [a-z0-9_] only: quoting is enough, identifiers cannot be bound.
  await onServer(server.connectionString, (client) => client.query(`create database "${name}"`));
  let dropped: Promise<void> | undefined;
  return {
    name,
    connectionString: withDatabase(server.connectionString, name),
    drop() {
      dropped ??= onServer(server.connectionString, async (client) => {
        await client.query(`drop database if exists "${name}" with (force)`);
      });
      return dropped;
    },
  };
}

/** A session advisory lock held on its own connection, as another process's writer would hold it. */
export interface HeldAdvisoryLock {
  /** Whether another session waits for this lock now. */
  waited(): Promise<boolean>;
  /** Unlocks and closes the connection. */
  release(): Promise<void>;
}

/**
 * Holds the session advisory lock of `key` the way the store's `lockKeys` take it
 * (`pg_advisory_lock(hashtextextended(key, 0))`), so a test can see which writes wait for it.
 * @example
 * const lock = await holdAdvisoryLock(connectionString, 'memory-scope:a');
 * const pending = engine.forget({ agentId: 'a', id, reason: 'x' });
 * expect(await lock.waited()).toBe(true);
 * await lock.release();
 */
export async function holdAdvisoryLock(connectionString: string, key: string): Promise<HeldAdvisoryLock> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
  return {
    async waited() {
      // Only this lock is held by this session, so a session it blocks waits for this lock.
      const rows = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))',
      );
      return (rows.rows[0]?.n ?? 0) > 0;
    },
    async release() {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
      await client.end();
    },
  };
}
