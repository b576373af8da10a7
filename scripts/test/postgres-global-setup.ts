import { randomBytes } from 'node:crypto';
import { readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findPostgresBinaries, type PostgresServer, startPostgresServer } from '../postgres-server.mjs';

/**
 * What a test worker learns about the run's PostgreSQL server, through environment variables that
 * the workers inherit (they fork after global setup):
 * - `MEMORY_TEST_POSTGRES_URL`, set by whoever runs the suite: use that server, start none.
 * - `MEMORY_TEST_POSTGRES=off`, set by whoever runs the suite: start none, skip what needs one.
 * - `MEMORY_TEST_POSTGRES_UNAVAILABLE`: no server binaries here; the value says why.
 * - `MEMORY_TEST_POSTGRES_STATE`: a JSON file, `{ state: 'starting' }` until the server is up, then
 *   `{ state: 'ready', connectionString }` or `{ state: 'failed', reason }`.
 * The server starts in the background, so a run whose files never touch PostgreSQL does not wait for
 * initdb; packages/store/test/support/postgres.ts waits for the state file when a test needs it.
 */
export type PostgresTestState =
  | { state: 'starting' }
  | { state: 'ready'; connectionString: string; version: string }
  | { state: 'failed'; reason: string };

function writeState(file: string, state: PostgresTestState): void {
  // Rename so a reader never sees half a file.
  writeFileSync(`${file}.tmp`, JSON.stringify(state));
  renameSync(`${file}.tmp`, file);
}

const STATE_FILE = /^memory-pg-state-(\d+)-[0-9a-f]+\.json$/;

/** State files of killed runs (their server directories are swept by postgres-server.mjs). */
function sweepStateFiles(dir: string): void {
  for (const name of readdirSync(dir)) {
    const owner = Number(STATE_FILE.exec(name)?.[1] ?? 0);
    if (!owner || owner === process.pid) continue;
    try {
      process.kill(owner, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') rmSync(join(dir, name), { force: true });
    }
  }
}

/**
 * Vitest global setup: one private PostgreSQL server for the whole run (scripts/postgres-server.mjs),
 * stopped and deleted when the run ends. Listed before temp-root.ts so that its directory lives in the
 * real temporary directory, which the `postgres` user can reach when the suite runs as root.
 */
export default function setup(): (() => Promise<void>) | undefined {
  if (process.env.MEMORY_TEST_POSTGRES_URL) return undefined;
  if (process.env.MEMORY_TEST_POSTGRES === 'off') {
    process.env.MEMORY_TEST_POSTGRES_UNAVAILABLE = 'MEMORY_TEST_POSTGRES=off';
    return undefined;
  }
  const binaries = findPostgresBinaries();
  if (!binaries) {
    process.env.MEMORY_TEST_POSTGRES_UNAVAILABLE =
      'no PostgreSQL server binaries on PATH or in /usr/lib/postgresql/*/bin (Debian: apt-get install postgresql)';
    return undefined;
  }
  sweepStateFiles(tmpdir());
  const stateFile = join(tmpdir(), `memory-pg-state-${process.pid}-${randomBytes(6).toString('hex')}.json`);
  writeState(stateFile, { state: 'starting' });
  process.env.MEMORY_TEST_POSTGRES_STATE = stateFile;
  const abandon = new AbortController();
  // initdb and the first start compete with every test worker for the 2 cores: the 60 s default
  // is short at a high load average, and a slow start fails every PostgreSQL test file at once.
  const starting: Promise<PostgresServer | undefined> = startPostgresServer({
    binaries,
    signal: abandon.signal,
    readyTimeoutMs: 180_000,
  }).then(
    (server) => {
      writeState(stateFile, { state: 'ready', connectionString: server.connectionString, version: server.version });
      return server;
    },
    (error: unknown) => {
      writeState(stateFile, { state: 'failed', reason: error instanceof Error ? error.message : String(error) });
      return undefined;
    },
  );
  return async () => {
    // Every test has finished: a start still in progress (no test file asked for the server, or it
    // was slow) is abandoned rather than awaited.
    abandon.abort();
    const server = await starting;
    await server?.stop();
    rmSync(stateFile, { force: true });
  };
}
