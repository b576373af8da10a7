import { createManualClock, createManualScheduler } from '@memory/core';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder, createTestEngine, T0 } from './helpers.js';

// Memory health reads counts the triggers of migration 17 maintain. After any sequence of writes,
// forgets, recoveries, content changes, expiries, recalls (access), purges and erasures, every
// count must equal the count taken from the memory rows themselves.

const DAY = 86_400_000;
const SCOPES = ['a', 'b'] as const;

const op = fc.oneof(
  fc.record({
    kind: fc.constant('remember' as const),
    scope: fc.constantFrom(...SCOPES),
    word: fc.integer({ min: 0, max: 40 }),
    expires: fc.boolean(),
    backdate: fc.integer({ min: 0, max: 200 }),
  }),
  // One call of many (the writer counts its rows per scope, model and day; migration 21), with
  // repeats within the call and of earlier memories.
  fc.record({
    kind: fc.constant('rememberMany' as const),
    scope: fc.constantFrom(...SCOPES),
    items: fc.array(
      fc.record({
        word: fc.integer({ min: 0, max: 40 }),
        expires: fc.boolean(),
        backdate: fc.integer({ min: 0, max: 200 }),
      }),
      { minLength: 1, maxLength: 12 },
    ),
  }),
  // Another insert path (as an import's): counted by the insert trigger.
  fc.record({
    kind: fc.constant('raw' as const),
    scope: fc.constantFrom(...SCOPES),
    word: fc.integer({ min: 0, max: 40 }),
    backdate: fc.integer({ min: 0, max: 200 }),
  }),
  fc.record({ kind: fc.constant('forget' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('recover' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('modify' as const), pick: fc.nat(), word: fc.integer({ min: 41, max: 80 }) }),
  fc.record({ kind: fc.constant('recall' as const), scope: fc.constantFrom(...SCOPES), word: fc.nat({ max: 80 }) }),
  fc.record({ kind: fc.constant('advance' as const), days: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant('purge' as const) }),
  fc.record({ kind: fc.constant('erase' as const), scope: fc.constantFrom(...SCOPES) }),
);

const n = (db: Database.Database, sql: string, ...params: unknown[]): number =>
  (db.prepare(sql).get(...params) as { n: number | null }).n ?? 0;

describe('maintained memory counts', () => {
  it('equal the counts of the memory rows after any sequence of lifecycle operations', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40 }), async (ops) => {
        const db = new Database(':memory:');
        const clock = createManualClock(T0);
        const scheduler = createManualScheduler(clock);
        const { engine } = await createTestEngine({
          database: { database: db },
          clock,
          scheduler,
          embedder: createBagOfWordsEmbedder(),
        });
        const ids = (deleted: number) =>
          db
            .prepare('SELECT id, agent_id AS agentId FROM memories WHERE is_deleted = ? ORDER BY id')
            .all(deleted) as Array<{
            id: string;
            agentId: string;
          }>;
        let rawIds = 0;
        for (const o of ops) {
          if (o.kind === 'remember') {
            await engine.remember({
              agentId: o.scope,
              content: `note about topic w${o.word} and its details`,
              createdAt: clock.now() - o.backdate * DAY,
              ...(o.expires ? { expiresAt: clock.now() + 10 * DAY } : {}),
            });
          } else if (o.kind === 'rememberMany') {
            await engine.rememberMany({
              agentId: o.scope,
              memories: o.items.map((m) => ({
                content: `note about topic w${m.word} and its details`,
                createdAt: clock.now() - m.backdate * DAY,
                ...(m.expires ? { expiresAt: clock.now() + 10 * DAY } : {}),
              })),
            });
          } else if (o.kind === 'raw') {
            const at = clock.now() - o.backdate * DAY;
            db.prepare(
              `INSERT OR IGNORE INTO memories (id, agent_id, type, content, normalized_content, content_hash, created_at, updated_at)
               VALUES (?, ?, 'fact', ?, ?, ?, ?, ?)`,
            ).run(`raw${rawIds++}`, o.scope, `raw note w${o.word}`, `raw note w${o.word}`, `raw-${o.word}`, at, at);
          } else if (o.kind === 'forget' || o.kind === 'modify') {
            const live = ids(0);
            const m = live[o.pick % Math.max(1, live.length)];
            if (!m) continue;
            if (o.kind === 'forget') await engine.forget({ agentId: m.agentId, id: m.id, reason: 'test', force: true });
            else
              await engine
                .modify({ agentId: m.agentId, id: m.id, reason: 'test', content: `changed to topic w${o.word}` })
                .catch(() => undefined);
          } else if (o.kind === 'recover') {
            const gone = ids(1);
            const m = gone[o.pick % Math.max(1, gone.length)];
            if (m) await engine.recover({ agentId: m.agentId, id: m.id }).catch(() => undefined);
          } else if (o.kind === 'recall') {
            await engine.recall({ agentId: o.scope, query: `topic w${o.word}` });
            await scheduler.advance(1);
          } else if (o.kind === 'advance') {
            clock.advance(o.days * DAY);
          } else if (o.kind === 'purge') {
            await engine.maintenance.run({ task: 'purge' });
          } else {
            await engine.erase({ agentId: o.scope });
          }
        }
        await scheduler.advance(1);
        const now = clock.now();
        const staleDay = Math.floor((now - engine.config.lifecycle.reapAfterDays * DAY) / DAY);
        for (const agentId of SCOPES) {
          const health = await engine.health({ agentId });
          const live = 'FROM memories WHERE agent_id = ? AND is_deleted = 0';
          expect(health).toMatchObject({
            live: n(db, `SELECT count(*) AS n ${live}`, agentId),
            forgotten: n(db, 'SELECT count(*) AS n FROM memories WHERE agent_id = ? AND is_deleted = 1', agentId),
            expiring: n(db, `SELECT count(*) AS n ${live} AND expires_at IS NOT NULL`, agentId),
            neverRecalled: n(db, `SELECT count(*) AS n ${live} AND last_accessed IS NULL`, agentId),
            stale: n(
              db,
              `SELECT count(*) AS n ${live} AND coalesce(last_accessed, created_at) / 86400000 < ?`,
              agentId,
              staleDay,
            ),
            purged: n(db, 'SELECT count(*) AS n FROM memory_tombstones WHERE agent_id = ?', agentId),
            vectors: {
              model: 'bow-test',
              current: n(db, `SELECT count(*) AS n ${live} AND embedding_model = 'bow-test'`, agentId),
              missing: n(db, `SELECT count(*) AS n ${live} AND embedding_model IS NULL`, agentId),
              otherModel: 0,
            },
          });
        }
        // Row for row, the counts are those of the memory rows (what migration 17's backfill computes).
        const kept = db
          .prepare(
            `SELECT agent_id || ' ' || kind || ' ' || model || ' ' || recalled || ' ' || day || ' ' || n AS k
             FROM memory_counts WHERE n <> 0 ORDER BY k`,
          )
          .all();
        const recount = db
          .prepare(
            `SELECT k FROM (
               SELECT agent_id || ' live ' || coalesce(embedding_model, '') || ' ' || (last_accessed IS NOT NULL) || ' '
                 || (coalesce(last_accessed, created_at) / 86400000) || ' ' || count(*) AS k
               FROM memories WHERE is_deleted = 0 GROUP BY agent_id, coalesce(embedding_model, ''),
                 (last_accessed IS NOT NULL), coalesce(last_accessed, created_at) / 86400000
               UNION ALL SELECT agent_id || ' forgotten  0 0 ' || count(*) FROM memories WHERE is_deleted = 1 GROUP BY agent_id
               UNION ALL SELECT agent_id || ' expiring  0 0 ' || count(*) FROM memories
                 WHERE is_deleted = 0 AND expires_at IS NOT NULL GROUP BY agent_id
             ) ORDER BY k`,
          )
          .all();
        expect(kept).toEqual(recount);
        // No row of a count ever goes negative.
        expect(n(db, 'SELECT count(*) AS n FROM memory_counts WHERE n < 0')).toBe(0);
        await engine.close();
        db.close();
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
