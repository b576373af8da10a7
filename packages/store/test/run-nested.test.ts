import { describe, expect, it } from 'vitest';
import { raw } from '../src/internal/sql.js';
import { all, type Program, run } from '../src/program/program.js';
import { runNested, runSqliteProgram } from '../src/program/run-sqlite.js';
import { createTestStore } from '../src/testing.js';

// runNested runs an inner program on SQLite's executor in place of `yield*`: the same statements in
// the same order, the same result, and a failing statement thrown into the inner program (its
// `finally` runs) and then out through the outer one.

function* inner(log: string[], fail: boolean): Program<number> {
  try {
    yield* run(raw('INSERT INTO t (v) VALUES (?)', 'inner'));
    if (fail) yield* run(raw('INSERT INTO missing (v) VALUES (1)'));
    const rows = yield* all<{ v: string }>(raw('SELECT v FROM t ORDER BY rowid'));
    return rows.length;
  } finally {
    log.push('inner finally');
  }
}

function* outer(nested: boolean, log: string[], fail: boolean): Program<string[]> {
  yield* run(raw('INSERT INTO t (v) VALUES (?)', 'before'));
  const sql = { dialect: 'sqlite' as const, sql: executor };
  const n = nested ? yield* runNested(sql, inner(log, fail)) : yield* inner(log, fail);
  yield* run(raw('INSERT INTO t (v) VALUES (?)', `after ${n}`));
  return (yield* all<{ v: string }>(raw('SELECT v FROM t ORDER BY rowid'))).map((r) => r.v);
}

let executor: Parameters<typeof runSqliteProgram>[0];

describe('runNested', () => {
  it('gives what yield* gives, and fails as yield* fails', async () => {
    const store = await createTestStore({ vectorExtension: 'off' });
    try {
      const outcome = (nested: boolean, fail: boolean) => {
        const log: string[] = [];
        try {
          const rows = store.write((sql) => {
            executor = sql;
            sql.run(raw('CREATE TEMP TABLE IF NOT EXISTS t (v TEXT)'));
            sql.run(raw('DELETE FROM t'));
            return runSqliteProgram(sql, outer(nested, log, fail));
          });
          return { rows, log };
        } catch (error) {
          return { error: (error as Error).message, log };
        }
      };
      expect(outcome(true, false)).toEqual(outcome(false, false));
      expect(outcome(true, false).rows).toEqual(['before', 'inner', 'after 2']);
      const failed = outcome(true, true);
      expect(failed).toEqual(outcome(false, true));
      expect(failed).toMatchObject({ error: expect.stringContaining('database error'), log: ['inner finally'] });
    } finally {
      store.close();
    }
  });
});
