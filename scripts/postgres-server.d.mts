// Types for postgres-server.mjs (plain Node ESM, run without a build; the vitest global setup imports it).

/** Where a PostgreSQL installation's server binaries are, and `postgres --version`. */
export interface PostgresBinaries {
  binDir: string;
  version: string;
}

/** A running private server; `stop()` shuts it down and deletes its directory (idempotent). */
export interface PostgresServer {
  /** `postgresql://memory:<password>@127.0.0.1:<port>/postgres` */
  connectionString: string;
  host: string;
  port: number;
  user: string;
  password: string;
  /** Temporary directory holding the cluster, its log and its unix socket. */
  dir: string;
  /** The postmaster's process id. */
  pid: number;
  version: string;
  stop(): Promise<void>;
}

export interface StartPostgresServerOptions {
  binaries?: PostgresBinaries;
  /** @default os.tmpdir() */
  parentDir?: string;
  /** A fixed port (no retry on collision); by default a free one is picked. */
  port?: number;
  /** @default 200 */
  maxConnections?: number;
  /** @default 60000 */
  readyTimeoutMs?: number;
  /** Abandons a start in progress: the child is killed, the directory deleted, the promise rejected. */
  signal?: AbortSignal;
}

export const POSTGRES_TEST_USER: string;

/** Finds the server binaries: PATH first (symlinks resolved), then the newest /usr/lib/postgresql/<ver>/bin. */
export function findPostgresBinaries(options?: { path?: string; debianRoot?: string }): PostgresBinaries | undefined;

/** initdb into a fresh temporary directory, start on a free 127.0.0.1 port, resolve once it accepts connections. */
export function startPostgresServer(options?: StartPostgresServerOptions): Promise<PostgresServer>;
