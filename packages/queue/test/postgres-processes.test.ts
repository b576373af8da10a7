// Several processes sharing one PostgreSQL database: every job runs and completes exactly once, a
// lease taken over after expiry leaves its old holder with LEASE_LOST, and two holders racing on
// one job meet a serialization failure that the store's retry turns into LEASE_LOST.
// Needs a real server (PGlite is one connection in one process): the run's test server.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { defaultConfig, isMemoryError } from '@memory/core';
import { openPostgresStore, type PostgresStore } from '@memory/store/postgres';
import { all, get, perDialect, raw, run } from '@memory/store/sql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAdvisoryLock } from '../../store/test/support/postgres.js';
import { createPostgresQueue, type PostgresQueue } from '../src/index.js';
import { OLDEST_ELIGIBLE } from '../src/operations/lease.js';
import { server, serverDatabase } from './contract/backends.js';

const root = join(import.meta.dirname, '..', '..', '..');
const fixture = join(import.meta.dirname, 'fixtures', 'pg-queue-child.ts');

function child(args: string[]): {
  proc: ChildProcess;
  lines: string[];
  exit: Promise<number | null>;
  err: () => string;
} {
  const proc = spawn(process.execPath, ['--conditions=@memory/source', '--import', 'tsx', fixture, ...args], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let buf = '';
  let err = '';
  proc.stdout?.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      lines.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
  });
  proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, lines, exit, err: () => err };
}

async function lineFrom(c: { lines: string[]; exit: Promise<number | null>; err: () => string }, index: number) {
  // Up to 120 s: a child's start-up (tsx, a pool) took 12 s at load average 18.
  for (let i = 0; i < 2400; i++) {
    const line = c.lines[index];
    if (line !== undefined) return line;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no line ${index} from the child: ${c.err()}`);
}

/** Polls `check` (a database query) until it holds; a bounded wait for an event, never a fixed sleep. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Runs `change` on the job in a transaction that then waits for a gate the test holds (an advisory
 * lock of its own session), so the job's row stays locked until `open()`: other transactions are
 * seen waiting for it however slow the machine is. (A fixed pg_sleep and a sleep in the test raced
 * on a loaded machine: the change could start after the calls it was meant to block.)
 */
async function heldChange(url: string, s: PostgresStore, id: string, change: string) {
  const key = `memory-test-gate:${id}:${change}`;
  const gate = await holdAdvisoryLock(url, key);
  const done = s.write(function* () {
    yield* run(perDialect(raw('SELECT 1'), raw(`UPDATE memory_jobs SET ${change} WHERE id = $1`, id)));
    yield* get(perDialect(raw('SELECT 1'), raw('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', key)));
  });
  // Waiting for the gate means the UPDATE has run: the row lock is held.
  await until('the change holds the row lock', () => gate.waited());
  return { done, open: () => gate.release() };
}

/** Sessions of this test's database waiting for a row (not an advisory lock): the callers the change blocks. */
async function rowLockWaiters(s: PostgresStore): Promise<number> {
  const row = await s.read(() =>
    get<{ n: number }>(
      perDialect(
        raw('SELECT 1 AS n'),
        raw(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event <> 'advisory'`,
        ),
      ),
    ),
  );
  return row?.n ?? 0;
}

describe.skipIf(!server.available)(
  `queue across processes on PostgreSQL${server.available ? '' : ` (skipped: ${server.reason})`}`,
  () => {
    let url: string;
    let database: { close(): Promise<void> } | undefined;
    let store: PostgresStore;
    let queue: PostgresQueue;
    beforeAll(async () => {
      const db = await serverDatabase();
      database = db;
      url = db.connectionString;
      store = await openPostgresStore({ target: { connectionString: url, maxConnections: 4 } });
      queue = createPostgresQueue({ store });
    }, 180_000);
    afterAll(async () => {
      await store?.close();
      await database?.close();
    });

    it('four processes run 1,000 jobs with workers: each job runs and completes exactly once', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 1000; i++) ids.push((await queue.enqueue({ jobType: 'work', payload: { i } })).id);
      const children = [0, 1, 2, 3].map((i) => child(['drain', url, `p${i}`]));
      for (const c of children) expect(await lineFrom(c, 0)).toBe('READY');
      for (const c of children) c.proc.stdin?.end('go\n');
      const reports = await Promise.all(
        children.map(async (c) => {
          const code = await c.exit;
          if (code !== 0) throw new Error(`child exited ${code}: ${c.err()}`);
          return JSON.parse(c.lines.at(-1) ?? '{}') as {
            workerId: string;
            ran: string[];
            status: { completed: number; failed: number };
          };
        }),
      );
      const ran = reports.flatMap((r) => r.ran);
      expect(ran).toHaveLength(1000); // no job ran twice ...
      expect(new Set(ran)).toEqual(new Set(ids)); // ... and none was lost
      expect(reports.filter((r) => r.ran.length > 0).length).toBeGreaterThan(1); // the work really was shared
      for (const r of reports) expect(r.status).toMatchObject({ completed: r.ran.length, failed: 0 });
      const rows = await store.read(() =>
        all<{ id: string; status: string; attempts: number; result: string }>(
          perDialect(raw('SELECT 1'), raw('SELECT id, status, attempts, result FROM memory_jobs')),
        ),
      );
      expect(rows).toHaveLength(1000);
      const byReport = new Map(reports.flatMap((r) => r.ran.map((id) => [id, r.workerId] as const)));
      for (const row of rows) {
        expect(row).toMatchObject({ status: 'completed', attempts: 1 });
        expect(JSON.parse(row.result)).toEqual({ by: byReport.get(row.id) });
      }
    }, 400_000);

    it('a lease taken over after expiry leaves the old holder with LEASE_LOST, changing nothing', async () => {
      const { id } = await queue.enqueue({ jobType: 'work', payload: { takeover: true } });
      const holder = child(['hold', url, 'old-holder', '300']);
      expect(await lineFrom(holder, 0)).toBe(`LEASED ${id}`);
      await new Promise((resolve) => setTimeout(resolve, 400)); // the holder's lease expires
      expect(await queue.reapExpiredLeases()).toEqual({ requeued: 1, dead: 0 });
      const taken = await queue.lease(['work'], 'new-holder');
      expect(taken?.id).toBe(id);
      holder.proc.stdin?.end('go\n');
      expect(await lineFrom(holder, 1)).toBe('LEASE_LOST');
      expect(await holder.exit).toBe(0);
      expect(await queue.get(id)).toMatchObject({ status: 'leased', leasedBy: 'new-holder', interruptions: 1 });
      await queue.complete(id, taken?.leaseToken ?? '', { by: 'new-holder' });
      expect(await queue.get(id)).toMatchObject({ status: 'completed', result: { by: 'new-holder' } });
    }, 300_000);

    it('holders racing a committed change of their job: a serializable fail conflicts and is re-run, a completion waits on the row lock; both get LEASE_LOST', async () => {
      const { id } = await queue.enqueue({ jobType: 'race' });
      const job = await queue.lease(['race'], 'w');
      const token = job?.leaseToken ?? '';
      // Another transaction changes the job and holds its row lock until the test opens its gate, so
      // the calls below read the job as leased, wait on the lock, and then meet the commit.
      const noRetry = await openPostgresStore({
        target: { connectionString: url, maxConnections: 2 },
        maxWriteAttempts: 1,
      });
      try {
        // Without the store's retry the conflict surfaces as a serialization failure (SQLSTATE 40001),
        // and the fail changed nothing.
        const touching = await heldChange(url, noRetry, id, 'updated_at = updated_at + 1');
        const bare = createPostgresQueue({ store: noRetry, config: defaultConfig.queue });
        const failing = bare.fail(id, token, 'boom').catch((e: unknown) => e);
        await until('the fail waits for the row', async () => (await rowLockWaiters(store)) === 1);
        await touching.open();
        const error = await failing;
        await touching.done;
        expect(isMemoryError(error, 'STORAGE_ERROR')).toBe(true);
        expect((error as { details: { sqlState?: string } }).details.sqlState).toBe('40001');
        expect(await queue.get(id)).toMatchObject({ status: 'leased', attempts: 1, error: null });
        // With it, the fail runs again and sees the cancel; the completion (READ COMMITTED) waited
        // for the lock and read the committed row. Neither changes anything.
        const cancelling = await heldChange(url, noRetry, id, "status = 'cancelled'");
        let settled = 0;
        const outcomes = Promise.allSettled(
          [queue.fail(id, token, 'late'), queue.complete(id, token, 'late')].map((p) => p.finally(() => settled++)),
        );
        // Both wait for the other commit: seen waiting for the row, and not settled before it.
        await until('the fail and the completion wait for the row', async () => (await rowLockWaiters(store)) === 2);
        expect(settled).toBe(0);
        await cancelling.open();
        await cancelling.done;
        for (const outcome of await outcomes) {
          expect(outcome.status).toBe('rejected');
          expect(isMemoryError((outcome as PromiseRejectedResult).reason, 'LEASE_LOST')).toBe(true);
        }
        expect(await queue.get(id)).toMatchObject({ status: 'cancelled', result: null, error: null });
      } finally {
        await noRetry.close();
      }
    }, 180_000);

    it('a reap racing a heartbeat of the same job is re-run and sees the extended lease', async () => {
      const clock = { now: () => Date.now() - 120_000 }; // a job leased two minutes ago: expired now
      const past = await openPostgresStore({ target: { connectionString: url, maxConnections: 2 }, clock });
      try {
        const then = createPostgresQueue({ store: past });
        const { id } = await then.enqueue({ jobType: 'beat' });
        const job = await then.lease(['beat'], 'w');
        expect(job?.id).toBe(id);
        // The heartbeat's row lock is held while the reaper looks at the expired lease.
        const beating = await heldChange(url, store, id, `lease_expires_at = ${Date.now() + 60_000}`);
        let reaped = false;
        const reaping = queue.reapExpiredLeases().finally(() => {
          reaped = true;
        });
        await until('the reap waits for the row', async () => reaped || (await rowLockWaiters(past)) === 1);
        expect(reaped).toBe(false);
        await beating.open();
        expect(await reaping).toEqual({ requeued: 0, dead: 0 });
        await beating.done;
        expect(await queue.get(id)).toMatchObject({ status: 'leased', leaseToken: job?.leaseToken, interruptions: 0 });
      } finally {
        await past.close();
      }
    }, 180_000);

    it('the lease reads the pending index in order: no scan of the backlog, no sort', async () => {
      // 20,000 pending jobs over 5 types, statistics up to date.
      await store.write(() =>
        run(
          perDialect(
            raw('SELECT 1'),
            raw(`INSERT INTO memory_jobs (id, job_type, status, payload, run_at, created_at, updated_at, max_interruptions)
                 SELECT 'plan-' || i, 'type' || (i % 5), 'pending', '{}', 1000 + i, 0, 0, 3 FROM generate_series(1, 20000) AS i`),
          ),
        ),
      );
      await store.write(() => run(perDialect(raw('SELECT 1'), raw('ANALYZE memory_jobs'))));
      const text = `EXPLAIN ${OLDEST_ELIGIBLE.replace('?', '$1').replace('?', '$2')} FOR UPDATE SKIP LOCKED`;
      const plan = (
        await store.read(() =>
          all<{ 'QUERY PLAN': string }>(perDialect(raw('SELECT 1'), raw(text, 'type3', 1_000_000))),
        )
      ).map((r) => r['QUERY PLAN']);
      expect(plan.join('\n')).toMatch(/Index Scan using memory_jobs_pending/);
      expect(plan.join('\n')).not.toMatch(/Sort|Seq Scan/);
    }, 180_000);
  },
);
