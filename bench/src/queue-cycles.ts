// Queue cycles (enqueue + lease + complete) by 1 and 4 processes on one store: an SQLite file and,
// when a connection string is given, a PostgreSQL database. Process start-up and store opening
// are outside the timing: every child opens its store, then all start together.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createPostgresQueue } from '@memory/queue';
import { openStore } from '@memory/store';
import { openPostgresStore } from '@memory/store/postgres';
import { perDialect, raw, run } from '@memory/store/sql';

const child = join(import.meta.dirname, 'queue-cycle-child.ts');

/** Runs `processes` children of `cycles` cycles each; resolves with cycles completed per second. */
async function cyclesPerSecond(backend: 'sqlite' | 'postgres', where: string, processes: number, cycles: number) {
  const procs = Array.from({ length: processes }, (_, i) =>
    spawn(
      process.execPath,
      ['--conditions=@memory/source', '--import', 'tsx', child, backend, where, `p${i}`, String(cycles)],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    ),
  );
  const outputs = procs.map((proc) => {
    let out = '';
    const ready = new Promise<void>((resolve) =>
      proc.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('READY\n')) resolve();
      }),
    );
    const exit = new Promise<number>((resolve, reject) =>
      proc.on('exit', (code) =>
        code === 0 ? resolve(Number(out.replace('READY\n', '').trim())) : reject(new Error(`child exited ${code}`)),
      ),
    );
    return { ready, exit };
  });
  await Promise.all(outputs.map((o) => o.ready));
  const t0 = performance.now();
  for (const proc of procs) proc.stdin.end('go\n');
  const done = await Promise.all(outputs.map((o) => o.exit));
  const seconds = (performance.now() - t0) / 1000;
  return { perSecond: done.reduce((a, b) => a + b, 0) / seconds, done };
}

/** An empty schema of its own on the server, so the bench never touches the database's tables. */
async function benchSchema(url: string): Promise<string> {
  const admin = await openPostgresStore({ target: { connectionString: url, maxConnections: 1 }, migrations: [] });
  for (const statement of ['DROP SCHEMA IF EXISTS memory_queue_bench CASCADE', 'CREATE SCHEMA memory_queue_bench'])
    await admin.write(() => run(perDialect(raw('SELECT 1'), raw(statement))));
  await admin.close();
  const target = new URL(url);
  // Keep the caller's own options (say `-c synchronous_commit=off`, SQLite's WAL NORMAL durability).
  const given = target.searchParams.get('options');
  target.searchParams.set('options', `${given ? `${given} ` : ''}-c search_path=memory_queue_bench`);
  return target.toString();
}

/** Prints the SQLite and PostgreSQL cycle rates side by side. */
export async function queueCycles(options: { dir: string; postgres: string | undefined; cycles: number }) {
  const rows: Array<[string, string, string]> = [];
  let pgUrl: string | undefined;
  if (options.postgres) {
    pgUrl = await benchSchema(options.postgres);
    // Migrate once up front, so no child pays for it inside the timing.
    const store = await openPostgresStore({ target: { connectionString: pgUrl, maxConnections: 1 } });
    createPostgresQueue({ store });
    await store.close();
  }
  for (const processes of [1, 4]) {
    const path = join(options.dir, `cycles-${processes}.db`);
    (await openStore({ path })).close();
    const perProcess = Math.ceil(options.cycles / processes);
    const sqlite = await cyclesPerSecond('sqlite', path, processes, perProcess);
    const pg = pgUrl ? await cyclesPerSecond('postgres', pgUrl, processes, perProcess) : undefined;
    rows.push([
      `${processes} process${processes > 1 ? 'es' : ''}`,
      `${Math.round(sqlite.perSecond).toLocaleString('en-US')}`,
      pg ? `${Math.round(pg.perSecond).toLocaleString('en-US')}` : '(no --postgres)',
    ]);
  }
  console.log(
    `\nqueue cycles/s (enqueue + lease + complete), ${options.cycles.toLocaleString('en-US')} cycles per run`,
  );
  console.log(`  ${'processes'.padEnd(12)}${'SQLite (one file)'.padStart(20)}${'PostgreSQL (one db)'.padStart(22)}`);
  for (const [name, s, p] of rows) console.log(`  ${name.padEnd(12)}${s.padStart(20)}${p.padStart(22)}`);
  if (options.postgres) {
    const admin = await openPostgresStore({
      target: { connectionString: options.postgres, maxConnections: 1 },
      migrations: [],
    });
    await admin.write(() => run(perDialect(raw('SELECT 1'), raw('DROP SCHEMA IF EXISTS memory_queue_bench CASCADE'))));
    await admin.close();
  }
}
