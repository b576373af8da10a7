// One of several processes running queue cycles (enqueue + lease + complete) on one shared store:
//   queue-cycle-child <sqlite|postgres> <path or connection string> <workerId> <cycles>
// Opens the store, prints READY, waits for a line on stdin, runs its cycles, prints the count.
import { createInterface } from 'node:readline';
import { defaultConfig } from '@memory/core';
import { createPostgresQueue, createQueue } from '@memory/queue';
import { openStore } from '@memory/store';
import { openPostgresStore } from '@memory/store/postgres';

const [backend, where, workerId, count] = process.argv.slice(2);
if (!where || !workerId || !count) throw new Error('usage: queue-cycle-child <sqlite|postgres> <where> <id> <cycles>');
const cycles = Number(count);

async function go(): Promise<void> {
  process.stdout.write('READY\n');
  const lines = createInterface({ input: process.stdin });
  for await (const _line of lines) break;
  process.stdin.destroy();
}

let done = 0;
if (backend === 'postgres') {
  const store = await openPostgresStore({ target: { connectionString: where, maxConnections: 2 } });
  const queue = createPostgresQueue({ store });
  await go();
  for (let i = 0; i < cycles; i++) {
    await queue.enqueue({ jobType: 'cycle', payload: { i } });
    const job = await queue.lease(['cycle'], workerId);
    if (job) {
      await queue.complete(job.id, job.leaseToken ?? '');
      done++;
    }
  }
  await store.close();
} else {
  const store = await openStore({ path: where, config: { ...defaultConfig.store, busyTimeoutMs: 60_000 } });
  const queue = createQueue({ store });
  await go();
  for (let i = 0; i < cycles; i++) {
    queue.enqueue({ jobType: 'cycle', payload: { i } });
    const job = queue.lease(['cycle'], workerId);
    if (job) {
      queue.complete(job.id, job.leaseToken ?? '');
      done++;
    }
  }
  store.close();
}
process.stdout.write(`${done}\n`);
