import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder, createTestEngine } from './helpers.js';

// SQLite (3.53, as bundled) plans `LIMIT ?` with the bound value and marks the statement to be prepared again
// whenever that parameter is bound again: on every run, since the driver binds on every call. A
// statement the write path runs per memory must not do that (issue 20 item 5: the key index's
// catch-up read was parsed and planned again on every remember of a checked kind).
const BOUND_LIMIT = /\blimit\s+\?/i;

/** Every statement text the engine prepares on this connection. */
function recordingDatabase(): { db: Database.Database; prepared: Set<string> } {
  const db = new Database(':memory:');
  const prepared = new Set<string>();
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    prepared.add(source);
    return prepare(source);
  }) as typeof db.prepare;
  return { db, prepared };
}

describe('statements of the write path', () => {
  it('bind no LIMIT in remember, remember with conflict detection and rememberMany', async () => {
    const { db, prepared } = recordingDatabase();
    const { engine } = await createTestEngine({
      database: { database: db },
      embedder: createBagOfWordsEmbedder(256),
      config: { remember: { conflict: { threshold: 0.5 } } },
    });
    const before = new Set(prepared);
    await engine.remember({ agentId: 'a', content: 'The weekly standup is at 9:30 on Monday', type: 'decision' });
    // A checked kind that merges into the first: the key index's catch-up and the merge both run.
    const merged = await engine.remember({
      agentId: 'a',
      content: 'The weekly standup is at 10:00 on Tuesday',
      type: 'decision',
    });
    expect(merged.updated).toBe(true);
    await engine.remember({ agentId: 'a', content: 'Dana prefers green tea', type: 'preference' });
    await engine.rememberMany({
      agentId: 'a',
      memories: [
        { content: 'The release train leaves on Thursdays', type: 'decision' },
        { content: 'Dana prefers green tea', type: 'preference' },
        { content: 'Bob reviews the billing code', type: 'fact' },
      ],
    });
    const writePath = [...prepared].filter((sql) => !before.has(sql));
    // The catch-up read ran (so the assertion below covers it).
    expect(writePath.some((sql) => /FROM memories\s+WHERE seq > \?/.test(sql))).toBe(true);
    expect(writePath.filter((sql) => BOUND_LIMIT.test(sql))).toEqual([]);
    await engine.close();
    db.close();
  });

  it('reads the memories written since a checked remember once, by seq, not again by id', async () => {
    const db = new Database(':memory:');
    const runs: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((source: string) => {
      const statement = prepare(source);
      const all = statement.all.bind(statement);
      statement.all = ((...parameters: unknown[]) => {
        runs.push(source);
        return all(...parameters);
      }) as typeof statement.all;
      return statement;
    }) as typeof db.prepare;
    const { engine } = await createTestEngine({
      database: { database: db },
      embedder: createBagOfWordsEmbedder(256),
      config: { remember: { conflict: { threshold: 0.5 } } },
    });
    // The first checked remember builds the scope's key index; two of an unchecked kind follow.
    await engine.remember({ agentId: 'a', content: 'The weekly standup is at 9:30 on Monday', type: 'decision' });
    const b = await engine.remember({ agentId: 'a', content: 'Dana prefers green tea', type: 'preference' });
    const c = await engine.remember({ agentId: 'a', content: 'Bob reviews the billing code', type: 'fact' });
    runs.length = 0;
    await engine.remember({ agentId: 'a', content: 'Deploys are frozen on Fridays', type: 'decision' });
    const bySeq = runs.filter((sql) => /FROM memories\s+WHERE seq > \?/.test(sql));
    const byId = runs.filter((sql) => /CROSS JOIN memories AS m ON m\.id = wanted\.value/.test(sql));
    // Two new rows to catch up on, read by the catch-up read, and only by it.
    expect([b.deduped, c.deduped]).toEqual([false, false]);
    expect(bySeq.length).toBeGreaterThan(0);
    expect(byId).toEqual([]);
    await engine.close();
    db.close();
  });

  it('writes the vector, vec0 and history rows of a rememberMany batch many to a statement', async () => {
    const db = new Database(':memory:');
    const runs = new Map<string, number>();
    const prepare = db.prepare.bind(db);
    db.prepare = ((source: string) => {
      const statement = prepare(source);
      for (const method of ['all', 'get', 'run'] as const) {
        const call = statement[method].bind(statement) as (...parameters: unknown[]) => unknown;
        (statement as unknown as Record<string, unknown>)[method] = (...parameters: unknown[]) => {
          runs.set(source, (runs.get(source) ?? 0) + 1);
          return call(...parameters);
        };
      }
      return statement;
    }) as typeof db.prepare;
    const { engine } = await createTestEngine({
      database: { database: db },
      embedder: createBagOfWordsEmbedder(256),
    });
    await engine.remember({ agentId: 'a', content: 'The first memory makes the scope, index and partition' });
    runs.clear();
    // 40 memories, one transaction (the first batch holds up to the configured size): 16 + 16 + 8.
    const results = await engine.rememberMany({
      agentId: 'a',
      memories: Array.from({ length: 40 }, (_, i) => ({ content: `Bulk memory number ${i} on topic ${i % 5}` })),
    });
    expect(results.filter((r) => r.deduped)).toEqual([]);
    const count = (pattern: RegExp) =>
      [...runs].filter(([sql]) => pattern.test(sql)).reduce((sum, [, n]) => sum + n, 0);
    // Memory rows go one to a statement on SQLite (a multi-row insert into a table with row triggers
    // goes through a temporary table and cost more; see insertMemoryRowsProgram).
    expect(count(/^INSERT INTO memories \(/)).toBe(40);
    expect(count(/^INSERT INTO embeddings /)).toBe(3);
    expect(count(/^INSERT INTO vec_memory_\d+ /)).toBe(3);
    expect(count(/^INSERT INTO memory_history /)).toBe(3);
    await engine.close();
    db.close();
  });
});
