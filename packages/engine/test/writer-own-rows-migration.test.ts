import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock } from '@memory/core';
import { prepareContent } from '@memory/store';
import { textTerms } from '@memory/store/testing';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../store/src/migrations/index.js';
import { runMigrations } from '../../store/src/migrations/runner.js';
import { createBagOfWordsEmbedder, createTestEngine, T0 } from './helpers.js';

// Migration 21 (the writer counts and indexes its own rows) on a file written before it: rows the
// old triggers indexed and counted stay searchable and counted, and writes after it keep both exact.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

const DAY = 86_400_000;

/** The live counts and postings the file keeps, and those recomputed from its memory rows. */
function kept(db: Database.Database) {
  const counts = db
    .prepare(
      `SELECT agent_id || ' ' || kind || ' ' || model || ' ' || day || ' ' || n AS k FROM memory_counts
       WHERE n <> 0 AND kind = 'live' ORDER BY k`,
    )
    .all();
  const recount = db
    .prepare(
      `SELECT agent_id || ' live ' || coalesce(embedding_model, '') || ' ' || (created_at / 86400000) || ' ' || count(*) AS k
       FROM memories WHERE is_deleted = 0
       GROUP BY agent_id, coalesce(embedding_model, ''), created_at / 86400000 ORDER BY k`,
    )
    .all();
  const postings = (
    db
      .prepare(
        `SELECT s.agent_id || ' ' || p.term || ' ' || p.row || ' ' || p.tf AS p
         FROM text_postings p JOIN text_scopes s ON s.scope = p.scope WHERE s.corpus = 'memory'`,
      )
      .all() as Array<{ p: string }>
  )
    .map((r) => r.p)
    .sort();
  const expected: string[] = [];
  for (const row of db.prepare('SELECT seq, agent_id, content FROM memories WHERE is_deleted = 0').all() as Array<{
    seq: number;
    agent_id: string;
    content: string;
  }>)
    for (const [term, tf] of textTerms(row.content).counts) expected.push(`${row.agent_id} ${term} ${row.seq} ${tf}`);
  return { counts, recount, postings, expected: expected.sort() };
}

describe('migration 21 on a file written before it', () => {
  it('keeps old rows searchable and counted, and writes after it keep the counts and text index exact', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-m21-'));
    dirs.push(dir);
    const path = join(dir, 'old.db');
    // The file as the code before migration 21 left it: its migrations, then rows its triggers indexed and counted.
    const old = new Database(path);
    runMigrations(
      old,
      MIGRATIONS.filter((m) => m.version < 21),
      createManualClock(T0),
    );
    const insert = old.prepare(
      `INSERT INTO memories (id, agent_id, type, content, normalized_content, content_hash, created_at, updated_at)
       VALUES (?, 'a', 'fact', ?, ?, ?, ?, ?)`,
    );
    const oldTexts = ['the okapi lives in the garden', 'zebra crossing near the station', 'tea with lemon at noon'];
    oldTexts.forEach((text, i) => {
      const { content, normalized, hash } = prepareContent(text);
      insert.run(`old${i}`, content, normalized, hash, T0 - (i + 1) * DAY, T0 - (i + 1) * DAY);
    });
    expect(
      (old.prepare("SELECT n FROM memory_counts WHERE agent_id = 'a' AND kind = 'live'").all() as Array<{ n: number }>)
        .map((r) => r.n)
        .reduce((a, b) => a + b, 0),
    ).toBe(3);
    old.close();

    const db = new Database(path);
    const { engine } = await createTestEngine({ database: { database: db }, embedder: createBagOfWordsEmbedder() });
    expect(db.prepare('SELECT max(version) AS v FROM schema_migrations').get()).toEqual({ v: 21 });

    // Old rows are found.
    const okapi = await engine.recall({ agentId: 'a', query: 'okapi garden', windowDays: null });
    expect(okapi.results.map((r) => r.id)).toContain('old0');

    // Writes after the migration: a batch with a repeat of an old memory, a single one, a change of an
    // old memory's content, a forget and a recovery (the writer's own rows, triggers idle).
    const batch = await engine.rememberMany({
      agentId: 'a',
      memories: [
        { content: 'capybara swims in the river' },
        { content: 'zebra crossing near the station' },
        { content: 'lemur sleeps in the tree', createdAt: T0 - 40 * DAY },
      ],
    });
    expect(batch.map((r) => r.deduped)).toEqual([false, true, false]);
    await engine.remember({ agentId: 'a', content: 'walrus naps on the ice' });
    await engine.modify({ agentId: 'a', id: 'old2', content: 'coffee with milk at dawn', reason: 'test' });
    await engine.forget({ agentId: 'a', id: 'old1', reason: 'test' });
    await engine.recover({ agentId: 'a', id: 'old1' });
    await engine.forget({ agentId: 'a', id: 'old0', reason: 'test' });

    const after = kept(db);
    expect(after.counts).toEqual(after.recount);
    expect(after.postings).toEqual(after.expected);
    const ids = async (query: string) =>
      (await engine.recall({ agentId: 'a', query, windowDays: null })).results.map((r) => r.id);
    expect(await ids('capybara river')).toContain(batch[0]?.id);
    expect(await ids('zebra station')).toContain('old1');
    expect(await ids('coffee dawn')).toContain('old2');
    expect(await ids('lemon noon')).not.toContain('old2');
    expect(await ids('okapi garden')).not.toContain('old0');
    await engine.close();
    db.close();
  });
});
