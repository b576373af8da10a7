// A private, throwaway PostgreSQL server for tests and benchmarks: initdb into a fresh temporary
// directory, start `postgres` on a free port of 127.0.0.1, stop it and delete the directory afterwards.
// The vitest global setup (scripts/test/postgres-global-setup.ts) starts one per run; by hand:
//
//   node scripts/postgres-server.mjs start     # prints a connection string, runs until Ctrl-C
//
// Durability is switched off (fsync, synchronous_commit, full_page_writes): the data is thrown away,
// and a test server must not spend the shared machine's disk on flushes. Never use these settings for
// data you keep.
//
// No postmaster outlives its owner: the server is our direct child (setpriv execs it in place) with a
// parent-death signal, so even a SIGKILLed test run takes its server down; a directory left behind by
// such a run is swept by the next start.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REQUIRED = ['initdb', 'postgres', 'pg_isready'];
const DIR_PREFIX = 'memory-pg-';
/** Superuser created by initdb; the connection string carries its random password. */
export const POSTGRES_TEST_USER = 'memory';

/**
 * Where the PostgreSQL server binaries are: the directory of `initdb` on PATH (symlinks resolved,
 * since Debian's /usr/bin holds only client wrappers), else the newest /usr/lib/postgresql/<ver>/bin,
 * which is where Debian's `postgresql` package puts them without adding them to PATH.
 * @param {{ path?: string, debianRoot?: string }} [options]
 * @returns {{ binDir: string, version: string } | undefined}
 */
export function findPostgresBinaries(options = {}) {
  const path = options.path ?? process.env.PATH ?? '';
  const debianRoot = options.debianRoot ?? '/usr/lib/postgresql';
  const candidates = [];
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const initdb = join(dir, 'initdb');
    if (existsSync(initdb)) candidates.push(dirname(realpathSync(initdb)));
  }
  if (existsSync(debianRoot)) {
    const versions = readdirSync(debianRoot)
      .filter((name) => /^\d+(\.\d+)?$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) candidates.push(join(debianRoot, version, 'bin'));
  }
  for (const binDir of candidates) {
    if (!REQUIRED.every((name) => existsSync(join(binDir, name)))) continue;
    const out = spawnSync(join(binDir, 'postgres'), ['--version'], { encoding: 'utf8' });
    if (out.status !== 0) continue;
    return { binDir, version: out.stdout.trim() };
  }
  return undefined;
}

/** initdb and postgres refuse to run as root: as root they run as the `postgres` user. */
function runAsUser() {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error(
      'postgres-server: running as root, and there is no `postgres` user to run the server as (install postgresql)',
    );
  }
}

const hasSetpriv = () => spawnSync('setpriv', ['--version']).status === 0;

/** Command and arguments that run `binary` as `user` with a parent-death signal when setpriv exists. */
function command(binary, args, user, setpriv) {
  if (!setpriv) {
    if (user) throw new Error('postgres-server: running as root needs setpriv (util-linux) to drop to `postgres`');
    return [binary, args];
  }
  const drop = user ? [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--init-groups'] : [];
  return ['setpriv', [...drop, '--pdeathsig=SIGINT', '--', binary, ...args]];
}

/** A port nobody listens on right now; the server may still lose it to a race, hence the retries. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};

/** Removes directories of earlier runs whose owner and postmaster are both gone (a killed run). */
function sweepStale(parentDir) {
  for (const name of readdirSync(parentDir)) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const dir = join(parentDir, name);
    try {
      const owner = Number(readFileSync(join(dir, 'owner.pid'), 'utf8'));
      const pidFile = join(dir, 'data', 'postmaster.pid');
      const postmaster = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : 0;
      if (!alive(owner) && !(postmaster && alive(postmaster))) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Not ours or half-written: leave it alone.
    }
  }
}

/** Runs a binary to completion without blocking the event loop (the test runner lives on it). */
function run(binary, args, user, setpriv, signal) {
  const [file, argv] = command(binary, args, user, setpriv);
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], signal });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    let failure;
    child.once('error', (error) => {
      failure = error;
      // Not started at all: no 'close' to wait for.
      if (child.pid === undefined) reject(error);
    });
    // An aborted initdb is waited for, so the directory is not deleted under its feet.
    child.once('close', (code) => {
      if (failure) reject(failure);
      else if (code === 0) resolve();
      else reject(new Error(`postgres-server: ${binary} failed (${code}): ${output.trim()}`));
    });
  });
}

/** pg_isready exits 0 once the server accepts connections (it does not need to authenticate). */
function accepting(pgIsready, port) {
  return new Promise((resolve) => {
    const probe = spawn(pgIsready, ['-q', '-h', '127.0.0.1', '-p', String(port), '-t', '1'], { stdio: 'ignore' });
    probe.once('error', () => resolve(false));
    probe.once('exit', (code) => resolve(code === 0));
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const BIND_FAILURE = /could not bind|Address already in use|could not create any TCP\/IP sockets/i;

/**
 * Initialises a fresh cluster in a temporary directory and starts it on a free port of 127.0.0.1.
 * Resolves once the server accepts connections; `signal` abandons a start in progress (and cleans up).
 * @param {{ binaries?: { binDir: string, version: string }, parentDir?: string, port?: number,
 *   maxConnections?: number, readyTimeoutMs?: number, signal?: AbortSignal }} [options]
 */
export async function startPostgresServer(options = {}) {
  const binaries = options.binaries ?? findPostgresBinaries();
  if (!binaries) throw new Error('postgres-server: no PostgreSQL binaries on PATH or in /usr/lib/postgresql/*/bin');
  const parentDir = options.parentDir ?? tmpdir();
  const user = runAsUser();
  const setpriv = hasSetpriv();
  sweepStale(parentDir);
  const dir = mkdtempSync(join(parentDir, DIR_PREFIX));
  writeFileSync(join(dir, 'owner.pid'), String(process.pid));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'postgres.log');
  const bin = (name) => join(binaries.binDir, name);
  let child;
  const remove = () => rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  try {
    // Password auth over TCP: trust on 127.0.0.1 would let any local user in as a superuser, which
    // can run programs as the server's OS user. The unix socket sits in this 0700 directory.
    const password = randomBytes(16).toString('hex');
    const pwfile = join(dir, 'pwfile');
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (user) for (const path of [dir, pwfile]) chownSync(path, user.uid, user.gid);
    const initdbArgs = [`--pgdata=${dataDir}`, `--username=${POSTGRES_TEST_USER}`, `--pwfile=${pwfile}`];
    initdbArgs.push('--auth-local=trust', '--auth-host=scram-sha-256', '--encoding=UTF8', '--no-locale', '--no-sync');
    await run(bin('initdb'), initdbArgs, user, setpriv, options.signal);
    rmSync(pwfile);
    for (let attempt = 1; ; attempt++) {
      options.signal?.throwIfAborted();
      const port = options.port ?? (await freePort());
      const settings = {
        listen_addresses: '127.0.0.1',
        port,
        unix_socket_directories: dir,
        // Tests only: the cluster is deleted afterwards, so crash safety buys nothing.
        fsync: 'off',
        synchronous_commit: 'off',
        full_page_writes: 'off',
        // 4 engine processes x their pools, plus the tests' own clients.
        max_connections: options.maxConnections ?? 200,
      };
      const args = ['-D', dataDir, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
      const log = openSync(logFile, 'a');
      const [file, argv] = command(bin('postgres'), args, user, setpriv);
      child = spawn(file, argv, { stdio: ['ignore', log, log] });
      closeSync(log);
      const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
      let ended;
      exited.then((value) => {
        ended = value;
      });
      const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
      while (!ended && Date.now() < deadline) {
        options.signal?.throwIfAborted();
        if (await accepting(bin('pg_isready'), port)) break;
        await sleep(100);
      }
      if (!ended && Date.now() < deadline) {
        return serverHandle({ child, exited, dir, remove, port, password, binaries });
      }
      const logTail = readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n');
      if (!ended) {
        child.kill('SIGKILL');
        throw new Error(`postgres-server: not accepting connections after the timeout; log:\n${logTail}`);
      }
      if (attempt < 5 && options.port === undefined && BIND_FAILURE.test(logTail)) continue;
      throw new Error(`postgres-server: postgres exited (${ended.code ?? ended.signal}); log:\n${logTail}`);
    }
  } catch (error) {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGQUIT');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    remove();
    throw error;
  }
}

function serverHandle({ child, exited, dir, remove, port, password, binaries }) {
  // A test run that exits without its teardown (an uncaught error, process.exit) still stops the server:
  // immediate shutdown, nothing to keep.
  const onExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGQUIT');
  };
  process.once('exit', onExit);
  let stopping;
  return {
    connectionString: `postgresql://${POSTGRES_TEST_USER}:${password}@127.0.0.1:${port}/postgres`,
    host: '127.0.0.1',
    port,
    user: POSTGRES_TEST_USER,
    password,
    dir,
    pid: child.pid,
    version: binaries.version,
    /** Fast shutdown (SIGINT), escalating to SIGQUIT and SIGKILL; then deletes the directory. Idempotent. */
    stop() {
      stopping ??= (async () => {
        process.removeListener('exit', onExit);
        if (child.exitCode === null && child.signalCode === null) {
          for (const [signal, waitMs] of [
            ['SIGINT', 15_000],
            ['SIGQUIT', 5_000],
            ['SIGKILL', 5_000],
          ]) {
            child.kill(signal);
            let timer;
            const timeout = new Promise((resolve) => {
              timer = setTimeout(resolve, waitMs, false);
            });
            const done = await Promise.race([exited.then(() => true), timeout]);
            // A pending timer would keep the owner (the test runner) alive after the server is gone.
            clearTimeout(timer);
            if (done) break;
          }
        }
        remove();
      })();
      return stopping;
    },
  };
}

async function main(argv) {
  if (argv[0] !== 'start') {
    console.error('usage: node scripts/postgres-server.mjs start [--port <n>] [--max-connections <n>]');
    process.exit(2);
  }
  const flag = (name) => {
    const i = argv.indexOf(name);
    return i < 0 ? undefined : Number(argv[i + 1]);
  };
  const started = Date.now();
  const server = await startPostgresServer({ port: flag('--port'), maxConnections: flag('--max-connections') });
  console.error(`${server.version} ready in ${Date.now() - started} ms (data in ${server.dir}); Ctrl-C stops it`);
  console.log(server.connectionString);
  const shutdown = async () => {
    await server.stop();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  process.once('SIGHUP', shutdown);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
