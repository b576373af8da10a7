// The load generator of the HTTP bench, in a worker thread so the clients' own work (request
// building, JSON parsing) does not run on the server's event loop. Each of `clients` loops sends one
// recall at a time over a keep-alive connection; latencies are recorded after the warm-up.
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

const { url, token, queries, agents, clients, durationMs, warmup, floor } = workerData;
let next = 0;
const latencies = [];
const statuses = {};

async function one(record) {
  const i = next++;
  const query = queries[i % queries.length];
  const agentId = encodeURIComponent(agents[i % agents.length]);
  const started = performance.now();
  // The floor: the cheapest authenticated read (token check, routing, one indexed page of one row).
  const response = floor
    ? await fetch(`${url}/api/memories?agentId=${agentId}&limit=1`, { headers: { authorization: `Bearer ${token}` } })
    : await fetch(`${url}/api/recall?agentId=${agentId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, limit: 10 }),
      });
  await response.arrayBuffer();
  const ms = performance.now() - started;
  if (record) {
    latencies.push(ms);
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
  }
}

const loop = async (work) => Promise.all(Array.from({ length: clients }, () => work()));
await loop(async () => {
  for (let i = 0; i < Math.ceil(warmup / clients); i++) await one(false);
});
const started = performance.now();
const end = started + durationMs;
await loop(async () => {
  while (performance.now() < end) await one(true);
});
parentPort.postMessage({ latencies, statuses, elapsedMs: performance.now() - started });
