// Queue throughput and lease latency.
//   npm run bench:queue                 # defaults below
//   npm run bench:queue -- --jobs 10000
//   npm run bench:queue -- --postgres postgres://user@127.0.0.1:5432/db   # adds PostgreSQL cycles
//   npm run bench:queue -- --only-cycles --postgres ...                    # the cycles table alone
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createQueue } from '@memory/queue';
import { openStore } from '@memory/store';
import { queueCycles } from './queue-cycles.js';
import { fmt, percentile } from './stats.js';

const { values } = parseArgs({
  allowPositionals: true,
  options: {
    jobs: { type: 'string', default: '20000' },
    samples: { type: 'string', default: '2000' },
    postgres: { type: 'string' },
    cycles: { type: 'string', default: '4000' },
    'only-cycles': { type: 'boolean', default: false },
  },
});
const jobs = Number(values.jobs);
const samples = Number(values.samples);
const dir = mkdtempSync(join(tmpdir(), 'memory-queue-bench-'));

async function freshQueue(name: string) {
  const store = await openStore({ path: join(dir, `${name}.db`) });
  return { store, queue: createQueue({ store }) };
}

function enqueueMany(q: Awaited<ReturnType<typeof freshQueue>>, count: number, type: (i: number) => string): void {
  for (let start = 0; start < count; start += 1000) {
    q.store.write(() => {
      for (let i = start; i < Math.min(count, start + 1000); i++) q.queue.enqueue({ jobType: type(i), payload: { i } });
    });
  }
}

// 1. lease + complete cycles in one process
if (!values['only-cycles']) {
  const q = await freshQueue('single');
  enqueueMany(q, jobs, () => 'bench');
  const t0 = performance.now();
  let n = 0;
  for (let job = q.queue.lease(['bench'], 'w'); job; job = q.queue.lease(['bench'], 'w')) {
    q.queue.complete(job.id, job.leaseToken ?? '');
    n++;
  }
  const seconds = (performance.now() - t0) / 1000;
  console.log(
    `one process                ${fmt(n / seconds, 0)} lease+complete cycles/s (${n.toLocaleString('en-US')} jobs)`,
  );
  q.store.close();
}

// 2. four processes on one file
if (!values['only-cycles']) {
  const q = await freshQueue('multi');
  enqueueMany(q, jobs, () => 'bench');
  const path = join(dir, 'multi.db');
  const child = join(import.meta.dirname, 'queue-child.ts');
  const t0 = performance.now();
  const counts = await Promise.all(
    [0, 1, 2, 3].map(
      (i) =>
        new Promise<number>((resolve, reject) => {
          const proc = spawn(
            process.execPath,
            ['--conditions=@memory/source', '--import', 'tsx', child, path, `p${i}`],
            { stdio: ['ignore', 'pipe', 'inherit'] },
          );
          let out = '';
          proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
          proc.on('exit', (code) =>
            code === 0 ? resolve(Number(out.trim())) : reject(new Error(`child ${i} exited ${code}`)),
          );
        }),
    ),
  );
  const seconds = (performance.now() - t0) / 1000;
  const total = counts.reduce((a, b) => a + b, 0);
  console.log(
    `four processes, one file   ${fmt(total / seconds, 0)} cycles/s (${counts.join(' + ')} = ${total.toLocaleString('en-US')} jobs, including process start-up)`,
  );
  q.store.close();
}

// 3. lease latency against a small and a large backlog of mixed types
for (const backlog of values['only-cycles'] ? [] : [1000, 100_000]) {
  const q = await freshQueue(`latency-${backlog}`);
  const types = ['document_ingest', 'prospective_index', 'dreaming', 'maintenance', 'transcript_import'];
  enqueueMany(q, backlog, (i) => types[i % types.length] as string);
  const lat: number[] = [];
  for (let i = 0; i < samples; i++) {
    const s = performance.now();
    const job = q.queue.lease(['prospective_index', 'dreaming'], 'w');
    lat.push(performance.now() - s);
    if (!job) break;
    q.queue.complete(job.id, job.leaseToken ?? '');
    // Keep the backlog constant.
    q.queue.enqueue({ jobType: job.jobType });
  }
  console.log(
    `lease latency, ${backlog.toLocaleString('en-US').padStart(7)} pending  p50 ${fmt(percentile(lat, 50), 3)} ms   p95 ${fmt(percentile(lat, 95), 3)} ms   (${lat.length} leases over 2 of 5 types)`,
  );
  q.store.close();
}
// 4. enqueue + lease + complete cycles by 1 and 4 processes, SQLite beside PostgreSQL
await queueCycles({ dir, postgres: values.postgres, cycles: Number(values.cycles) });
rmSync(dir, { recursive: true, force: true });
