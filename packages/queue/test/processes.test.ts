import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock } from '@memory/core';
import { openStore } from '@memory/store';
import { describe, expect, it } from 'vitest';
import { createQueue } from '../src/index.js';

const root = join(import.meta.dirname, '..', '..', '..');
const fixture = join(import.meta.dirname, 'fixtures', 'queue-child.ts');

function child(
  mode: 'drain' | 'hang',
  path: string,
  workerId: string,
  leaseMs?: number,
): { proc: ChildProcess; output: Promise<string>; exit: Promise<number | null> } {
  const args = [fixture, mode, path, workerId, ...(leaseMs === undefined ? [] : [String(leaseMs)])];
  const proc = spawn(process.execPath, ['--conditions=@memory/source', '--import', 'tsx', ...args], {
    cwd: root,
    stdio: [mode === 'drain' ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const output = exit.then((code) => {
    if (code !== 0 && mode === 'drain') throw new Error(`child ${workerId} exited ${code}: ${err}`);
    return out;
  });
  return { proc, output, exit };
}

/** Waits until each drain child has opened the store, then lets them all start at once. */
async function go(children: ReadonlyArray<{ proc: ChildProcess }>): Promise<void> {
  // Every listener is attached before any await: a line that came earlier would be missed.
  const lines = await Promise.all(children.map((c) => firstLine(c.proc)));
  expect(lines).toEqual(children.map(() => 'READY'));
  for (const c of children) c.proc.stdin?.end('go\n');
}

function firstLine(proc: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    proc.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl));
    });
    proc.on('exit', (code) => reject(new Error(`child exited ${code} before reporting`)));
  });
}

describe('queue across processes', () => {
  it('four processes lease 2,000 jobs from one file and complete each exactly once', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'memory-mp-')), 'q.db');
    const store = await openStore({ path });
    const queue = createQueue({ store });
    store.write(() => {
      for (let i = 0; i < 2000; i++) queue.enqueue({ jobType: 'work', payload: { i } });
    });
    const children = [0, 1, 2, 3].map((i) => child('drain', path, `p${i}`));
    await go(children);
    const reports = (await Promise.all(children.map((c) => c.output))).map(
      (o) => JSON.parse(o.trim().split('\n').pop() ?? '{}') as { workerId: string; done: string[] },
    );
    const all = reports.flatMap((r) => r.done);
    expect(all).toHaveLength(2000);
    expect(new Set(all).size).toBe(2000);
    expect(reports.filter((r) => r.done.length > 0).length).toBeGreaterThan(1); // the work really was shared
    const rows = store.database
      .prepare("SELECT status, attempts, json_extract(result, '$.by') AS byWorker, id FROM memory_jobs")
      .all() as Array<{ status: string; attempts: number; byWorker: string; id: string }>;
    expect(rows.every((r) => r.status === 'completed' && r.attempts === 1)).toBe(true);
    const byReport = new Map(reports.flatMap((r) => r.done.map((id) => [id, r.workerId] as const)));
    for (const r of rows) expect(r.byWorker).toBe(byReport.get(r.id));
    store.close();
  }, 300_000);

  it('recovers a job whose process was killed with SIGKILL mid-job, leaving the rest undisturbed', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'memory-mp-')), 'q.db');
    const setupStore = await openStore({ path });
    const setupQueue = createQueue({ store: setupStore });
    const ids = Array.from({ length: 5 }, (_, i) => setupQueue.enqueue({ jobType: 'work', payload: { i } }).id);
    setupStore.close();

    // The victim leases with a short lease, so the survivor below can lease right after the reap.
    const victim = child('hang', path, 'victim', 300);
    const line = await firstLine(victim.proc);
    const leasedId = line.replace('LEASED ', '');
    expect(leasedId).toBe(ids[0]);
    victim.proc.kill('SIGKILL');
    expect(await victim.exit).toBeNull();

    // The reaper's clock stands at the dead worker's lease expiry: no real waiting in the test.
    const peek = await openStore({ path });
    const expiresAt = createQueue({ store: peek }).get(leasedId)?.leaseExpiresAt ?? 0;
    peek.close();
    const store = await openStore({ path, clock: createManualClock(expiresAt) });
    const queue = createQueue({ store });
    const before = queue.get(leasedId);
    expect(before).toMatchObject({ status: 'leased', attempts: 1, leasedBy: 'victim' });
    for (const id of ids.slice(1)) expect(queue.get(id)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(queue.reapExpiredLeases()).toEqual({ requeued: 1, dead: 0 });
    // The kill was an interruption, not a failure: the attempt is given back and counted apart.
    expect(queue.get(leasedId)).toMatchObject({
      status: 'pending',
      attempts: 0,
      interruptions: 1,
      leaseToken: null,
      leasedBy: null,
    });
    for (const id of ids.slice(1)) expect(queue.get(id)).toMatchObject({ status: 'pending', attempts: 0 });

    const survivor = child('drain', path, 'survivor');
    await go([survivor]);
    const report = JSON.parse((await survivor.output).trim().split('\n').pop() ?? '{}') as { done: string[] };
    expect(report.done.sort()).toEqual([...ids].sort());
    expect(queue.get(leasedId)).toMatchObject({
      status: 'completed',
      attempts: 1,
      interruptions: 1,
      result: { by: 'survivor' },
    });
    store.close();
  }, 180_000);
});
