import type { PGlite } from '@electric-sql/pglite';
import { MemoryError } from '@memory/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Migration } from '../../src/migrations/migration.js';
import { openPostgresStore, type PostgresStore } from '../../src/postgres.js';
import { all, get, type Program, portable, run } from '../../src/program/program.js';
import { closeSharedPglite, sharedPglite } from '../support/pglite.js';

// PGlite is one session. Two stores on one instance (two engines, an engine and a copy) each have
// a pool of their own; their transactions must take turns, not run inside each other. The short
// timeouts make a regression fail instead of hanging the suite (it hung before the stores shared
// PGlite's lock).

const counters: Migration = {
  version: 1,
  name: 'counters',
  statements: ['CREATE TABLE IF NOT EXISTS counters (id TEXT PRIMARY KEY, n INTEGER NOT NULL)'],
  postgres: ['CREATE TABLE IF NOT EXISTS counters (id text PRIMARY KEY, n integer NOT NULL)'],
};

// Read, then write what was read plus one: a transaction run inside another's would lose or repeat
// an increment, and a BEGIN inside another's transaction would fail.
function* increment(id: string): Program<number> {
  yield* run(portable('INSERT INTO counters (id, n) VALUES (?, 0) ON CONFLICT (id) DO NOTHING', id));
  const n = ((yield* get<{ n: number }>(portable('SELECT n FROM counters WHERE id = ?', id)))?.n ?? 0) + 1;
  yield* run(portable('UPDATE counters SET n = ? WHERE id = ?', n, id));
  return n;
}

describe('two stores on one PGlite instance', () => {
  let pglite: PGlite;
  let one: PostgresStore;
  let two: PostgresStore;
  beforeAll(async () => {
    pglite = await sharedPglite();
    one = await openPostgresStore({ target: { pglite }, migrations: [counters] });
    two = await openPostgresStore({ target: { pglite }, migrations: [counters] });
  }, 120_000);
  afterAll(async () => {
    await Promise.all([one?.close(), two?.close()]);
    await closeSharedPglite();
  });

  it('run their transactions one after another, with and without lock keys', async () => {
    const writes: Array<Promise<number>> = [];
    for (let i = 0; i < 20; i++) {
      writes.push(one.write(() => increment('shared'), { lockKeys: ['scope:a'] }));
      writes.push(two.write(() => increment('shared'), i % 2 === 0 ? { lockKeys: ['scope:a'] } : {}));
      writes.push(two.read(() => all(portable('SELECT n FROM counters WHERE id = ?', 'shared'))).then(() => 0));
    }
    const results = (await Promise.all(writes)).filter((n) => n > 0);
    expect(results.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(await one.read(() => get(portable('SELECT n FROM counters WHERE id = ?', 'shared')))).toEqual({ n: 40 });
  }, 15_000);

  it("a failed transaction of one store leaves the other's next transaction whole", async () => {
    const failing = one.write(function* () {
      yield* increment('after-failure');
      yield* run(portable('INSERT INTO no_such_table (x) VALUES (1)'));
    });
    const passing = two.write(() => increment('after-failure'));
    await expect(failing).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    expect(await passing).toBe(1);
    expect(await two.read(() => get(portable('SELECT n FROM counters WHERE id = ?', 'after-failure')))).toEqual({
      n: 1,
    });
  }, 15_000);

  it("the host's own PGlite queries never run inside a store's transaction", async () => {
    let host: Promise<{ rows: unknown[] }> | undefined;
    const rolledBack = one.write(function* () {
      yield* run(portable('INSERT INTO counters (id, n) VALUES (?, 7)', 'uncommitted'));
      // Asked mid-transaction: run inside it, the query would see a row that is then rolled back.
      host = pglite.query("SELECT n FROM counters WHERE id = 'uncommitted'");
      yield* run(portable('SELECT 1'));
      throw new MemoryError('CONFLICT', 'roll back');
    });
    await expect(rolledBack).rejects.toThrow('roll back');
    expect((await host)?.rows).toEqual([]);
  }, 15_000);
});
