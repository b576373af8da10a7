// An `engine.export` of one SQLite scope imported into a fresh engine on SQLite (a file), PGlite
// (in-process PostgreSQL) and, with --server, a private PostgreSQL server: import wall time and
// records/s and this process's CPU time, the import run alone (the queued job's `runDue`), no
// embedder (no fill-in work).
//
//   npm run bench:export-import                            # 3,000 memories, each modified once
//   npm run bench:export-import -- --memories 5000 --server
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { createManualClock, createManualScheduler } from '@memory/core';
import { createMemoryEngine, type DatabaseOption } from '@memory/engine';
import { startPostgresServer } from '../../scripts/postgres-server.mjs';
import { fmt } from './stats.js';
import { createGenerator } from './synthetic.js';

const { values } = parseArgs({
  options: {
    memories: { type: 'string', default: '3000' },
    server: { type: 'boolean', default: false },
  },
});
const MEMORIES = Number(values.memories);
const T0 = Date.UTC(2026, 0, 1);

const dir = await mkdtemp(join(tmpdir(), 'export-import-bench-'));
const file = join(dir, 'scope.jsonl');

/** Fills a SQLite scope (memories, each modified once) and exports it: its records and history rows. */
async function exportSource(): Promise<{ records: number; history: number }> {
  const clock = createManualClock(T0);
  const engine = await createMemoryEngine({
    database: { path: ':memory:' },
    clock,
    scheduler: createManualScheduler(clock),
  });
  try {
    const gen = createGenerator(42);
    const inputs = Array.from({ length: MEMORIES }, (_, i) => ({ content: `${gen.memory().content} (#${i})` }));
    const made = await engine.rememberMany({ agentId: 'a', memories: inputs });
    clock.advance(60_000);
    for (const [i, m] of made.entries())
      await engine.modify({ agentId: 'a', id: m.id, content: `${inputs[i]?.content} revised`, reason: 'bench' });
    const lines: string[] = [];
    for await (const line of engine.export({ agentId: 'a' })) lines.push(line);
    await writeFile(file, lines.join(''));
    const history = lines
      .map((l) => JSON.parse(l) as { history?: unknown[] })
      .reduce((n, r) => n + (r.history?.length ?? 0), 0);
    return { records: lines.length, history };
  } finally {
    await engine.close();
  }
}

/** Seconds for one import of the file into a fresh engine on `database`, and its counters. */
async function importInto(
  database: DatabaseOption,
): Promise<{ seconds: number; cpu: number; imported: number; total: number }> {
  const clock = createManualClock(T0 + 3_600_000);
  const engine = await createMemoryEngine({
    database,
    clock,
    scheduler: createManualScheduler(clock),
    config: { imports: { allowedDirectories: [dir] } },
  });
  try {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const { jobId } = await engine.imports.start({ agentId: 'a', file });
    await engine.runDue();
    const seconds = (performance.now() - t0) / 1000;
    const { user, system } = process.cpuUsage(cpu0);
    const status = await engine.imports.status({ agentId: 'a', jobId });
    if (status?.status !== 'completed') throw new Error(`import ended ${status?.status}`);
    return { seconds, cpu: (user + system) / 1e6, imported: status.counters.imported, total: status.counters.total };
  } finally {
    await engine.close();
  }
}

try {
  const { records, history } = await exportSource();
  const rows: Array<[string, Awaited<ReturnType<typeof importInto>>]> = [];
  rows.push(['sqlite file', await importInto({ path: join(dir, 'target.db') })]);
  const pglite = await PGlite.create();
  try {
    rows.push(['pglite', await importInto({ postgres: { pglite } })]);
  } finally {
    await pglite.close();
  }
  if (values.server) {
    const server = await startPostgresServer();
    try {
      rows.push(['postgres server', await importInto({ postgres: { connectionString: server.connectionString } })]);
    } finally {
      await server.stop();
    }
  }
  console.log(`export of ${MEMORIES} memories: ${records} records, ${history} history rows`);
  // CPU time is this process's (SQLite and PGlite run in it; a server's own work is not counted): on
  // a shared machine it moves less with the load than wall time does.
  console.log('| target | import s | records/s | process CPU s | imported/total |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const [name, r] of rows)
    console.log(
      `| ${name} | ${fmt(r.seconds, 2)} | ${fmt(r.total / r.seconds, 0)} | ${fmt(r.cpu, 2)} | ${r.imported}/${r.total} |`,
    );
} finally {
  await rm(dir, { recursive: true, force: true });
}
