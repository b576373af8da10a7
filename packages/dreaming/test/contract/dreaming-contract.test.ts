// Dreaming's behaviour, once, on every backend: SQLite, PGlite, and a real PostgreSQL server when one
// is configured. The pass, the audited seam (exact quotes, provenance), review, revert, attention and
// the schedule run the same programs on each; only how a transaction runs differs.
import {
  type GenerateRequest,
  type GenerateResult,
  isMemoryError,
  type LlmProvider,
  resolveConfig,
  TransactionBoundaryError,
} from '@memory/core';
import type { Recall } from '@memory/recall';
import {
  activeLinksAroundProgram,
  claimsAsOfProgram,
  findEntitiesByIdsProgram,
  insertEntityProgram,
  listEntitiesProgram,
  listEntityAspectsProgram,
  listEntityClaimsProgram,
  listEntityLinksProgram,
  openAttentionProgram,
  searchEntitiesByNameProgram,
  withSavepoint,
} from '@memory/store';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  acceptProposalOn,
  applyDreamingOperationsOn,
  createDreamingSchedule,
  rejectProposalOn,
  revertPassOn,
  runDreamingPass,
} from '../../src/index.js';
import { BACKENDS, type DreamingSetup, T0 } from './backends.js';

const CHAT =
  'user: Project Atlas is our billing rewrite.\nassistant: Noted.\nuser: The Atlas launch moved to March because the vendor slipped.';
const config = resolveConfig({ dreaming: { enabled: true } });

/** A model that answers turn by turn from a script (the last turn repeats). */
function scripted(turns: Array<(request: GenerateRequest) => GenerateResult>): LlmProvider & { calls(): number } {
  let n = 0;
  return {
    calls: () => n,
    async generate(request) {
      const turn = turns[Math.min(n, turns.length - 1)] as (r: GenerateRequest) => GenerateResult;
      n++;
      return turn(request);
    },
  };
}

let callIds = 0;
const tool = (name: string, args: unknown): GenerateResult => ({
  text: '<think>next step</think>',
  toolCalls: [{ id: `c${++callIds}`, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) }],
  usage: { inputTokens: 100, outputTokens: 20 },
});
const done = (summary: string): GenerateResult => ({ text: `<think>done</think>${summary}`, usage: {} });

/** The JSON of the last tool result the model was sent. */
const lastResult = <T>(request: GenerateRequest): T => JSON.parse(String(request.messages.at(-1)?.content)) as T;

// search_evidence is not scripted here; the pass needs a recall on PostgreSQL, so every backend gets one.
const recall = (async () => ({ query: { terms: [] }, results: [] })) as unknown as Recall;

async function transcript(setup: DreamingSetup, agentId: string, sessionKey: string, content: string): Promise<void> {
  await setup.sql(
    'INSERT INTO session_transcripts (agent_id, session_key, content, created_at, updated_at, completed_at) VALUES (?, ?, ?, ?, ?, ?)',
    agentId,
    sessionKey,
    content,
    T0,
    T0,
    T0,
  );
}

const atlas = {
  operation: 'create_entity',
  payload: { name: 'Project Atlas', entityType: 'project', description: 'the billing rewrite' },
  evidence: [{ sourceRef: 'transcript:chat-1', quote: 'Project Atlas is our billing rewrite' }],
};
const launch = {
  operation: 'remember_memory',
  payload: { content: 'The Atlas launch is in March.', type: 'fact' },
  evidence: [{ sourceRef: 'transcript:chat-1', quote: 'The Atlas launch moved to March' }],
};

describe.each(BACKENDS)('Dreaming contract on $name', (backend) => {
  const test = backend.skip ? it.skip : it;
  beforeAll(() => (backend.skip ? undefined : backend.beforeAll()), 120_000);
  afterAll(() => (backend.skip ? undefined : backend.afterAll()));
  afterEach(() => (backend.skip ? undefined : backend.afterEach()));
  if (backend.skip) it.skip(`skipped: ${backend.skip}`, () => undefined);

  test('a pass writes the graph through the seam; invented quotes, ids and broken JSON come back as reasons', async () => {
    const setup = await backend.setup();
    const { store, clock } = setup;
    await transcript(setup, 'a', 'chat-1', CHAT);
    await transcript(setup, 'b', 'chat-b', 'user: the secrets of agent b are here');
    const told: string[] = [];
    const llm = scripted([
      () => tool('next_evidence', {}),
      // A paraphrase, another scope's evidence and an invented id are refused; the entity is written.
      () =>
        tool('apply_operations', {
          operations: [
            atlas,
            { ...launch, evidence: [{ sourceRef: 'transcript:chat-1', quote: 'Atlas launches in March' }] },
            { ...launch, evidence: [{ sourceRef: 'transcript:chat-b', quote: 'the secrets of agent b' }] },
            {
              operation: 'create_aspect',
              payload: { entityId: 'ent-invented', name: 'launch' },
              evidence: atlas.evidence,
            },
          ],
        }),
      (r) => {
        told.push(String(r.messages.at(-1)?.content));
        return tool('apply_operations', '{"operations": [{"operation": "create_aspect", ');
      },
      (r) => {
        told.push(String(r.messages.at(-1)?.content));
        return tool('search_entities', { query: 'atlas' });
      },
      (r) => {
        const [entity] = lastResult<Array<{ id: string }>>(r);
        return tool('apply_operations', {
          operations: [
            { operation: 'create_aspect', payload: { entityId: entity?.id, name: 'launch' }, evidence: atlas.evidence },
            launch,
          ],
        });
      },
      (r) => {
        const aspectId = lastResult<{ applied: Array<{ targetId: string; operation: string }> }>(r).applied.find(
          (a) => a.operation === 'create_aspect',
        )?.targetId;
        return tool('apply_operations', {
          operations: [
            {
              operation: 'add_claim',
              payload: { aspectId, claimKey: 'month', content: 'March' },
              evidence: [{ sourceRef: 'transcript:chat-1', quote: 'launch moved to March' }],
            },
          ],
        });
      },
      () => tool('next_evidence', {}),
      () => done('Created Project Atlas, its launch aspect and month.'),
    ]);
    clock.set(T0 + 1000);
    const result = await runDreamingPass({ store, config, llm: store.guard.llm(llm), clock, recall }, { agentId: 'a' });
    expect(result).toMatchObject({
      status: 'completed',
      mode: 'incremental-content',
      summary: 'Created Project Atlas, its launch aspect and month.',
      toolCalls: 7,
      mutations: { applied: 4, rejected: 3, proposals: 0 },
    });
    expect(result.memoryIds).toHaveLength(1);
    expect(told[0]).toMatch(/word for word/);
    expect(told[0]).toMatch(/is not evidence of this scope/);
    expect(told[0]).toMatch(/no entity ent-invented in this scope/);
    expect(told[1]).toMatch(/not valid JSON/);

    const provenance = await setup.sql<{ operation: string; agent: string }>(
      'SELECT operation, agent_id AS agent FROM dreaming_provenance WHERE pass_id = ? ORDER BY seq',
      result.passId,
    );
    expect(provenance).toEqual([
      { operation: 'create_entity', agent: 'a' },
      { operation: 'create_aspect', agent: 'a' },
      { operation: 'remember_memory', agent: 'a' },
      { operation: 'add_claim', agent: 'a' },
    ]);
    expect(
      await setup.sql(
        "SELECT e.name, a.name AS aspect, c.claim_key AS key, c.content FROM entities AS e JOIN entity_aspects AS a ON a.entity_id = e.id JOIN entity_attributes AS c ON c.aspect_id = a.id WHERE e.agent_id = 'a'",
      ),
    ).toEqual([{ name: 'Project Atlas', aspect: 'launch', key: 'month', content: 'March' }]);
    expect(await setup.sql("SELECT content FROM memories WHERE agent_id = 'a' AND source_type = 'dreaming'")).toEqual([
      { content: 'The Atlas launch is in March.' },
    ]);
    expect(await setup.sql("SELECT count(*) AS n FROM memories WHERE agent_id = 'b'")).toEqual([{ n: 0 }]);
    expect(
      await setup.sql(
        'SELECT ordinal, tool, ok FROM dreaming_tool_calls WHERE pass_id = ? ORDER BY ordinal',
        result.passId,
      ),
    ).toEqual([
      { ordinal: 0, tool: 'next_evidence', ok: 1 },
      { ordinal: 1, tool: 'apply_operations', ok: 1 },
      { ordinal: 2, tool: 'apply_operations', ok: 0 },
      { ordinal: 3, tool: 'search_entities', ok: 1 },
      { ordinal: 4, tool: 'apply_operations', ok: 1 },
      { ordinal: 5, tool: 'apply_operations', ok: 1 },
      { ordinal: 6, tool: 'next_evidence', ok: 1 },
    ]);
    expect(
      await setup.sql(
        "SELECT delivered_chars AS d, total_chars AS t FROM dreaming_evidence_offsets WHERE agent_id = 'a' AND source_ref = 'transcript:chat-1'",
      ),
    ).toEqual([{ d: CHAT.length, t: CHAT.length }]);
    expect(
      await setup.sql(
        "SELECT consecutive_failures AS f, last_pass_at AS at, last_mode AS mode FROM dreaming_state WHERE agent_id = 'a'",
      ),
    ).toEqual([{ f: 0, at: T0 + 1000, mode: 'incremental-content' }]);
  });

  test('shadow mode records proposals; accepting applies through the seam, rejecting keeps the reason', async () => {
    const setup = await backend.setup();
    const { store } = setup;
    await transcript(setup, 'a', 'chat-1', CHAT);
    const shadow = resolveConfig({ dreaming: { enabled: true, shadowMode: true } });
    const applied = await applyDreamingOperationsOn(store, shadow, { agentId: 'a', passId: 'p1' }, [
      atlas,
      launch,
      { ...launch, evidence: [{ sourceRef: 'transcript:chat-1', quote: 'a sentence nobody wrote' }] },
    ]);
    expect(applied.applied).toEqual([]);
    expect(applied.rejected).toEqual([{ index: 2, reason: expect.stringMatching(/word for word/) }]);
    expect(applied.proposals.map((p) => p.route)).toEqual(['shadow', 'shadow']);
    const [entity, memory] = applied.proposals;
    expect(await setup.sql("SELECT count(*) AS n FROM entities WHERE agent_id = 'a'")).toEqual([{ n: 0 }]);

    const accepted = await acceptProposalOn(store, config, {
      agentId: 'a',
      proposalId: entity?.id,
      reason: 'looks right',
    });
    expect(accepted).toMatchObject({ proposalId: entity?.id, operation: 'create_entity', targetType: 'entity' });
    expect(await setup.sql("SELECT name FROM entities WHERE agent_id = 'a'")).toEqual([{ name: 'Project Atlas' }]);
    expect(
      await setup.sql(
        'SELECT operation, proposal_id AS proposal FROM dreaming_provenance WHERE target_id = ?',
        accepted.targetId,
      ),
    ).toEqual([{ operation: 'create_entity', proposal: entity?.id }]);
    await expect(acceptProposalOn(store, config, { agentId: 'a', proposalId: entity?.id })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    // Another scope cannot see it, let alone decide it.
    await expect(
      rejectProposalOn(store, { agentId: 'b', proposalId: memory?.id, reason: 'not mine' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await rejectProposalOn(store, { agentId: 'a', proposalId: memory?.id, reason: 'too vague' })).toEqual({
      proposalId: memory?.id,
    });
    expect(
      await setup.sql(
        'SELECT status, decided_by AS by, decision_reason AS reason FROM ontology_proposals WHERE agent_id = ? ORDER BY created_at, id',
        'a',
      ),
    ).toEqual([
      { status: 'accepted', by: 'operator', reason: 'looks right' },
      { status: 'rejected', by: 'operator', reason: 'too vague' },
    ]);
    expect(await setup.sql("SELECT count(*) AS n FROM memories WHERE agent_id = 'a'")).toEqual([{ n: 0 }]);
  });

  test('two reviewers accepting one proposal at once: one applies it, the other is told it is decided', async () => {
    const setup = await backend.setup();
    const { store } = setup;
    const other = await setup.another();
    await transcript(setup, 'a', 'chat-1', CHAT);
    const shadow = resolveConfig({ dreaming: { enabled: true, shadowMode: true } });
    const [proposal] = (await applyDreamingOperationsOn(store, shadow, { agentId: 'a' }, [atlas])).proposals;
    // On a server the two transactions overlap: SERIALIZABLE fails one, and its program runs again
    // from the start, so it sees the proposal decided (no JavaScript side effect ran twice).
    const outcomes = await Promise.allSettled([
      acceptProposalOn(store, config, { agentId: 'a', proposalId: proposal?.id, actor: { id: 'r1' } }),
      acceptProposalOn(other, config, { agentId: 'a', proposalId: proposal?.id, actor: { id: 'r2' } }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected');
    expect(refused?.status === 'rejected' && isMemoryError(refused.reason) ? refused.reason.code : undefined).toBe(
      'CONFLICT',
    );
    expect(await setup.sql("SELECT count(*) AS n FROM entities WHERE agent_id = 'a'")).toEqual([{ n: 1 }]);
    expect(await setup.sql("SELECT count(*) AS n FROM dreaming_provenance WHERE agent_id = 'a'")).toEqual([{ n: 1 }]);
  });

  test('a revert takes back everything a pass wrote, as one revert, once', async () => {
    const setup = await backend.setup();
    const { store } = setup;
    await transcript(setup, 'a', 'chat-1', CHAT);
    const applied = await applyDreamingOperationsOn(store, config, { agentId: 'a', passId: 'p1' }, [atlas, launch]);
    expect(applied.applied.map((a) => a.operation)).toEqual(['create_entity', 'remember_memory']);
    const memoryId = applied.applied[1]?.targetId;

    const preview = await revertPassOn(store, config, { agentId: 'a', passId: 'p1' });
    expect(preview).toMatchObject({ applied: false, conflicts: [] });
    expect(preview.rows.map((r) => `${r.kind}:${r.action}`).sort()).toEqual(['entity:delete', 'memory:forget_memory']);
    expect(await setup.sql("SELECT count(*) AS n FROM entities WHERE agent_id = 'a'")).toEqual([{ n: 1 }]);
    await expect(revertPassOn(store, config, { agentId: 'b', passId: 'p1', apply: true })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });

    const reverted = await revertPassOn(store, config, { agentId: 'a', passId: 'p1', apply: true, reason: 'bad pass' });
    expect(reverted).toMatchObject({ applied: true, revertId: expect.any(String), conflicts: [] });
    expect(await setup.sql("SELECT count(*) AS n FROM entities WHERE agent_id = 'a'")).toEqual([{ n: 0 }]);
    expect(await setup.sql('SELECT is_deleted AS gone FROM memories WHERE id = ?', memoryId)).toEqual([{ gone: 1 }]);
    expect(
      await setup.sql(
        'SELECT count(*) AS n FROM dreaming_provenance WHERE pass_id = ? AND revert_id = ?',
        'p1',
        reverted.revertId,
      ),
    ).toEqual([{ n: 2 }]);
    expect(
      await setup.sql('SELECT operations, rows_restored AS rows FROM dreaming_reverts WHERE pass_id = ?', 'p1'),
    ).toEqual([{ operations: 2, rows: 2 }]);
    await expect(revertPassOn(store, config, { agentId: 'a', passId: 'p1', apply: true })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });

  test('the schedule runs a hygiene pass for detected attention, which the model declines', async () => {
    const setup = await backend.setup();
    const { store, clock } = setup;
    await transcript(setup, 'a', 'chat-1', CHAT);
    await applyDreamingOperationsOn(store, config, { agentId: 'a' }, [atlas]);
    const llm = scripted([
      () => tool('list_attention', {}),
      (r) => {
        const [open] = lastResult<Array<{ id: string; subjectRef: string }>>(r);
        return tool('apply_operations', {
          operations: [
            { operation: 'decline_attention', payload: { attentionId: open?.id }, reason: 'new, will grow' },
          ],
        });
      },
      () => done('Declined the empty-entity record.'),
    ]);
    const schedule = createDreamingSchedule({
      store,
      config,
      llm: store.guard.llm(llm),
      clock,
      recall,
      limiter: { saturated: () => false, run: (task) => task() },
    });
    const checked = await schedule.check();
    expect(checked).toEqual([
      {
        agentId: 'a',
        decision: { run: true, trigger: 'first_run' },
        pass: expect.objectContaining({
          status: 'completed',
          mode: 'incremental-hygiene',
          mutations: { applied: 1, rejected: 0, proposals: 0 },
        }),
      },
    ]);
    expect(
      await setup.sql("SELECT kind, subject_ref AS subject, resolution FROM dreaming_attention WHERE agent_id = 'a'"),
    ).toEqual([{ kind: 'hygiene', subject: expect.stringMatching(/^entity:/), resolution: 'declined' }]);
    expect(await setup.sql("SELECT last_mode AS mode FROM dreaming_state WHERE agent_id = 'a'")).toEqual([
      { mode: 'incremental-hygiene' },
    ]);
  });

  test('the graph reads page, filter and order what the seam wrote the same way', async () => {
    const setup = await backend.setup();
    const { store } = setup;
    await transcript(setup, 'a', 'chat-1', CHAT);
    const quote = atlas.evidence;
    const first = await applyDreamingOperationsOn(store, config, { agentId: 'a' }, [
      atlas,
      { operation: 'create_entity', payload: { name: 'billing', aliases: ['Invoicing'] }, evidence: quote },
      { operation: 'create_entity', payload: { name: 'Vendor' }, evidence: quote },
    ]);
    const [atlasId, billingId, vendorId] = first.applied.map((a) => a.targetId) as [string, string, string];
    const second = await applyDreamingOperationsOn(store, config, { agentId: 'a' }, [
      { operation: 'create_aspect', payload: { entityId: atlasId, name: 'launch' }, evidence: quote },
      {
        operation: 'create_link',
        payload: { sourceEntityId: atlasId, targetEntityId: billingId, type: 'part_of', strength: 0.9 },
        evidence: quote,
      },
      {
        operation: 'create_link',
        payload: { sourceEntityId: vendorId, targetEntityId: atlasId, type: 'supplies', strength: 0.4 },
        evidence: quote,
      },
    ]);
    const aspectId = second.applied[0]?.targetId as string;
    await applyDreamingOperationsOn(store, config, { agentId: 'a' }, [
      {
        operation: 'add_claim',
        payload: { aspectId, claimKey: 'month', content: 'March', validFrom: T0 },
        evidence: [{ sourceRef: 'transcript:chat-1', quote: 'launch moved to March' }],
      },
    ]);
    const reads = await store.db.read(function* () {
      const page1 = yield* listEntitiesProgram('a', { status: null, query: null }, null, 2);
      const last = page1.at(-1);
      const page2 = yield* listEntitiesProgram(
        'a',
        { status: null, query: null },
        last ? { canonicalName: last.canonicalName, id: last.id } : null,
        2,
      );
      return {
        names: [...page1, ...page2].map((e) => e.name),
        byAlias: (yield* listEntitiesProgram('a', { status: 'active', query: 'invoic' }, null, 10)).map((e) => e.name),
        otherScope: yield* findEntitiesByIdsProgram('b', [atlasId]),
        byId: (yield* findEntitiesByIdsProgram('a', [atlasId])).map((e) => e.name),
        aspects: (yield* listEntityAspectsProgram('a', atlasId, false, 10)).map((x) => x.name),
        claims: (yield* listEntityClaimsProgram('a', atlasId, ['active'], 10)).map((c) => [c.claimKey, c.content]),
        links: (yield* listEntityLinksProgram('a', atlasId, false, 10)).map((l) => `${l.sourceName}>${l.targetName}`),
        around: (yield* activeLinksAroundProgram('a', [vendorId], 10)).map((l) => l.type),
        asOf: (yield* claimsAsOfProgram('a', atlasId, T0 + 1)).map((c) => c.content),
        before: yield* claimsAsOfProgram('a', atlasId, T0 - 1),
        search: (yield* searchEntitiesByNameProgram('a', 'INVOIC', 10)).map((e) => e.name),
      };
    });
    expect(reads).toEqual({
      names: ['billing', 'Project Atlas', 'Vendor'],
      byAlias: ['billing'],
      otherScope: [],
      byId: ['Project Atlas'],
      aspects: ['launch'],
      claims: [['month', 'March']],
      links: ['Project Atlas>billing', 'Vendor>Project Atlas'],
      around: ['supplies'],
      asOf: ['March'],
      before: [],
      search: ['billing'],
    });
  });

  test('an operation that fails is rolled back alone under its savepoint; the transaction goes on', async () => {
    const { store, sql } = await backend.setup();
    const attention = (id: string) => ({
      id,
      agentId: 'a',
      kind: 'hygiene' as const,
      subjectRef: `entity:${id}`,
      priority: 1,
      details: '',
      createdBy: 'test',
      now: T0,
    });
    const entity = { id: 'e1', agentId: 'a', name: 'Atlas', now: T0 };
    const outcome = await store.db.write(function* () {
      yield* openAttentionProgram(attention('x1'));
      yield* insertEntityProgram(entity);
      // The same primary key again: the statement fails (on PostgreSQL it would abort the transaction).
      const failed = yield* withSavepoint('dreaming_operation', function* () {
        yield* openAttentionProgram(attention('x2'));
        yield* insertEntityProgram(entity);
      });
      yield* openAttentionProgram(attention('x3'));
      return failed;
    });
    expect(outcome.ok).toBe(false);
    expect(await sql("SELECT count(*) AS n FROM entities WHERE agent_id = 'a'")).toEqual([{ n: 1 }]);
    expect(await sql("SELECT id FROM dreaming_attention WHERE agent_id = 'a' ORDER BY id")).toEqual([
      { id: 'x1' },
      { id: 'x3' },
    ]);
  });

  test('the LLM cannot be called from inside a write transaction', async () => {
    const { store } = await backend.setup();
    const llm = store.guard.llm(scripted([() => done('never')]));
    const error = await store.db
      .write(function* () {
        yield* openAttentionProgram({
          id: 'g1',
          agentId: 'a',
          kind: 'hygiene',
          subjectRef: 'entity:g1',
          priority: 1,
          details: '',
          createdBy: 'test',
          now: T0,
        });
        void llm.generate({ messages: [{ role: 'user', content: 'hi' }] });
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(TransactionBoundaryError);
    expect(isMemoryError(error)).toBe(true);
  });
});
