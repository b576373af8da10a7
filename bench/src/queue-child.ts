// One of several processes draining the benchmark queue: lease + complete until nothing is left.
import { defaultConfig } from '@memory/core';
import { createQueue } from '@memory/queue';
import { openStore } from '@memory/store';

const [path, workerId] = process.argv.slice(2);
if (!path || !workerId) throw new Error('usage: queue-child <db> <workerId>');
const store = await openStore({ path, config: { ...defaultConfig.store, busyTimeoutMs: 60_000 } });
const queue = createQueue({ store });
let done = 0;
for (;;) {
  const job = queue.lease(['bench'], workerId);
  if (!job) break;
  queue.complete(job.id, job.leaseToken ?? '');
  done++;
}
process.stdout.write(`${done}\n`);
store.close();
