import type { LogFields } from '@memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../src/index.js';
import { createTestEngine, T0 } from './helpers.js';

// Issue 11, item 6: no API tells "exists in another scope" from "exists nowhere". Session keys are
// host-chosen and guessable, so such an answer would let one agent probe another's data. Operators
// still see the cross-scope attempt in the log.

interface Logged {
  readonly message: string;
  readonly fields: LogFields | undefined;
}

async function world() {
  const db = new Database(':memory:');
  const warnings: Logged[] = [];
  const noop = (): void => undefined;
  const { engine } = await createTestEngine({
    database: { database: db },
    logger: { debug: noop, info: noop, error: noop, warn: (message, fields) => warnings.push({ message, fields }) },
    config: { dreaming: { allowUpdateDelete: true }, hints: { enabled: false } },
  });
  const evidence = async (agentId: string, sessionKey: string, text: string) => {
    await engine.transcripts.append({ agentId, sessionKey, turns: [{ role: 'user', content: text }] });
    await engine.transcripts.complete({ agentId, sessionKey });
  };
  await evidence('b', 'chat-42', 'Borealis is the secret merger; Cygnus advises on Borealis.');
  await evidence('a', 'chat-a', 'Atlas is our billing rewrite and Vega is the vendor.');
  const citeA = [{ sourceRef: 'transcript:chat-a', quote: 'Atlas is our billing rewrite' }];
  const citeB = [{ sourceRef: 'transcript:chat-42', quote: 'Borealis is the secret merger' }];

  const graph = async (agentId: string, cite: typeof citeA, names: [string, string]) => {
    const ids = (r: Awaited<ReturnType<MemoryEngine['dreaming']['apply']>>) => r.applied.map((x) => x.targetId);
    const [e1 = '', e2 = ''] = ids(
      await engine.dreaming.apply({
        agentId,
        operations: names.map((name) => ({ operation: 'create_entity', payload: { name }, evidence: cite })),
      }),
    );
    const [aspect = ''] = ids(
      await engine.dreaming.apply({
        agentId,
        operations: [{ operation: 'create_aspect', payload: { entityId: e1, name: 'status' }, evidence: cite }],
      }),
    );
    const [claim = '', link = ''] = ids(
      await engine.dreaming.apply({
        agentId,
        operations: [
          { operation: 'add_claim', payload: { aspectId: aspect, claimKey: 'k', content: 'secret' }, evidence: cite },
          {
            operation: 'create_link',
            payload: { sourceEntityId: e1, targetEntityId: e2, type: 'advises' },
            evidence: cite,
          },
        ],
      }),
    );
    return { entity: e1, other: e2, aspect, claim, link };
  };
  const b = await graph('b', citeB, ['Borealis', 'Cygnus']);
  const a = await graph('a', citeA, ['Atlas', 'Vega']);
  const memoryB = (await engine.remember({ agentId: 'b', content: 'The Borealis deal closes Friday' })).id;
  const documentB = (await engine.documents.add({ agentId: 'b', content: 'Borealis board memo' })).id;
  const attention = (id: string, agentId: string, subjectRef: string) =>
    db
      .prepare(
        "INSERT OR IGNORE INTO dreaming_attention (id, agent_id, kind, subject_ref, created_by, created_at) VALUES (?, ?, 'hygiene', ?, 'test', ?)",
      )
      .run(id, agentId, subjectRef, T0);
  attention('att-b', 'b', `entity:${b.entity}`);
  warnings.length = 0;
  return { engine, db, warnings, a, b, memoryB, documentB, citeA, attention };
}

type World = Awaited<ReturnType<typeof world>>;

/** Operations that name one target id, with what stands in for it. */
function operations(
  w: World,
): Array<[name: string, elsewhere: string, nowhere: string, make: (id: string) => unknown]> {
  const { a, b, citeA } = w;
  const cite = (ref: string) => [{ sourceRef: ref, quote: 'Borealis is the secret merger' }];
  return [
    [
      'rename_entity',
      b.entity,
      'ent-404',
      (id) => ({ operation: 'rename_entity', payload: { entityId: id, name: 'X' }, evidence: citeA }),
    ],
    [
      'create_aspect',
      b.entity,
      'ent-404',
      (id) => ({ operation: 'create_aspect', payload: { entityId: id, name: 'y' }, evidence: citeA }),
    ],
    [
      'rename_aspect',
      b.aspect,
      'asp-404',
      (id) => ({ operation: 'rename_aspect', payload: { aspectId: id, name: 'z' }, evidence: citeA }),
    ],
    [
      'add_claim',
      b.aspect,
      'asp-404',
      (id) => ({ operation: 'add_claim', payload: { aspectId: id, claimKey: 'k2', content: 'c' }, evidence: citeA }),
    ],
    [
      'set_claim',
      b.aspect,
      'asp-404',
      (id) => ({ operation: 'set_claim', payload: { aspectId: id, claimKey: 'k', content: 'c' }, evidence: citeA }),
    ],
    [
      'supersede_claim',
      b.claim,
      'clm-404',
      (id) => ({ operation: 'supersede_claim', payload: { claimId: id, content: 'c' }, evidence: citeA }),
    ],
    [
      'create_link (source)',
      b.entity,
      'ent-404',
      (id) => ({
        operation: 'create_link',
        payload: { sourceEntityId: id, targetEntityId: a.entity, type: 't' },
        evidence: citeA,
      }),
    ],
    [
      'create_link (target)',
      b.entity,
      'ent-404',
      (id) => ({
        operation: 'create_link',
        payload: { sourceEntityId: a.entity, targetEntityId: id, type: 't' },
        evidence: citeA,
      }),
    ],
    [
      'update_link',
      b.link,
      'lnk-404',
      (id) => ({ operation: 'update_link', payload: { linkId: id, type: 't' }, evidence: citeA }),
    ],
    [
      'supersede_memory',
      w.memoryB,
      'mem-404',
      (id) => ({ operation: 'supersede_memory', payload: { memoryId: id, content: 'new text' }, evidence: citeA }),
    ],
    [
      'citing a transcript',
      'chat-42',
      'chat-404',
      (key) => ({ operation: 'create_entity', payload: { name: 'Q' }, evidence: cite(`transcript:${key}`) }),
    ],
    [
      'citing a memory',
      w.memoryB,
      'mem-404',
      (id) => ({ operation: 'create_entity', payload: { name: 'Q' }, evidence: cite(`memory:${id}`) }),
    ],
    [
      'citing a document',
      w.documentB,
      'doc-404',
      (id) => ({ operation: 'create_entity', payload: { name: 'Q' }, evidence: cite(`document:${id}`) }),
    ],
    [
      'hygiene citing attention',
      'att-b',
      'att-404',
      (id) => ({
        operation: 'archive_entity',
        payload: { entityId: a.other },
        evidence: [{ sourceRef: `attention:${id}`, quote: '' }],
      }),
    ],
    [
      'decline_attention',
      'att-b',
      'att-404',
      (id) => ({ operation: 'decline_attention', payload: { attentionId: id } }),
    ],
    [
      'flag',
      b.entity,
      'ent-404',
      (id) => ({ operation: 'flag', payload: { kind: 'hygiene', subjectRef: `entity:${id}`, details: 'd' } }),
    ],
    ...(
      [
        ['archive_entity', 'entity', b.entity, 'ent-404', (id: string) => ({ entityId: id })],
        [
          'merge_entities',
          'entity',
          b.entity,
          'ent-404',
          (id: string) => ({ sourceEntityId: id, targetEntityId: a.entity }),
        ],
        ['archive_aspect', 'aspect', b.aspect, 'asp-404', (id: string) => ({ aspectId: id })],
        ['archive_claim', 'claim', b.claim, 'clm-404', (id: string) => ({ claimId: id })],
        ['archive_link', 'link', b.link, 'lnk-404', (id: string) => ({ linkId: id })],
        ['archive_memory', 'memory', w.memoryB, 'mem-404', (id: string) => ({ memoryId: id })],
      ] as const
    ).map(([operation, kind, elsewhere, nowhere, payload]): [string, string, string, (id: string) => unknown] => [
      operation,
      elsewhere,
      nowhere,
      (id) => {
        // A's own attention record about the target, so the target check is what decides.
        w.attention(`att-a-${kind}-${id}`, 'a', `${kind}:${id}`);
        return {
          operation,
          payload: payload(id),
          evidence: [{ sourceRef: `attention:att-a-${kind}-${id}`, quote: '' }],
        };
      },
    ]),
  ];
}

const same = (text: unknown, id: string) =>
  JSON.stringify(text)
    .replaceAll(id, '<ref>')
    .replace(/att-a-\w+-<ref>/g, '<att>');

describe('dreaming.apply is not an existence oracle', () => {
  it('answers a reference to another scope exactly like one to nothing, for every kind of reference', async () => {
    const w = await world();
    for (const [name, elsewhere, nowhere, make] of operations(w)) {
      const there = await w.engine.dreaming.apply({ agentId: 'a', operations: [make(elsewhere)] });
      const absent = await w.engine.dreaming.apply({ agentId: 'a', operations: [make(nowhere)] });
      expect(there.applied, name).toEqual([]);
      expect(there.rejected, name).toHaveLength(1);
      expect(same(there, elsewhere), name).toBe(same(absent, nowhere));
      expect(JSON.stringify(there), name).not.toMatch(/another agent|other_scope|belongs to/i);
    }
  });

  it('logs each cross-scope attempt for operators, naming both scopes, and nothing for missing ids', async () => {
    const w = await world();
    await w.engine.dreaming.apply({
      agentId: 'a',
      passId: 'pass-1',
      operations: [
        { operation: 'rename_entity', payload: { entityId: w.b.entity, name: 'X' }, evidence: w.citeA },
        {
          operation: 'create_entity',
          payload: { name: 'Q' },
          evidence: [{ sourceRef: 'transcript:chat-42', quote: 'Borealis is the secret merger' }],
        },
      ],
    });
    expect(w.warnings).toEqual([
      {
        message: expect.stringMatching(/another agent scope/),
        fields: expect.objectContaining({
          agentId: 'a',
          passId: 'pass-1',
          ref: `entity:${w.b.entity}`,
          ownerAgentId: 'b',
        }),
      },
      {
        message: expect.stringMatching(/another agent scope/),
        fields: expect.objectContaining({ agentId: 'a', ref: 'transcript:chat-42', ownerAgentId: 'b' }),
      },
    ]);
    w.warnings.length = 0;
    await w.engine.dreaming.apply({
      agentId: 'a',
      operations: [{ operation: 'rename_entity', payload: { entityId: 'ent-404', name: 'X' }, evidence: w.citeA }],
    });
    expect(w.warnings).toEqual([]);
  });
});

/** What a call answered: its value, or its error's code, message and details. */
async function outcome(call: () => Promise<unknown>): Promise<unknown> {
  try {
    return { value: await call() };
  } catch (error) {
    const e = error as { code?: unknown; message?: unknown; details?: unknown };
    return { code: e.code, message: e.message, details: e.details };
  }
}

describe('no other API tells another scope from nowhere', () => {
  it('memories, transcripts, documents, claims and jobs answer both alike', async () => {
    const w = await world();
    const { engine } = w;
    const job = await engine.jobs.enqueue({ jobType: 'host_task', agentId: 'b', payload: { secret: 1 } });
    const probes: Array<[string, string, string, (id: string) => Promise<unknown>]> = [
      ['getMemory', w.memoryB, 'mem-404', (id) => engine.getMemory({ agentId: 'a', id, includeDeleted: true })],
      ['history', w.memoryB, 'mem-404', (id) => engine.history({ agentId: 'a', id })],
      [
        'modify',
        w.memoryB,
        'mem-404',
        (id) => engine.modify({ agentId: 'a', id, reason: 'r', content: 'changed text' }),
      ],
      ['forget', w.memoryB, 'mem-404', (id) => engine.forget({ agentId: 'a', id, reason: 'r', force: true })],
      ['recover', w.memoryB, 'mem-404', (id) => engine.recover({ agentId: 'a', id })],
      ['transcripts.get', 'chat-42', 'chat-404', (key) => engine.transcripts.get({ agentId: 'a', sessionKey: key })],
      [
        'transcripts.complete',
        'chat-42',
        'chat-404',
        (key) => engine.transcripts.complete({ agentId: 'a', sessionKey: key }),
      ],
      ['documents.get', w.documentB, 'doc-404', (id) => engine.documents.get({ agentId: 'a', id })],
      ['documents.delete', w.documentB, 'doc-404', (id) => engine.documents.delete({ agentId: 'a', id })],
      [
        'claimsAsOf',
        w.b.entity,
        'ent-404',
        (id) => engine.dreaming.claimsAsOf({ agentId: 'a', entityId: id, asOf: T0 }),
      ],
      ['jobs.get', job.id, 'job-404', (id) => engine.jobs.get({ id, agentId: 'a' })],
      [
        'jobs.enqueue (dedup key)',
        'k-b',
        'k-new',
        async (key) => {
          if (key === 'k-b') await engine.jobs.enqueue({ jobType: 'host_task', agentId: 'b', dedupKey: key });
          const { deduped } = await engine.jobs.enqueue({ jobType: 'host_task', agentId: 'a', dedupKey: key });
          return { deduped };
        },
      ],
    ];
    for (const [name, elsewhere, nowhere, call] of probes) {
      const there = await outcome(() => call(elsewhere));
      const absent = await outcome(() => call(nowhere));
      expect(same(there, elsewhere), name).toBe(same(absent, nowhere));
    }
    // B's data is untouched.
    expect(await engine.getMemory({ agentId: 'b', id: w.memoryB })).toMatchObject({
      content: 'The Borealis deal closes Friday',
    });
    expect(await engine.transcripts.get({ agentId: 'b', sessionKey: 'chat-42' })).toMatchObject({ completedAt: T0 });
  });
});
