import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openStore, type Store } from '../src/index.js';
import { raw } from '../src/sql.js';
import { walHighWater } from './support/wal-files.js';

const root = join(import.meta.dirname, '..', '..', '..');
const child = join(import.meta.dirname, 'fixtures', 'wal-load-child.ts');

function tempPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'memory-wal-')), 'w.db');
}

/** One commit of `rows` rows of ~4 KB (a WAL frame or more each). */
function commitRows(store: Store, rows: number): void {
  store.write((sql) => {
    for (let i = 0; i < rows; i++) sql.run(raw('INSERT INTO filler (x) VALUES (zeroblob(4000))'));
  });
}

describe('WAL restarts during a bulk load', () => {
  it('a load that waits at walBacklog keeps the WAL near restartFrames, far below what it writes', async () => {
    const path = tempPath();
    const store = await openStore({ path, wal: { restartFrames: 2_000, writerCheckpointFrames: 1_000_000 } });
    // The writer's own checkpoint is the last resort, far past the restart point.
    expect(store.database.pragma('wal_autocheckpoint', { simple: true })).toBe(1_000_000);
    store.write((sql) => sql.run(raw('CREATE TABLE filler (x BLOB)')));
    // The worker has started (until its first reply there is no WAL length to go by).
    await store.checkpoint();
    let waits = 0;
    // 400 commits of ~50 frames: ~20,000 frames written, back to back as rememberMany's batches.
    for (let c = 0; c < 400; c++) {
      const backlog = store.walBacklog();
      if (backlog) {
        waits++;
        await backlog;
      }
      commitRows(store, 50);
      await nextTurn();
    }
    const highWater = walHighWater(path);
    store.close();
    // Without the waits the WAL never restarts in such a load and holds all ~20,000 frames.
    expect(waits).toBeGreaterThanOrEqual(5);
    expect(highWater).toBeLessThan(5_000);
    const reader = new Database(path, { readonly: true });
    expect(reader.prepare('SELECT count(*) AS n FROM filler').get()).toEqual({ n: 20_000 });
    reader.close();
  }, 60_000);

  it('ends a wait a reader keeps from settling, and does not wait again at once', async () => {
    const path = tempPath();
    const store = await openStore({ path, wal: { restartFrames: 1_000 } });
    store.write((sql) => sql.run(raw('CREATE TABLE filler (x BLOB)')));
    // A reader's snapshot pins the WAL: checkpoints cannot copy past it, so the WAL only grows.
    const reader = new Database(path, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) AS n FROM filler').get();
    for (let c = 0; c < 60; c++) commitRows(store, 50);
    // Two replies measure the pace (the first may be of a request made before the last commits).
    await store.checkpoint();
    const pinned = await store.checkpoint();
    expect(pinned?.checkpointed).toBeLessThan(pinned?.log ?? 0);
    commitRows(store, 50);
    const backlog = store.walBacklog();
    expect(backlog).toBeInstanceOf(Promise);
    await backlog;
    commitRows(store, 50);
    expect(store.walBacklog()).toBeUndefined();
    reader.exec('COMMIT');
    reader.close();
    store.close();
    expect(store.walBacklog()).toBeUndefined();
  });

  it('a load SIGKILLed while its WAL restarts over and over loses no commit it reported', async () => {
    const path = tempPath();
    const proc = spawn(process.execPath, ['--conditions=@memory/source', '--import', 'tsx', child, path, '500'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let errors = '';
    proc.stderr.on('data', (d: Buffer) => {
      errors += d.toString();
    });
    let reported = 0;
    let buffer = '';
    const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.on('exit', (_code, signal) => resolve(signal)));
    proc.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const [word, value] = line.split(' ');
        if (word === 'COMMITTED') reported = Number(value);
      }
      // ~8,000 rows (~10,000 frames): many restarts of a 500-frame WAL behind it.
      if (reported >= 8_000 && !proc.killed) proc.kill('SIGKILL');
    });
    const signal = await exited;
    expect(signal, errors).toBe('SIGKILL');
    // The WAL was restarted: it never held more than a small part of what was written.
    expect(walHighWater(path)).toBeLessThan(3_000);
    const db = new Database(path);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const kept = db.prepare('SELECT count(*) AS n, max(id) AS top FROM filler WHERE id <= ?').get(reported) as {
      n: number;
      top: number;
    };
    // Every row of every commit the child reported is there (rows are numbered 1, 2, ... in commit order).
    expect(kept).toEqual({ n: reported, top: reported });
    const tags = db.prepare("SELECT count(*) AS n FROM filler WHERE id <= ? AND tag = 'row-' || id").get(reported);
    expect(tags).toEqual({ n: reported });
    db.close();
  }, 60_000);
});
