import type { GenerateResult, LlmProvider } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { createTestEngine, T0 } from './helpers.js';

const DAY = 86_400_000;
const CHAT =
  'Atlas is the billing rewrite. Atlas depends on Ledger. Ledger depends on Vault. Vault depends on Keys. Dana owns Atlas. The launch moved from February to March.';
const cite = (quote: string) => [{ sourceRef: 'transcript:chat-1', quote }];

async function world(llm?: LlmProvider) {
  const { engine, clock } = await createTestEngine({
    ...(llm ? { llm } : {}),
    config: { hints: { enabled: false } },
  });
  await engine.transcripts.append({ agentId: 'a', sessionKey: 'chat-1', turns: [{ role: 'user', content: CHAT }] });
  await engine.transcripts.complete({ agentId: 'a', sessionKey: 'chat-1' });
  const apply = async (operations: unknown[]) => {
    const result = await engine.dreaming.apply({ agentId: 'a', passId: 'setup', operations });
    expect(result.rejected).toEqual([]);
    return result.applied.map((a) => a.targetId);
  };
  const [atlas, ledger, vault, keys, dana] = (await apply(
    ['Atlas', 'Ledger', 'Vault', 'Keys', 'Dana'].map((name) => ({
      operation: 'create_entity',
      payload: { name, ...(name === 'Atlas' ? { aliases: ['Billing Rewrite'] } : {}) },
      evidence: cite(
        name === 'Dana' ? 'Dana owns Atlas' : 'depends on Ledger. Ledger depends on Vault. Vault depends on Keys',
      ),
    })),
  )) as [string, string, string, string, string];
  await apply([
    {
      operation: 'create_link',
      payload: { sourceEntityId: atlas, targetEntityId: ledger, type: 'depends_on', strength: 0.9 },
      evidence: cite('Atlas depends on Ledger'),
    },
    {
      operation: 'create_link',
      payload: { sourceEntityId: ledger, targetEntityId: vault, type: 'depends_on' },
      evidence: cite('Ledger depends on Vault'),
    },
    {
      operation: 'create_link',
      payload: { sourceEntityId: vault, targetEntityId: keys, type: 'depends_on' },
      evidence: cite('Vault depends on Keys'),
    },
    {
      operation: 'create_link',
      payload: { sourceEntityId: dana, targetEntityId: atlas, type: 'owns', strength: 0.5 },
      evidence: cite('Dana owns Atlas'),
    },
  ]);
  const [schedule] = (await apply([
    { operation: 'create_aspect', payload: { entityId: atlas, name: 'schedule' }, evidence: cite('The launch moved') },
  ])) as [string];
  const [feb] = (await apply([
    {
      operation: 'add_claim',
      payload: { aspectId: schedule, claimKey: 'launch', content: 'Launch in February', validFrom: T0 },
      evidence: cite('The launch moved from February'),
    },
  ])) as [string];
  clock.advance(DAY);
  const [march] = (await apply([
    {
      operation: 'supersede_claim',
      payload: { claimId: feb, content: 'Launch in March', validFrom: T0 + 30 * DAY },
      evidence: cite('The launch moved from February to March'),
    },
  ])) as [string];
  const note = await engine.remember({ agentId: 'a', content: 'Atlas weekly sync notes: Ledger is late.' });
  return { engine, clock, atlas, ledger, vault, keys, dana, schedule, feb, march, note: note.id };
}

describe('engine.graph', () => {
  it('lists entities by name, keyset-paged, filtered by name or alias, scoped to the agent', async () => {
    const { engine, atlas } = await world();
    const first = await engine.graph.entities({ agentId: 'a', limit: 2 });
    expect(first.items.map((e) => e.name)).toEqual(['Atlas', 'Dana']);
    const second = await engine.graph.entities({ agentId: 'a', limit: 2, cursor: first.nextCursor ?? '' });
    expect(second.items.map((e) => e.name)).toEqual(['Keys', 'Ledger']);
    const third = await engine.graph.entities({ agentId: 'a', limit: 2, cursor: second.nextCursor ?? '' });
    expect(third.items.map((e) => e.name)).toEqual(['Vault']);
    expect(third.nextCursor).toBeUndefined();
    expect((await engine.graph.entities({ agentId: 'a', query: 'billing' })).items.map((e) => e.id)).toEqual([atlas]);
    expect((await engine.graph.entities({ agentId: 'b' })).items).toEqual([]);
    expect((await engine.graph.entities({ agentId: 'a', status: 'archived' })).items).toEqual([]);
    await expect(engine.graph.entities({ agentId: 'a', cursor: 'bm90IGEgY3Vyc29y' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('reads one entity with aliases, aspects, active and superseded claims with event and record time, mentions and links', async () => {
    const { engine, atlas, feb, march, note, clock } = await world();
    const detail = await engine.graph.entity({ agentId: 'a', entityId: atlas });
    expect(detail).toMatchObject({ id: atlas, name: 'Atlas', status: 'active', aliases: ['Billing Rewrite'] });
    expect(detail?.aspects).toEqual([
      expect.objectContaining({
        name: 'schedule',
        claims: [
          expect.objectContaining({
            id: feb,
            status: 'superseded',
            supersededBy: march,
            validFrom: T0,
            validUntil: T0 + 30 * 86_400_000,
            createdAt: T0,
            supersededAt: T0 + 86_400_000,
            evidence: cite('The launch moved from February'),
          }),
          expect.objectContaining({ id: march, status: 'active', validFrom: T0 + 30 * 86_400_000, supersededAt: null }),
        ],
      }),
    ]);
    expect(detail?.mentionedIn).toEqual({ total: 1, items: [expect.objectContaining({ memoryId: note })] });
    expect(detail?.links.map((l) => `${l.sourceName}-${l.type}->${l.targetName}`)).toEqual([
      'Atlas-depends_on->Ledger',
      'Dana-owns->Atlas',
    ]);
    expect(await engine.graph.entity({ agentId: 'b', entityId: atlas })).toBeUndefined();
    // As of a time: February before the move, March after it.
    const asOf = (t: number) => engine.graph.claimsAsOf({ agentId: 'a', entityId: atlas, asOf: t });
    expect((await asOf(T0 + 86_400_000)).map((c) => c.content)).toEqual(['Launch in February']);
    expect((await asOf(T0 + 40 * 86_400_000)).map((c) => c.content)).toEqual(['Launch in March']);
    expect(await engine.graph.claimsAsOf({ agentId: 'b', entityId: atlas, asOf: clock.now() })).toEqual([]);
  });

  it('walks an entity’s neighbourhood to a bounded depth and size', async () => {
    const { engine, atlas, ledger, vault, keys, dana } = await world();
    const one = await engine.graph.neighbourhood({ agentId: 'a', entityId: atlas });
    expect(one?.nodes.map((n) => [n.name, n.depth])).toEqual([
      ['Atlas', 0],
      ['Dana', 1],
      ['Ledger', 1],
    ]);
    expect(one?.links).toHaveLength(2);
    expect(one?.truncated).toBe(false);
    const three = await engine.graph.neighbourhood({ agentId: 'a', entityId: atlas, depth: 3 });
    expect(new Map(three?.nodes.map((n) => [n.id, n.depth]))).toEqual(
      new Map([
        [atlas, 0],
        [ledger, 1],
        [dana, 1],
        [vault, 2],
        [keys, 3],
      ]),
    );
    expect(three?.links).toHaveLength(4);
    const small = await engine.graph.neighbourhood({ agentId: 'a', entityId: atlas, depth: 3, limit: 2 });
    expect(small?.nodes.map((n) => n.name)).toEqual(['Atlas', 'Ledger']);
    expect(small).toMatchObject({ truncated: true, links: [expect.objectContaining({ targetId: ledger })] });
    expect(await engine.graph.neighbourhood({ agentId: 'b', entityId: atlas })).toBeUndefined();
    await expect(engine.graph.neighbourhood({ agentId: 'a', entityId: atlas, depth: 4 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});

describe('engine.dreaming read APIs', () => {
  it('lists and reads passes with trigger, mode, usage, evidence window, tool calls, mutations and stop reason', async () => {
    let n = 0;
    const turns: Array<() => GenerateResult> = [
      () => ({
        text: '',
        toolCalls: [{ id: 't1', name: 'next_evidence', arguments: '{}' }],
        usage: { inputTokens: 100, outputTokens: 10 },
      }),
      () => ({
        text: '',
        toolCalls: [
          {
            id: 't2',
            name: 'apply_operations',
            arguments: JSON.stringify({
              operations: [
                {
                  operation: 'create_entity',
                  payload: { name: 'Keys Service' },
                  evidence: cite('Vault depends on Keys'),
                },
                { operation: 'create_entity', payload: { name: 'Ghost' }, evidence: cite('not in the evidence') },
              ],
            }),
          },
        ],
        usage: { inputTokens: 200, outputTokens: 20 },
      }),
      () => ({ text: 'Added Keys Service.', usage: { inputTokens: 50, outputTokens: 5 } }),
    ];
    const llm: LlmProvider = {
      async generate() {
        const turn = turns[Math.min(n++, turns.length - 1)] as () => GenerateResult;
        return turn();
      },
    };
    const { engine, clock } = await world(llm);
    const pass = await engine.dreaming.runPass({ agentId: 'a', mode: 'incremental', trigger: 'manual' });
    clock.advance(1000);
    const second = await engine.dreaming.runPass({ agentId: 'a' });
    const list = await engine.dreaming.passes.list({ agentId: 'a' });
    expect(list.items.map((p) => p.id)).toEqual([second.passId, pass.passId]);
    expect(list.items[1]).toMatchObject({
      trigger: 'manual',
      mode: 'incremental',
      status: 'completed',
      usage: { inputTokens: 350, outputTokens: 35 },
      mutations: { applied: 1, rejected: 1, proposals: 0 },
      summary: 'Added Keys Service.',
      stopReason: 'finished',
      toolCallCount: 2,
    });
    const detail = await engine.dreaming.passes.get({ agentId: 'a', passId: pass.passId });
    expect(detail?.evidenceWindow).toEqual([
      { sourceRef: 'transcript:chat-1', from: 0, to: CHAT.length + 6, total: CHAT.length + 6 },
      { sourceRef: expect.stringMatching(/^memory:/), from: 0, to: 40, total: 40 },
    ]);
    expect(detail?.toolCalls.map((c) => [c.ordinal, c.tool, c.ok])).toEqual([
      [0, 'next_evidence', true],
      [1, 'apply_operations', true],
    ]);
    expect(detail?.toolCalls[1]?.result).toMatch(/word for word|verbatim|quote/);
    const paged = await engine.dreaming.passes.list({ agentId: 'a', limit: 1 });
    expect(paged.items.map((p) => p.id)).toEqual([second.passId]);
    const rest = await engine.dreaming.passes.list({ agentId: 'a', limit: 1, cursor: paged.nextCursor ?? '' });
    expect(rest.items.map((p) => p.id)).toEqual([pass.passId]);
    expect(await engine.dreaming.passes.get({ agentId: 'b', passId: pass.passId })).toBeUndefined();
    expect((await engine.dreaming.passes.list({ agentId: 'b' })).items).toEqual([]);
  });

  it('reads provenance per target and attention, open and resolved', async () => {
    const { engine, atlas, march, feb } = await world();
    const entityProvenance = await engine.dreaming.provenance({ agentId: 'a', targetType: 'entity', targetId: atlas });
    expect(entityProvenance.items).toEqual([
      expect.objectContaining({
        passId: 'setup',
        operation: 'create_entity',
        evidence: expect.any(Array),
        changes: expect.arrayContaining([expect.objectContaining({ kind: 'entity', before: null })]),
        revertedAt: null,
      }),
    ]);
    const claim = await engine.dreaming.provenance({ agentId: 'a', targetType: 'claim', targetId: march });
    expect(claim.items[0]?.changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'claim',
          key: [feb],
          before: expect.objectContaining({ status: 'active' }),
          after: expect.objectContaining({ status: 'superseded' }),
        }),
      ]),
    );
    expect((await engine.dreaming.provenance({ agentId: 'b', targetType: 'entity', targetId: atlas })).items).toEqual(
      [],
    );

    const flagged = await engine.dreaming.apply({
      agentId: 'a',
      passId: 'p9',
      operations: [
        { operation: 'flag', payload: { kind: 'hygiene', subjectRef: `entity:${atlas}`, details: 'check the name' } },
        { operation: 'flag', payload: { kind: 'review_due', subjectRef: `claim:${march}`, details: 'recheck' } },
      ],
    });
    const [first] = flagged.applied.map((a) => a.targetId);
    await engine.dreaming.apply({
      agentId: 'a',
      passId: 'p9',
      operations: [{ operation: 'decline_attention', payload: { attentionId: first } }],
    });
    const open = await engine.dreaming.attention({ agentId: 'a' });
    expect(open.items).toEqual([
      expect.objectContaining({ kind: 'review_due', subjectRef: `claim:${march}`, resolvedAt: null }),
    ]);
    const resolved = await engine.dreaming.attention({ agentId: 'a', state: 'resolved' });
    expect(resolved.items).toEqual([
      expect.objectContaining({
        id: first,
        resolution: 'declined',
        resolvedByPassId: 'p9',
        resolvedAt: expect.any(Number),
      }),
    ]);
    expect((await engine.dreaming.attention({ agentId: 'a', state: 'all', limit: 1 })).nextCursor).toEqual(
      expect.any(String),
    );
    expect((await engine.dreaming.attention({ agentId: 'b', state: 'all' })).items).toEqual([]);
  });
});
