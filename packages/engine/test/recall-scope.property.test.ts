import { createManualClock } from '@memory/core';
import { createHashingEmbedder } from '@memory/providers';
import { insertAspect, insertClaim, insertDependency, insertEntity, insertHints } from '@memory/store';
import { SqlExecutor } from '@memory/store/sql';
import { insertMention } from '@memory/store/testing';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTestEngine, T0 } from './helpers.js';

const AGENTS = ['a', 'b', 'c'] as const;
const WORDS = ['atlas', 'budget', 'launch', 'tea', 'dana', 'invoice', 'march', 'vendor', 'standup', 'garden'];

const memoryArb = fc.record({
  agent: fc.constantFrom(...AGENTS),
  words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }),
  hint: fc.option(fc.array(fc.constantFrom(...WORDS), { minLength: 2, maxLength: 4 }), { nil: undefined }),
  link: fc.option(fc.constantFrom('1', '2'), { nil: undefined }),
  session: fc.boolean(),
  mentionsEntity: fc.boolean(),
});

const queryArb = fc.record({
  agent: fc.constantFrom(...AGENTS),
  words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
  link: fc.option(fc.constantFrom('1', '2'), { nil: undefined }),
});

describe('recall scope isolation (property)', () => {
  it.each(['auto', 'off'] as const)(
    'no channel ever returns another agent’s memory, hint, entity or transcript (sqlite-vec %s)',
    async (vectorExtension) => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(memoryArb, { minLength: 1, maxLength: 40 }),
          fc.array(queryArb, { minLength: 1, maxLength: 6 }),
          async (memories, queries) => {
            const db = new Database(':memory:');
            const { engine } = await createTestEngine({
              database: { database: db },
              clock: createManualClock(T0),
              embedder: createHashingEmbedder({ dimensions: 32 }),
              config: {
                store: { vectorExtension },
                recall: { vectorScanWindow: 10, searchWindowDays: null },
                // The walk's 25 ms default is wall-clock time: under load it stops early and warns.
                traversal: { timeBudgetMs: 10_000 },
              },
            });
            const sql = new SqlExecutor(db);
            // Every agent gets the same entity names, so name resolution must be scoped to succeed.
            for (const agent of AGENTS) {
              insertEntity(sql, { id: `${agent}-atlas`, agentId: agent, name: 'Atlas', now: T0 });
              insertEntity(sql, { id: `${agent}-dana`, agentId: agent, name: 'Dana', now: T0 });
              insertAspect(sql, {
                id: `${agent}-asp`,
                agentId: agent,
                entityId: `${agent}-atlas`,
                name: 'plan',
                now: T0,
              });
              insertDependency(sql, {
                id: `${agent}-dep`,
                agentId: agent,
                sourceEntityId: `${agent}-atlas`,
                targetEntityId: `${agent}-dana`,
                type: 'owned_by',
                now: T0,
              });
              await engine.transcripts.append({
                agentId: agent,
                sessionKey: 'shared-session',
                turns: [{ role: 'user', content: `private ${agent} words: ${WORDS.join(' ')}` }],
              });
            }
            const owner = new Map<string, string>();
            for (const [i, m] of memories.entries()) {
              const { id, deduped } = await engine.remember({
                agentId: m.agent,
                content: `${m.words.join(' ')} #${i}`,
                ...(m.link ? { linkedEntities: [{ type: 'contact', refId: m.link, label: 'Dana' }] } : {}),
                ...(m.session ? { source: { type: 'transcript', id: 'shared-session' } } : {}),
              });
              if (deduped) continue;
              owner.set(id, m.agent);
              if (m.hint) insertHints(sql, m.agent, id, [m.hint.join(' ')], T0);
              if (m.mentionsEntity) {
                insertMention(sql, {
                  memoryId: id,
                  entityId: `${m.agent}-atlas`,
                  agentId: m.agent,
                  mentionText: 'Atlas',
                  confidence: 1,
                  now: T0,
                });
                insertClaim(sql, {
                  id: `claim-${id}`,
                  agentId: m.agent,
                  entityId: `${m.agent}-dana`,
                  aspectId: `${m.agent}-asp`,
                  claimKey: `k${i}`,
                  content: 'c',
                  sourceMemoryId: id,
                  now: T0,
                });
              }
            }
            for (const q of queries) {
              const response = await engine.recall({
                agentId: q.agent,
                query: q.words.join(' '),
                limit: 50,
                expand: true,
                explain: true,
                ...(q.link ? { linkedEntities: [{ type: 'contact', refId: q.link }] } : {}),
              });
              expect(response.warnings).toEqual([]);
              for (const r of response.results) {
                expect(owner.get(r.id)).toBe(q.agent);
                for (const e of r.entities ?? []) expect(e.id.startsWith(`${q.agent}-`)).toBe(true);
                if (r.explanation?.path) expect(r.explanation.path.entityId.startsWith(`${q.agent}-`)).toBe(true);
              }
              for (const x of response.expansions ?? []) {
                expect(x.excerpt).toContain(`private ${q.agent} words`);
                for (const other of AGENTS)
                  if (other !== q.agent) expect(x.excerpt).not.toContain(`private ${other} words`);
                for (const id of x.memoryIds) expect(owner.get(id)).toBe(q.agent);
              }
              for (const d of response.drillDown)
                if (d.kind === 'open_entity') expect(d.entityId.startsWith(`${q.agent}-`)).toBe(true);
            }
            await engine.close();
          },
        ),
        { numRuns: 25, endOnFailure: true },
      );
    },
  );
});
