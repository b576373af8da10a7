import { createManualClock, createManualScheduler, type GenerateRequest, type LlmProvider } from '@memory/core';
import { textTerms } from '@memory/store/testing';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../src/index.js';
import { createBagOfWordsEmbedder, createTestEngine, T0 } from './helpers.js';

// Every memory's content carries one unique token ("tk12"), so what each derived surface holds can
// be traced back to the content it was derived from.
const TOKEN = /\btk\d+\b/;
const SEED = 'Orion and Vega are the two launch projects tk0';

/** A model that answers hint prompts with questions naming the memory's token, wrapped in a think block. */
function hintModel(): LlmProvider {
  return {
    async generate(request: GenerateRequest) {
      const prompt = request.messages.map((m) => m.content).join('\n');
      const token = prompt.match(TOKEN)?.[0] ?? 'nothing';
      return { text: `<think>about ${token}</think>\n1. When is ${token} due?\n2. Who owns ${token}?` };
    },
  };
}

async function setup() {
  const db = new Database(':memory:');
  const clock = createManualClock(T0);
  const scheduler = createManualScheduler(clock);
  const { engine } = await createTestEngine({
    database: { database: db },
    clock,
    scheduler,
    llm: hintModel(),
    embedder: createBagOfWordsEmbedder(),
    config: { dreaming: { allowUpdateDelete: true } },
  });
  const seed = await engine.remember({ agentId: 'a', content: SEED });
  const applied = await engine.dreaming.apply({
    agentId: 'a',
    passId: 'seed',
    operations: [
      {
        operation: 'create_entity',
        payload: { name: 'Orion' },
        evidence: [{ sourceRef: `memory:${seed.id}`, quote: 'Orion and Vega' }],
      },
      {
        operation: 'create_entity',
        payload: { name: 'Vega' },
        evidence: [{ sourceRef: `memory:${seed.id}`, quote: 'Orion and Vega' }],
      },
    ],
  });
  expect(applied.applied).toHaveLength(2);
  return { engine, db, seedId: seed.id };
}

type Row = { id: string; agent_id: string; content: string; content_hash: string; is_deleted: number; type: string };

function all<T>(db: Database.Database, sql: string, ...params: unknown[]): T[] {
  return db.prepare(sql).all(...params) as T[];
}

/** Every derived surface agrees with the memory rows. */
function checkConsistency(db: Database.Database, seedId: string): void {
  const rows = all<Row & { linked_entities: string; embedding_model: string | null }>(db, 'SELECT * FROM memories');
  const byId = new Map(rows.map((r) => [r.id, r]));
  const live = (id: string) => byId.get(id)?.is_deleted === 0;

  // The scoped text index holds exactly the live rows' terms and counts (the writer writes it for
  // its batch; updates and deletes reach it by trigger).
  const expected: string[] = [];
  const scopeCounts = new Map<string, { docs: number; tokens: number }>();
  for (const r of all<{ seq: number; agent_id: string; content: string }>(
    db,
    'SELECT seq, agent_id, content FROM memories WHERE is_deleted = 0',
  )) {
    const t = textTerms(r.content);
    for (const [term, tf] of t.counts) expected.push(`${r.agent_id} ${term} ${r.seq} ${tf} ${t.length}`);
    const c = scopeCounts.get(r.agent_id) ?? { docs: 0, tokens: 0 };
    scopeCounts.set(r.agent_id, { docs: c.docs + 1, tokens: c.tokens + t.length });
  }
  const postings = all<{ p: string }>(
    db,
    `SELECT s.agent_id || ' ' || p.term || ' ' || p.row || ' ' || p.tf || ' ' || p.len AS p
     FROM text_postings p JOIN text_scopes s ON s.scope = p.scope WHERE s.corpus = 'memory'`,
  );
  expect(postings.map((p) => p.p).sort()).toEqual(expected.sort());
  const scopes = all<{ agent_id: string; docs: number; tokens: number }>(
    db,
    "SELECT agent_id, docs, tokens FROM text_scopes WHERE corpus = 'memory' AND docs > 0",
  );
  expect(new Map(scopes.map((s) => [s.agent_id, { docs: s.docs, tokens: s.tokens }]))).toEqual(scopeCounts);

  // Vectors: one per live memory, of its current content; none for forgotten or replaced content.
  const vectors = all<{ seq: number; source_id: string; content_hash: string; model: string }>(
    db,
    "SELECT seq, source_id, content_hash, model FROM embeddings WHERE source_type = 'memory'",
  );
  for (const v of vectors) {
    const row = byId.get(v.source_id);
    expect(row?.is_deleted, `vector of ${v.source_id}`).toBe(0);
    expect(v.content_hash).toBe(row?.content_hash);
    expect(row?.embedding_model).toBe(v.model);
  }
  const liveIds = rows.filter((r) => r.is_deleted === 0).map((r) => r.id);
  expect(vectors.map((v) => v.source_id).sort()).toEqual([...liveIds].sort());
  // The vector index holds each of them once (rowid = generation · 2^40 + seq) and counts them.
  const indexed = all<{ seq: number }>(db, 'SELECT rowid & 1099511627775 AS seq FROM vec_memory_1').map((r) => r.seq);
  expect(indexed.sort((x, y) => x - y)).toEqual(vectors.map((v) => v.seq).sort((x, y) => x - y));
  const counted = all<{ n: number | null }>(db, 'SELECT sum(vectors) AS n FROM vector_partitions')[0]?.n ?? 0;
  expect(counted).toBe(vectors.length);

  // Hints: only for live memories, and only questions about their current content.
  for (const h of all<{ memory_id: string; hint: string }>(db, 'SELECT memory_id, hint FROM memory_hints')) {
    expect(live(h.memory_id), `hint of ${h.memory_id}`).toBe(true);
    expect(h.hint).toContain(byId.get(h.memory_id)?.content.match(TOKEN)?.[0]);
  }

  // Mentions: only for live memories, naming what the content says; every live naming is linked.
  const mentions = all<{ memory_id: string; mention_text: string }>(
    db,
    'SELECT memory_id, mention_text FROM memory_entity_mentions',
  );
  for (const m of mentions) {
    expect(live(m.memory_id), `mention of ${m.memory_id}`).toBe(true);
    expect(byId.get(m.memory_id)?.content).toContain(m.mention_text);
  }
  // (The seed was written before the entities existed: linking looks at existing entities only.)
  for (const r of rows.filter((x) => x.is_deleted === 0 && x.id !== seedId)) {
    const named = ['Orion', 'Vega'].filter((n) => r.content.includes(n)).sort();
    const linked = mentions
      .filter((m) => m.memory_id === r.id)
      .map((m) => m.mention_text)
      .sort();
    expect(linked, `mentions of ${r.content}`).toEqual(named);
  }
  const counts = all<{ name: string; mentions: number; actual: number }>(
    db,
    'SELECT name, mentions, (SELECT count(*) FROM memory_entity_mentions m WHERE m.entity_id = e.id) AS actual FROM entities e',
  );
  for (const c of counts) expect(c.mentions, `mention count of ${c.name}`).toBe(c.actual);

  // Host links mirror the row's linked_entities.
  for (const r of rows) {
    const links = all<{ ref_type: string; ref_id: string }>(
      db,
      'SELECT ref_type, ref_id FROM memory_links WHERE memory_id = ? ORDER BY ref_type, ref_id',
      r.id,
    );
    const declared = (JSON.parse(r.linked_entities) as Array<{ type: string; refId: string }>)
      .map((l) => ({ ref_type: l.type, ref_id: l.refId }))
      .sort((x, y) => `${x.ref_type}:${x.ref_id}`.localeCompare(`${y.ref_type}:${y.ref_id}`));
    expect(links).toEqual(declared);
  }

  // History: the last event says what the row is.
  for (const r of rows) {
    const last = all<{ event: string; new_content: string | null }>(
      db,
      'SELECT event, new_content FROM memory_history WHERE memory_id = ? ORDER BY seq DESC LIMIT 1',
      r.id,
    )[0];
    if (r.is_deleted === 1) expect(last?.event).toBe('deleted');
    else expect(last?.new_content).toBe(r.content);
  }
}

/** Lexical recall finds each token's memory exactly when it is live. */
async function checkRecall(engine: MemoryEngine, db: Database.Database): Promise<void> {
  const rows = all<Row>(db, "SELECT * FROM memories WHERE agent_id = 'a'");
  for (const r of rows) {
    const token = r.content.match(TOKEN)?.[0];
    if (!token) continue;
    const response = await engine.recall({ agentId: 'a', query: token, windowDays: null, limit: 50 });
    const found = response.results.some((x) => x.id === r.id);
    expect(found, `recall of ${token} (${r.is_deleted ? 'forgotten' : 'live'})`).toBe(r.is_deleted === 0);
  }
}

type Op =
  | { kind: 'remember'; names: number }
  | { kind: 'rememberMany'; count: number; names: number }
  | { kind: 'modify'; pick: number; names: number }
  | { kind: 'importance'; pick: number }
  | { kind: 'forget'; pick: number }
  | { kind: 'recover'; pick: number }
  | { kind: 'dreamRemember'; names: number }
  | { kind: 'dreamSupersede'; pick: number; names: number }
  | { kind: 'dreamArchive'; pick: number }
  | { kind: 'document'; names: number }
  | { kind: 'runDue' };

const names = fc.integer({ min: 0, max: 3 });
const pick = fc.nat({ max: 1000 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('remember' as const), names }),
  fc.record({ kind: fc.constant('rememberMany' as const), count: fc.integer({ min: 1, max: 4 }), names }),
  fc.record({ kind: fc.constant('modify' as const), pick, names }),
  fc.record({ kind: fc.constant('importance' as const), pick }),
  fc.record({ kind: fc.constant('forget' as const), pick }),
  fc.record({ kind: fc.constant('recover' as const), pick }),
  fc.record({ kind: fc.constant('dreamRemember' as const), names }),
  fc.record({ kind: fc.constant('dreamSupersede' as const), pick, names }),
  fc.record({ kind: fc.constant('dreamArchive' as const), pick }),
  fc.record({ kind: fc.constant('document' as const), names }),
  fc.record({ kind: fc.constant('runDue' as const) }),
);

describe('the one memory writer', () => {
  it("drops a memory's old hints when Dreaming supersedes it, so recall no longer finds it by the old question", async () => {
    const { engine, db, seedId } = await setup();
    const { id } = await engine.remember({ agentId: 'a', content: 'Update tk77: the review is on Monday' });
    await engine.runDue();
    const hintsOf = () =>
      all<{ hint: string }>(db, 'SELECT hint FROM memory_hints WHERE memory_id = ? ORDER BY seq', id).map(
        (h) => h.hint,
      );
    expect(hintsOf()).toEqual(['When is tk77 due?', 'Who owns tk77?']);
    const before = await engine.recall({ agentId: 'a', query: 'Who owns tk77?', windowDays: null });
    expect(before.results.map((r) => r.id)).toContain(id);

    const result = await engine.dreaming.apply({
      agentId: 'a',
      passId: 'p',
      operations: [
        {
          operation: 'supersede_memory',
          payload: { memoryId: id, content: 'Update tk78: the review moved to Friday' },
          evidence: [{ sourceRef: `memory:${seedId}`, quote: 'Orion and Vega' }],
        },
      ],
    });
    expect(result.applied).toHaveLength(1);
    expect(hintsOf()).toEqual([]); // the old questions went with the old content
    const after = await engine.recall({ agentId: 'a', query: 'Who owns tk77?', windowDays: null });
    expect(after.results.map((r) => r.id)).not.toContain(id);
    // …and the new content gets its own questions.
    await engine.runDue();
    expect(hintsOf()).toEqual(['When is tk78 due?', 'Who owns tk78?']);
    await engine.close();
  });

  it('queues prospective hints for memories Dreaming creates', async () => {
    const { engine, db, seedId } = await setup();
    const result = await engine.dreaming.apply({
      agentId: 'a',
      passId: 'p',
      operations: [
        {
          operation: 'remember_memory',
          payload: { content: 'Update tk90: Orion ships in May', type: 'fact' },
          evidence: [{ sourceRef: `memory:${seedId}`, quote: 'Orion and Vega' }],
        },
      ],
    });
    const id = result.applied[0]?.targetId ?? '';
    const jobs = () =>
      all<{ status: string }>(
        db,
        "SELECT status FROM memory_jobs WHERE job_type = 'prospective_index' AND memory_id = ?",
        id,
      ).map((j) => j.status);
    expect(jobs()).toEqual(['pending']);
    await engine.runDue();
    expect(jobs()).toEqual(['completed']);
    const hints = all<{ hint: string }>(db, 'SELECT hint FROM memory_hints WHERE memory_id = ?', id);
    expect(hints.map((h) => h.hint)).toEqual(['When is tk90 due?', 'Who owns tk90?']);
    await engine.close();
  });

  it('keeps FTS, vectors, mirror rows, hints, mentions, links and history consistent with the rows, whatever path writes (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), async (ops) => {
        const { engine, db, seedId } = await setup();
        let counter = 0;
        const text = (mask: number) => {
          counter++;
          const who = [mask & 1 ? 'Orion' : '', mask & 2 ? 'Vega' : ''].filter(Boolean).join(' and ') || 'the team';
          return `Update tk${counter}: ${who} moved the review to slot ${counter}`;
        };
        const ids = (deleted: 0 | 1) =>
          all<{ id: string }>(
            db,
            "SELECT id FROM memories WHERE agent_id = 'a' AND is_deleted = ? AND type != 'document_chunk' AND id != ? ORDER BY seq",
            deleted,
            seedId,
          ).map((r) => r.id);
        const choose = (list: string[], n: number) => (list.length === 0 ? undefined : list[n % list.length]);
        const cite = [{ sourceRef: `memory:${seedId}`, quote: 'Orion and Vega' }];
        for (const op of ops) {
          switch (op.kind) {
            case 'remember':
              await engine.remember({
                agentId: 'a',
                content: text(op.names),
                linkedEntities: [{ type: 'contact', refId: `c${counter % 3}` }],
              });
              break;
            case 'rememberMany':
              await engine.rememberMany({
                agentId: 'a',
                memories: Array.from({ length: op.count }, () => ({ content: text(op.names) })),
              });
              break;
            case 'modify': {
              const id = choose(ids(0), op.pick);
              if (id) await engine.modify({ agentId: 'a', id, content: text(op.names), reason: 'edit' });
              break;
            }
            case 'importance': {
              const id = choose(ids(0), op.pick);
              if (id) await engine.modify({ agentId: 'a', id, importance: 0.9, reason: 'bump' });
              break;
            }
            case 'forget': {
              const id = choose(ids(0), op.pick);
              if (id) await engine.forget({ agentId: 'a', id, reason: 'drop' });
              break;
            }
            case 'recover': {
              const id = choose(ids(1), op.pick);
              if (id) await engine.recover({ agentId: 'a', id });
              break;
            }
            case 'dreamRemember': {
              const result = await engine.dreaming.apply({
                agentId: 'a',
                passId: 'p',
                operations: [
                  { operation: 'remember_memory', payload: { content: text(op.names), type: 'fact' }, evidence: cite },
                ],
              });
              expect(result.applied).toHaveLength(1);
              break;
            }
            case 'dreamSupersede': {
              const id = choose(ids(0), op.pick);
              if (!id) break;
              const result = await engine.dreaming.apply({
                agentId: 'a',
                passId: 'p',
                operations: [
                  {
                    operation: 'supersede_memory',
                    payload: { memoryId: id, content: text(op.names) },
                    evidence: cite,
                  },
                ],
              });
              expect(result.applied, JSON.stringify(result.rejected)).toHaveLength(1);
              break;
            }
            case 'dreamArchive': {
              const id = choose(ids(0), op.pick);
              if (!id) break;
              await engine.dreaming.apply({
                agentId: 'a',
                passId: 'p',
                operations: [
                  { operation: 'flag', payload: { kind: 'hygiene', subjectRef: `memory:${id}`, details: 'old' } },
                  { operation: 'archive_memory', payload: { memoryId: id }, evidence: [] },
                ],
              });
              break;
            }
            case 'document':
              await engine.documents.add({
                agentId: 'a',
                content: `${text(op.names)}.\n\nSecond part tk${++counter}.`,
              });
              await engine.runDue();
              break;
            case 'runDue':
              await engine.runDue();
              break;
          }
          checkConsistency(db, seedId);
        }
        await engine.runDue();
        checkConsistency(db, seedId);
        await checkRecall(engine, db);
        await engine.close();
      }),
      { numRuns: 20 },
    );
  }, 120_000);
});
