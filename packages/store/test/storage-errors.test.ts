import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMemoryError, MemoryError } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { openStore } from '../src/index.js';
import { raw } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';

/** Whatever the driver said must stay in `cause`: never in the message or the details a caller sees. */
function expectNoDriverText(error: unknown, ...driverWords: string[]): MemoryError {
  expect(isMemoryError(error)).toBe(true);
  const wrapped = error as MemoryError;
  const visible = `${wrapped.message} ${JSON.stringify(wrapped.toJSON())}`;
  for (const word of driverWords) expect(visible).not.toContain(word);
  expect(wrapped.cause).toBeInstanceOf(Error);
  return wrapped;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('storage errors', () => {
  it('name the failure by class, never with the driver message', async () => {
    const store = await createTestStore();
    const missing = thrown(() => store.write((sql) => sql.run(raw('INSERT INTO secret_table VALUES (1)'))));
    expect(expectNoDriverText(missing, 'secret_table', 'no such table')).toMatchObject({
      code: 'STORAGE_ERROR',
      details: { sqliteCode: 'SQLITE_ERROR' },
    });
    store.write((sql) =>
      sql.run(
        raw(
          "INSERT INTO entities (id, agent_id, name, canonical_name, created_at, updated_at) VALUES ('e1', 'a', 'A', 'a', 0, 0)",
        ),
      ),
    );
    const duplicate = thrown(() =>
      store.write((sql) =>
        sql.run(
          raw(
            "INSERT INTO entities (id, agent_id, name, canonical_name, created_at, updated_at) VALUES ('e1', 'a', 'A', 'a', 0, 0)",
          ),
        ),
      ),
    );
    expect(expectNoDriverText(duplicate, 'entities.id', 'UNIQUE constraint')).toMatchObject({
      code: 'STORAGE_ERROR',
      message: expect.stringMatching(/constraint/),
      details: { sqliteCode: 'SQLITE_CONSTRAINT_UNIQUE' },
    });
    const read = thrown(() => store.read((sql) => sql.all(raw('SELECT * FROM other_secret'))));
    expectNoDriverText(read, 'other_secret');
    // MemoryErrors raised in a write (the store's own refusal of an async callback, or the caller's) pass through.
    const own = new MemoryError('CONFLICT', 'mine');
    expect(thrown(() => store.write(() => Promise.resolve(own) as never))).toMatchObject({
      code: 'TRANSACTION_BOUNDARY',
    });
    expect(
      thrown(() =>
        store.write(() => {
          throw own;
        }),
      ),
    ).toBe(own);
  });

  it('keeps driver text out of open and migration failures', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-store-errors-'));
    const garbage = join(dir, 'not-a-database.db');
    writeFileSync(garbage, 'this is not a database file, it is plain text '.repeat(200));
    const notADatabase = await openStore({ path: garbage }).catch((e: unknown) => e);
    expectNoDriverText(notADatabase, 'file is not a database');
    const failing = await openStore({
      path: ':memory:',
      migrations: [{ version: 1, name: 'broken', statements: ['INSERT INTO missing_secret VALUES (1)'] }],
    }).catch((e: unknown) => e);
    expect(expectNoDriverText(failing, 'missing_secret', 'no such table')).toMatchObject({
      code: 'MIGRATION_FAILED',
      message: expect.stringMatching(/migration 1 \(broken\) failed/),
    });
  });
});
