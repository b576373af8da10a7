import {
  createManualClock,
  createManualScheduler,
  createSequentialIds,
  type GenerateRequest,
  type GenerateResult,
  type LlmProvider,
} from '@memory/core';
import { createMemoriesProgram, POSTGRES_WRITER, prepareContent } from '@memory/store';
import { openPostgresStore } from '@memory/store/postgres';
import { perDialect, raw, run } from '@memory/store/sql';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../../src/index.js';
import { type EngineBackend, engineBackends } from '../support/backends.js';

// Dreaming through the engine on every backend: a pass (the scripted model reads evidence, writes
// the graph through the seam, and is told why an invented quote was refused), the graph and review
// reads, the review queue and a revert. Everything is asserted through the public API.

const T0 = Date.UTC(2026, 0, 1);
const CHAT = 'Project Atlas is our billing rewrite. The Atlas launch moved to March because the vendor slipped.';
const backends = await engineBackends();

function scripted(turns: Array<(request: GenerateRequest) => GenerateResult>): LlmProvider {
  let n = 0;
  return {
    async generate(request) {
      const turn = turns[Math.min(n, turns.length - 1)] as (r: GenerateRequest) => GenerateResult;
      n++;
      return turn(request);
    },
  };
}
let calls = 0;
const tool = (name: string, args: unknown): GenerateResult => ({
  text: '<think>next</think>',
  toolCalls: [{ id: `c${name}${++calls}`, name, arguments: JSON.stringify(args) }],
  usage: { inputTokens: 10, outputTokens: 5 },
});

// Until transcripts and documents have PostgreSQL forms (other parts of issue 18), a PostgreSQL
// database gets the columns Dreaming's evidence window reads; IF NOT EXISTS makes it a no-op after.
const EVIDENCE_TABLES = [
  `CREATE TABLE IF NOT EXISTS session_transcripts (agent_id text NOT NULL, session_key text NOT NULL,
    content text NOT NULL DEFAULT '', harness text, project text, content_hash text, source_id text,
    source_record_id text, source_meta_json text, created_at bigint NOT NULL, updated_at bigint NOT NULL,
    completed_at bigint, PRIMARY KEY (agent_id, session_key))`,
  `CREATE TABLE IF NOT EXISTS documents (id text PRIMARY KEY, agent_id text NOT NULL, raw_content text,
    status text NOT NULL DEFAULT 'queued', created_at bigint NOT NULL DEFAULT 0, updated_at bigint NOT NULL DEFAULT 0,
    completed_at bigint)`,
  `CREATE TABLE IF NOT EXISTS document_content_parts (document_id text NOT NULL, part integer NOT NULL,
    text text NOT NULL, PRIMARY KEY (document_id, part))`,
];

/** A host memory of agent `a` holding CHAT, the evidence the tests quote; returns its id. */
async function seedEvidence(backend: EngineBackend, engine: MemoryEngine): Promise<string> {
  const target = backend.target();
  if (!target) return (await engine.remember({ agentId: 'a', content: CHAT, type: 'fact' })).id;
  // On PostgreSQL through a store of the test's own (remember has no PostgreSQL form in this branch).
  const store = await openPostgresStore({ target, ids: createSequentialIds('seed') });
  try {
    return await store.write(function* () {
      for (const statement of EVIDENCE_TABLES) yield* run(perDialect(raw(statement), raw(statement)));
      const deps = { ids: store.ids, vectorAvailable: false, inlineEntityLinking: false };
      const [created] = yield* createMemoriesProgram(
        POSTGRES_WRITER,
        deps,
        [{ agentId: 'a', content: prepareContent(CHAT), type: 'fact', importance: 0.5, audit: {} }],
        T0,
      );
      return created?.id ?? '';
    });
  } finally {
    await store.close();
  }
}

describe.each(backends)('Dreaming through the engine on $name', (backend) => {
  afterEach(() => backend.cleanup());
  afterAll(() => backend.dispose());

  it.skipIf(backend.skip)('runs a pass through the seam, and the graph and pass reads show what it did', async () => {
    const clock = createManualClock(T0);
    let memoryId = '';
    const llm = scripted([
      () => tool('next_evidence', {}),
      () =>
        tool('apply_operations', {
          operations: [
            {
              operation: 'create_entity',
              payload: { name: 'Project Atlas', entityType: 'project' },
              evidence: [{ sourceRef: `memory:${memoryId}`, quote: 'Project Atlas is our billing rewrite' }],
            },
            {
              operation: 'create_entity',
              payload: { name: 'Vendor' },
              evidence: [{ sourceRef: `memory:${memoryId}`, quote: 'the vendor is always late' }],
            },
          ],
        }),
      (r) => {
        const applied = JSON.parse(String(r.messages.at(-1)?.content)) as { applied: Array<{ targetId: string }> };
        return tool('apply_operations', {
          operations: [
            {
              operation: 'create_aspect',
              payload: { entityId: applied.applied[0]?.targetId, name: 'launch' },
              evidence: [{ sourceRef: `memory:${memoryId}`, quote: 'The Atlas launch moved to March' }],
            },
          ],
        });
      },
      () => ({ text: 'Recorded Project Atlas and its launch.', usage: {} }),
    ]);
    const engine = await backend.open({
      clock,
      scheduler: createManualScheduler(clock),
      llm,
      config: { dreaming: { enabled: true } },
    });
    memoryId = await seedEvidence(backend, engine);
    const pass = await engine.dreaming.runPass({ agentId: 'a' });
    expect(pass).toMatchObject({
      status: 'completed',
      summary: 'Recorded Project Atlas and its launch.',
      mutations: { applied: 2, rejected: 1, proposals: 0 },
    });

    const page = await engine.graph.entities({ agentId: 'a' });
    expect(page.items.map((e) => e.name)).toEqual(['Project Atlas']);
    const atlas = page.items[0];
    const detail = await engine.graph.entity({ agentId: 'a', entityId: atlas?.id ?? '' });
    expect(detail?.aspects.map((a) => a.name)).toEqual(['launch']);
    expect(await engine.graph.entity({ agentId: 'b', entityId: atlas?.id ?? '' })).toBeUndefined();

    const passes = await engine.dreaming.passes.list({ agentId: 'a' });
    expect(passes.items).toEqual([expect.objectContaining({ id: pass.passId, status: 'completed', toolCallCount: 3 })]);
    const got = await engine.dreaming.passes.get({ agentId: 'a', passId: pass.passId });
    expect(got?.toolCalls.map((c) => c.tool)).toEqual(['next_evidence', 'apply_operations', 'apply_operations']);
    expect(await engine.dreaming.passes.get({ agentId: 'b', passId: pass.passId })).toBeUndefined();
    const provenance = await engine.dreaming.provenance({
      agentId: 'a',
      targetType: 'entity',
      targetId: atlas?.id ?? '',
    });
    expect(provenance.items).toEqual([
      expect.objectContaining({ passId: pass.passId, operation: 'create_entity', actor: 'dreaming' }),
    ]);
    // The aspect makes Atlas non-empty: the next hygiene check opens nothing about it.
    expect((await engine.dreaming.attention({ agentId: 'a' })).items).toEqual([]);
    expect(await engine.memoryHead({ agentId: 'a' })).toBeUndefined();
  });

  it.skipIf(backend.skip)('reviews proposals and reverts what was applied', async () => {
    const clock = createManualClock(T0);
    const engine = await backend.open({
      clock,
      scheduler: createManualScheduler(clock),
      config: { dreaming: { shadowMode: true } },
    });
    const memoryId = await seedEvidence(backend, engine);
    const cite = [{ sourceRef: `memory:${memoryId}`, quote: 'Project Atlas is our billing rewrite' }];
    const proposed = await engine.dreaming.apply({
      agentId: 'a',
      passId: 'p1',
      operations: [
        { operation: 'create_entity', payload: { name: 'Project Atlas' }, evidence: cite },
        { operation: 'create_entity', payload: { name: 'Billing' }, evidence: cite },
      ],
    });
    expect(proposed.proposals.map((p) => p.route)).toEqual(['shadow', 'shadow']);
    const queue = await engine.dreaming.proposals.list({ agentId: 'a' });
    expect(queue.items.map((p) => p.operation.operation)).toEqual(['create_entity', 'create_entity']);
    // Created in one millisecond, so the queue's order between them is the ids' order: find them by name.
    const named = (name: string) =>
      queue.items.find((p) => (p.operation as { payload?: { name?: string } }).payload?.name === name);
    const first = named('Project Atlas');
    const second = named('Billing');
    const accepted = await engine.dreaming.proposals.accept({ agentId: 'a', proposalId: first?.id ?? '' });
    expect(accepted).toMatchObject({ operation: 'create_entity', targetType: 'entity' });
    await engine.dreaming.proposals.reject({ agentId: 'a', proposalId: second?.id ?? '', reason: 'duplicate' });
    expect(await engine.dreaming.proposals.get({ agentId: 'a', proposalId: second?.id ?? '' })).toMatchObject({
      status: 'rejected',
      decisionReason: 'duplicate',
    });
    expect((await engine.graph.entities({ agentId: 'a' })).items.map((e) => e.name)).toEqual(['Project Atlas']);

    const preview = await engine.dreaming.revert({ agentId: 'a', passId: 'p1' });
    expect(preview).toMatchObject({ applied: false, conflicts: [] });
    const reverted = await engine.dreaming.revert({ agentId: 'a', passId: 'p1', apply: true });
    expect(reverted).toMatchObject({ applied: true });
    expect((await engine.graph.entities({ agentId: 'a' })).items).toEqual([]);
    await expect(engine.dreaming.revert({ agentId: 'a', passId: 'p1', apply: true })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });

  it.skipIf(backend.skip)(
    'runs a scheduled pass when an agent has new evidence, and none without new work',
    async () => {
      const clock = createManualClock(T0);
      const scheduler = createManualScheduler(clock);
      let turns = 0;
      const engine = await backend.open({
        clock,
        scheduler,
        llm: {
          async generate(request) {
            turns++;
            return request.messages.at(-1)?.role === 'tool'
              ? { text: 'Read the new evidence; nothing settled yet.' }
              : { text: '', toolCalls: [{ id: `n${turns}`, name: 'next_evidence', arguments: '{}' }] };
          },
        },
        config: {
          dreaming: { enabled: true, checkIntervalMs: 60_000 },
          hints: { enabled: false },
          registry: { autoLinkOnCreate: false },
        },
      });
      await seedEvidence(backend, engine);
      // runDue runs the periodic checks once (start() schedules them only after the queue's startup
      // recovery, which on PostgreSQL resolves later).
      clock.set(T0 + 60_000);
      await engine.runDue();
      const passes = await engine.dreaming.passes.list({ agentId: 'a' });
      expect(passes.items).toEqual([expect.objectContaining({ trigger: 'first_run', status: 'completed' })]);
      // The evidence is delivered: the next check finds no work and calls no model.
      clock.set(T0 + 120_000);
      await engine.runDue();
      expect((await engine.dreaming.passes.list({ agentId: 'a' })).items).toHaveLength(1);
      expect(turns).toBe(2);
    },
  );
});
