import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { defaultConfig, type Logger } from '@memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openStore } from '../src/index.js';
import { startCheckpointer } from '../src/internal/checkpointer.js';
import { raw } from '../src/sql.js';
import { openFilesUnder, processThreads, threadsSettledTo } from './support/wal-files.js';

const onLinux = process.platform === 'linux';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'memory-ckpt-close-'));
}

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const none = () => undefined;
  return { warnings, debug: none, info: none, error: none, warn: (message) => warnings.push(message) };
}

/** A WAL database file with `rows` rows in table t, its frames left in the WAL. */
function walFile(path: string, rows: number): Database.Database {
  const writer = new Database(path);
  writer.pragma('journal_mode = WAL');
  writer.pragma('wal_autocheckpoint = 0');
  writer.exec('CREATE TABLE t (x TEXT)');
  insert(writer, rows);
  return writer;
}

function insert(db: Database.Database, rows: number): void {
  const statement = db.prepare('INSERT INTO t (x) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < rows; i++) statement.run(`row ${i} ${'x'.repeat(200)}`);
  })();
}

function writeRows(store: Awaited<ReturnType<typeof openStore>>, from: number, count: number): void {
  store.write((sql) => {
    for (let i = from; i < from + count; i++) {
      sql.run(
        raw(
          `INSERT INTO entities (id, agent_id, name, canonical_name, created_at, updated_at) VALUES (?, 'a', ?, ?, 0, 0)`,
          `e${i}`,
          `n${i}`,
          `n${i}`,
        ),
      );
    }
  });
}

describe('closing a store with background checkpoints', () => {
  it.skipIf(!onLinux)(
    'resolves once the worker has closed its connection, with a checkpoint in flight resolved, not rejected',
    async () => {
      const dir = tempDir();
      const threadsBefore = processThreads();
      const store = await openStore({ path: join(dir, 'c.db') });
      writeRows(store, 0, 300);
      // The worker is up and has checkpointed once.
      expect((await store.checkpoint())?.log).toBeGreaterThan(0);
      writeRows(store, 300, 300);
      const inflight = store.checkpoint('truncate');
      const closing = store.close();
      // Usable synchronously: closed at once, and every call returns the same promise.
      expect(store.closed).toBe(true);
      expect(store.close()).toBe(closing);
      const result = await inflight;
      expect(result === undefined || result.log >= 0).toBe(true);
      await closing;
      expect(openFilesUnder(dir)).toEqual([]);
      // The worker's thread has exited.
      expect(await threadsSettledTo(threadsBefore)).toBe(threadsBefore);
      // Every row reached the file (the last connection's close checkpointed the WAL and removed it).
      expect(readdirSync(dir)).toEqual(['c.db']);
      const reader = new Database(join(dir, 'c.db'), { readonly: true });
      expect(reader.prepare('SELECT count(*) AS n FROM entities').get()).toEqual({ n: 600 });
      reader.close();
      await expect(store.checkpoint()).resolves.toBeUndefined();
      rmSync(dir, { recursive: true });
    },
  );

  it('resolves at once for in-memory stores and with background checkpoints off', async () => {
    const memory = await openStore({ path: ':memory:' });
    await expect(memory.close()).resolves.toBeUndefined();
    const dir = tempDir();
    const off = await openStore({
      path: join(dir, 'c.db'),
      config: { ...defaultConfig.store, backgroundCheckpoint: false },
    });
    writeRows(off, 0, 10);
    await off.close();
    if (onLinux) expect(openFilesUnder(dir)).toEqual([]);
    rmSync(dir, { recursive: true });
  });

  it('leaves a host-owned connection open', async () => {
    const dir = tempDir();
    const database = new Database(join(dir, 'c.db'));
    const store = await openStore({ database });
    writeRows(store, 0, 10);
    await store.close();
    expect(database.open).toBe(true);
    expect(database.prepare('SELECT count(*) AS n FROM entities').get()).toEqual({ n: 10 });
    database.close();
    rmSync(dir, { recursive: true });
  });
});

describe('the checkpoint worker at close', () => {
  it.skipIf(!onLinux)('closed right after it started, exits without opening the file', async () => {
    const dir = tempDir();
    const path = join(dir, 'c.db');
    walFile(path, 10).close();
    const logger = recordingLogger();
    const threadsBefore = processThreads();
    const worker = startCheckpointer(path, logger);
    expect(processThreads()).toBe(threadsBefore + 1);
    const request = worker?.request();
    await worker?.close();
    await expect(request).resolves.toBeUndefined();
    await expect(worker?.request()).resolves.toBeUndefined();
    expect(openFilesUnder(dir)).toEqual([]);
    expect(await threadsSettledTo(threadsBefore)).toBe(threadsBefore);
    expect(logger.warnings).toEqual([]);
    rmSync(dir, { recursive: true });
  });

  it('that died earlier, closes at once', async () => {
    const dir = tempDir();
    const logger = recordingLogger();
    let stopped: () => void = () => undefined;
    const died = new Promise<void>((resolve) => {
      stopped = resolve;
    });
    // No such file: the worker's connection refuses to create it and the thread dies.
    const worker = startCheckpointer(join(dir, 'missing.db'), logger, () => stopped());
    await died;
    expect(logger.warnings).toEqual(['checkpoint worker stopped']);
    await expect(worker?.request()).resolves.toBeUndefined();
    await worker?.close();
    expect(logger.warnings).toEqual(['checkpoint worker stopped']);
    rmSync(dir, { recursive: true });
  });

  it('that does not exit by the deadline, is terminated with a warning and close resolves at its exit', async () => {
    const dir = tempDir();
    const path = join(dir, 'c.db');
    const writer = walFile(path, 100);
    const logger = recordingLogger();
    const worker = startCheckpointer(path, logger, undefined, 20);
    // The worker is up, and the WAL copied into the file.
    expect((await worker?.request())?.checkpointed).toBeGreaterThan(0);
    // A reader whose snapshot needs WAL frames: a TRUNCATE checkpoint waits for it (the worker's
    // busy timeout, 1 s) inside one synchronous call, holding the write lock meanwhile.
    insert(writer, 100);
    const reader = new Database(path, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM t').get();
    const truncating = worker?.request('truncate');
    const probe = new Database(path);
    probe.pragma('busy_timeout = 0');
    const writeLockHeld = (): boolean => {
      try {
        probe.exec('BEGIN IMMEDIATE; ROLLBACK');
        return false;
      } catch {
        return true;
      }
    };
    // Until the worker is inside the checkpoint (it takes the write lock first).
    for (let i = 0; i < 500 && !writeLockHeld(); i++) await delay(2);
    expect(writeLockHeld()).toBe(true);
    await worker?.close();
    expect(logger.warnings).toEqual(['checkpoint worker did not exit after close; terminating it']);
    await expect(truncating).resolves.toBeUndefined();
    reader.exec('ROLLBACK');
    for (const db of [reader, probe, writer]) db.close();
    // close() resolved at the thread's exit, after its busy wait ended: nothing holds the file.
    rmSync(dir, { recursive: true });
  });
  it('still runs a truncate asked for just before close, so erased text leaves the WAL', async () => {
    const dir = tempDir();
    const path = join(dir, 't.db');
    // Another connection keeps the file open: the worker's is not the last one, so its close does not
    // checkpoint and remove the WAL on its own.
    const writer = walFile(path, 100);
    const worker = startCheckpointer(path, recordingLogger());
    expect((await worker?.request())?.checkpointed).toBeGreaterThan(0);
    insert(writer, 100);
    const walBytes = () => readFileSync(`${path}-wal`).length;
    expect(walBytes()).toBeGreaterThan(0);
    // The truncate is posted first, then close: the worker meets both after close has begun.
    const truncating = worker?.request('truncate');
    await worker?.close();
    await truncating;
    // The truncate ran before the worker closed: the WAL file is empty.
    expect(walBytes()).toBe(0);
    writer.close();
    rmSync(dir, { recursive: true });
  });
});
