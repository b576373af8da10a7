import { contentHash, defaultConfig, type MemoryConfig, normalizeForHash } from '@memory/core';
import {
  completeTranscript,
  insertAspect,
  insertClaim,
  insertDependency,
  insertEntity,
  type Store,
  upsertTranscript,
} from '@memory/store';
import { raw } from '@memory/store/sql';
import { createTestStore, insertMemory } from '@memory/store/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DreamingOperation } from '../src/index.js';
import { parseOperations } from '../src/operations.js';
import { decideOperations, type OperationDecision } from '../src/validate.js';

const NOW = Date.UTC(2026, 0, 1);
const QUOTE = 'we moved the Atlas launch to March';
const cite = [{ sourceRef: 'transcript:chat-1', quote: QUOTE }];

function memory(store: Store, id: string, agentId: string, content: string, pinned = false) {
  store.write((sql) =>
    insertMemory(sql, {
      id,
      agent_id: agentId,
      type: 'fact',
      content,
      normalized_content: normalizeForHash(content),
      content_hash: contentHash(content),
      confidence: 1,
      importance: 0.5,
      tags: '[]',
      linked_entities: '[]',
      pinned: pinned ? 1 : 0,
      created_at: NOW,
      updated_at: NOW,
    }),
  );
}

function attention(store: Store, id: string, agentId: string, subjectRef: string, resolved = false) {
  store.write((sql) =>
    sql.run(
      raw(
        'INSERT INTO dreaming_attention (id, agent_id, kind, subject_ref, created_by, created_at, resolved_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        id,
        agentId,
        'hygiene',
        subjectRef,
        'engine',
        NOW,
        resolved ? NOW : null,
      ),
    ),
  );
}

async function world() {
  const store = await createTestStore();
  store.write((sql) => {
    for (const [agent, content] of [
      ['a', `user: ${QUOTE}\nassistant: noted`],
      ['b', 'user: b plans the Borealis budget'],
    ] as const) {
      upsertTranscript(sql, {
        agentId: agent,
        sessionKey: agent === 'a' ? 'chat-1' : 'chat-b',
        harness: null,
        project: null,
        now: NOW,
      });
      completeTranscript(sql, {
        agentId: agent,
        sessionKey: agent === 'a' ? 'chat-1' : 'chat-b',
        content,
        contentHash: contentHash(content),
        now: NOW,
      });
    }
    insertEntity(sql, { id: 'atlas', agentId: 'a', name: 'Atlas', now: NOW });
    insertEntity(sql, { id: 'atlas-dup', agentId: 'a', name: 'Project Atlas', now: NOW });
    insertEntity(sql, { id: 'borealis', agentId: 'b', name: 'Borealis', now: NOW });
    insertAspect(sql, { id: 'schedule', agentId: 'a', entityId: 'atlas', name: 'schedule', now: NOW });
    insertClaim(sql, {
      id: 'launch',
      agentId: 'a',
      entityId: 'atlas',
      aspectId: 'schedule',
      claimKey: 'launch',
      content: 'launch in February',
      now: NOW,
    });
    insertDependency(sql, {
      id: 'dep',
      agentId: 'a',
      sourceEntityId: 'atlas',
      targetEntityId: 'atlas-dup',
      type: 'same_as',
      now: NOW,
    });
  });
  memory(store, 'mem-a', 'a', 'Atlas launch moved to March.');
  memory(store, 'mem-pinned', 'a', 'Never ship Atlas on a Friday.', true);
  memory(store, 'mem-b', 'b', 'Borealis budget is 40k.');
  attention(store, 'att-dup', 'a', 'entity:atlas-dup');
  attention(store, 'att-done', 'a', 'entity:atlas', true);
  attention(store, 'att-b', 'b', 'entity:borealis');
  return store;
}

function decide(store: Store, ops: unknown[], policy: Partial<MemoryConfig['dreaming']> = {}): OperationDecision[] {
  const parsed = parseOperations(ops);
  if (!parsed.ok) throw new Error(parsed.reason);
  expect(parsed.rejected).toEqual([]);
  return store.read((sql) => decideOperations(sql, 'a', { ...defaultConfig.dreaming, ...policy }, parsed.valid));
}

const one = (store: Store, op: unknown, policy: Partial<MemoryConfig['dreaming']> = {}) =>
  decide(store, [op], policy)[0];

describe('deciding a batch before any write', () => {
  it('applies content operations that quote the agent’s evidence exactly', async () => {
    const store = await world();
    const decisions = decide(store, [
      { operation: 'create_entity', payload: { name: 'Launch Review' }, evidence: cite, confidence: 0.9 },
      {
        operation: 'supersede_claim',
        payload: { claimId: 'launch', content: 'The Atlas launch is in March.' },
        evidence: cite,
      },
      {
        operation: 'remember_memory',
        payload: { content: 'Atlas launches in March.', type: 'fact' },
        evidence: [{ sourceRef: 'memory:mem-a', quote: 'launch moved to March' }],
      },
    ]);
    expect(decisions.map((d) => d.status)).toEqual(['apply', 'apply', 'apply']);
  });

  it.each([
    [
      'a paraphrased quote',
      {
        operation: 'add_claim',
        payload: { aspectId: 'schedule', claimKey: 'k', content: 'March' },
        evidence: [{ sourceRef: 'transcript:chat-1', quote: 'the launch was moved to March' }],
      },
      /word for word/,
    ],
    [
      'a citation from another agent',
      {
        operation: 'add_claim',
        payload: { aspectId: 'schedule', claimKey: 'k', content: 'x' },
        evidence: [{ sourceRef: 'transcript:chat-b', quote: 'plans the Borealis budget' }],
      },
      /transcript:chat-b is not evidence of this scope/,
    ],
    ['no evidence', { operation: 'create_entity', payload: { name: 'Zephyr' } }, /cite at least one/],
    [
      'an invented aspect id',
      { operation: 'add_claim', payload: { aspectId: 'asp-404', claimKey: 'k', content: 'x' }, evidence: cite },
      /no aspect asp-404 in this scope/,
    ],
    [
      'another agent’s entity',
      { operation: 'create_aspect', payload: { entityId: 'borealis', name: 'budget' }, evidence: cite },
      /no entity borealis in this scope/,
    ],
    [
      'a duplicate entity name',
      { operation: 'create_entity', payload: { name: '  atlas ' }, evidence: cite },
      /already exists as atlas/,
    ],
    [
      'low confidence',
      { operation: 'create_entity', payload: { name: 'Zephyr' }, evidence: cite, confidence: 0.4 },
      /below dreaming.minConfidenceForWrite/,
    ],
    [
      'hygiene without attention',
      { operation: 'archive_entity', payload: { entityId: 'atlas-dup' } },
      /cite the attention record/,
    ],
    [
      'hygiene citing attention about something else',
      {
        operation: 'archive_entity',
        payload: { entityId: 'atlas' },
        evidence: [{ sourceRef: 'attention:att-dup', quote: '' }],
      },
      /none of the cited attention records/,
    ],
    [
      'hygiene citing resolved attention',
      {
        operation: 'archive_entity',
        payload: { entityId: 'atlas' },
        evidence: [{ sourceRef: 'attention:att-done', quote: '' }],
      },
      /none of the cited attention records/,
    ],
    [
      'hygiene citing another agent’s attention',
      {
        operation: 'archive_entity',
        payload: { entityId: 'atlas-dup' },
        evidence: [{ sourceRef: 'attention:att-b', quote: '' }],
      },
      /none of the cited attention records/,
    ],
    [
      'superseding a memory while updates are off',
      { operation: 'supersede_memory', payload: { memoryId: 'mem-a', content: 'x' }, evidence: cite },
      /allowUpdateDelete/,
    ],
    [
      'declining another agent’s attention',
      { operation: 'decline_attention', payload: { attentionId: 'att-b' } },
      /no attention att-b in this scope/,
    ],
    [
      'a link to itself',
      {
        operation: 'create_link',
        payload: { sourceEntityId: 'atlas', targetEntityId: 'atlas', type: 'x' },
        evidence: cite,
      },
      /two different entities/,
    ],
    [
      'an aspect the entity already has',
      { operation: 'create_aspect', payload: { entityId: 'atlas', name: 'SCHEDULE' }, evidence: cite },
      /already has an aspect "SCHEDULE" \(schedule\)/,
    ],
    [
      'a claim ending before it starts',
      {
        operation: 'add_claim',
        payload: { aspectId: 'schedule', claimKey: 'k', content: 'x', validFrom: 10, validUntil: 5 },
        evidence: cite,
      },
      /validUntil must be after validFrom/,
    ],
  ])('rejects %s with a reason', async (_name, op, reason) => {
    const store = await world();
    expect(one(store, op)).toEqual({ index: 0, status: 'rejected', reason: expect.stringMatching(reason) });
  });

  it('accepts hygiene that cites open attention about its target, or a flag earlier in the batch', async () => {
    const store = await world();
    const decisions = decide(store, [
      {
        operation: 'merge_entities',
        payload: { sourceEntityId: 'atlas-dup', targetEntityId: 'atlas' },
        evidence: [{ sourceRef: 'attention:att-dup', quote: '' }],
      },
      { operation: 'archive_link', payload: { linkId: 'dep' } },
      { operation: 'flag', payload: { kind: 'hygiene', subjectRef: 'link:dep', details: 'points at a duplicate' } },
      { operation: 'archive_link', payload: { linkId: 'dep' } },
    ]);
    expect(decisions.map((d) => d.status)).toEqual(['apply', 'rejected', 'apply', 'apply']);
  });

  it('routes shadow mode and review-required operations to proposals', async () => {
    const store = await world();
    const op = { operation: 'create_entity', payload: { name: 'Zephyr' }, evidence: cite };
    expect(one(store, op, { shadowMode: true })).toMatchObject({ status: 'proposal', route: 'shadow' });
    expect(one(store, { ...op, risk: 'review_required' })).toMatchObject({
      status: 'proposal',
      route: 'review_required',
    });
    // Shadow mode still validates: an invalid operation is rejected, not proposed.
    expect(one(store, { ...op, evidence: [] }, { shadowMode: true })).toMatchObject({ status: 'rejected' });
  });

  it('guards memories: updates need the policy, pinned ones need force', async () => {
    const store = await world();
    const allow = { allowUpdateDelete: true };
    const archivePinned = {
      operation: 'archive_memory',
      payload: { memoryId: 'mem-pinned' },
      evidence: [{ sourceRef: 'attention:att-pin', quote: '' }],
    };
    attention(store, 'att-pin', 'a', 'memory:mem-pinned');
    expect(one(store, archivePinned, allow)).toMatchObject({
      status: 'rejected',
      reason: expect.stringMatching(/pinned/),
    });
    expect(one(store, { ...archivePinned, payload: { memoryId: 'mem-pinned', force: true } }, allow)).toMatchObject({
      status: 'apply',
    });
    expect(
      one(
        store,
        { operation: 'supersede_memory', payload: { memoryId: 'mem-b', content: 'x' }, evidence: cite },
        allow,
      ),
    ).toMatchObject({ status: 'rejected', reason: expect.stringMatching(/no memory mem-b in this scope/) });
  });

  it('enforces the aspect and claim caps, counting creations earlier in the batch', async () => {
    const store = await world();
    const aspects = Array.from({ length: 20 }, (_, i) => ({
      operation: 'create_aspect',
      payload: { entityId: 'atlas', name: `aspect ${i}` },
      evidence: cite,
    }));
    const decisions = decide(store, aspects);
    // One aspect exists already: 19 more fit under the cap of 20.
    expect(decisions.filter((d) => d.status === 'apply')).toHaveLength(19);
    expect(decisions.at(-1)).toMatchObject({
      status: 'rejected',
      reason: expect.stringMatching(/already has 20 aspects/),
    });
    const claims = Array.from({ length: 3 }, (_, i) => ({
      operation: 'add_claim',
      payload: { aspectId: 'schedule', claimKey: `k${i}`, content: 'x' },
      evidence: cite,
    }));
    const capped = decide(store, claims, { maxClaimsPerAspect: 3 });
    expect(capped.map((d) => d.status)).toEqual(['apply', 'apply', 'rejected']);
    // Setting an existing key replaces the claim, so it fits even at the cap.
    expect(
      decide(
        store,
        [
          {
            operation: 'set_claim',
            payload: { aspectId: 'schedule', claimKey: 'launch', content: 'March' },
            evidence: cite,
          },
        ],
        { maxClaimsPerAspect: 1 },
      )[0],
    ).toMatchObject({ status: 'apply' });
  });

  it('never lets an operation through whose evidence is outside the agent’s scope (property)', async () => {
    const store = await world();
    const citations = [
      { sourceRef: 'transcript:chat-1', quote: QUOTE, good: true },
      { sourceRef: 'memory:mem-a', quote: 'Atlas launch moved', good: true },
      { sourceRef: 'transcript:chat-b', quote: 'plans the Borealis budget', good: false },
      { sourceRef: 'memory:mem-b', quote: 'Borealis budget is 40k', good: false },
      { sourceRef: 'memory:mem-a', quote: 'Atlas launch was moved', good: false },
      { sourceRef: 'document:doc-404', quote: 'anything at all here', good: false },
    ];
    const opArb = fc.record({
      kind: fc.constantFrom('create_entity', 'add_claim', 'create_aspect', 'remember_memory'),
      cites: fc.subarray(citations, { minLength: 0, maxLength: 3 }),
      n: fc.nat(1000),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 12 }), async (specs) => {
        const ops: DreamingOperation[] = specs.map((s) => {
          const evidence = s.cites.map(({ sourceRef, quote }) => ({ sourceRef, quote }));
          if (s.kind === 'create_entity') return { operation: 'create_entity', payload: { name: `E${s.n}` }, evidence };
          if (s.kind === 'add_claim')
            return {
              operation: 'add_claim',
              payload: { aspectId: 'schedule', claimKey: `k${s.n}`, content: 'x' },
              evidence,
            };
          if (s.kind === 'create_aspect')
            return { operation: 'create_aspect', payload: { entityId: 'atlas', name: `a${s.n}` }, evidence };
          return { operation: 'remember_memory', payload: { content: `m${s.n}`, type: 'fact' }, evidence };
        });
        const decisions = store.read((sql) =>
          decideOperations(
            sql,
            'a',
            defaultConfig.dreaming,
            ops.map((operation, index) => ({ index, operation })),
          ),
        );
        decisions.forEach((d, i) => {
          const spec = specs[i];
          const allGood = spec !== undefined && spec.cites.length > 0 && spec.cites.every((c) => c.good);
          if (d.status !== 'rejected') expect(allGood).toBe(true);
        });
      }),
    );
  });
});
