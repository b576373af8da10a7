import type { GenerateResult, LlmProvider } from '@memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createTestEngine, T0 } from './helpers.js';

// A scripted model, as in the Dreaming pass tests: each turn returns the next scripted answer.
function scripted(turns: ReadonlyArray<() => GenerateResult>): LlmProvider {
  let n = 0;
  return {
    async generate() {
      const turn = turns[Math.min(n, turns.length - 1)] as () => GenerateResult;
      n++;
      return turn();
    },
  };
}
const tool = (name: string, args: unknown, id: string): GenerateResult => ({
  text: '<think>next</think>',
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
  usage: { inputTokens: 120, outputTokens: 30 },
});

const CHAT =
  'Project Atlas is the same thing as Atlas. The Atlas launch moved to March. The launch review is on Friday.';

/**
 * Every row of the graph tables, the attention records passes and hosts wrote (a pass's own
 * detection at its start is not one of its operations), and the live memories, in a stable order.
 */
function graphState(db: Database.Database) {
  const all = (sql: string) => db.prepare(sql).all();
  return {
    entities: all('SELECT * FROM entities ORDER BY id'),
    aliases: all('SELECT * FROM entity_aliases ORDER BY entity_id, canonical_alias'),
    aspects: all('SELECT * FROM entity_aspects ORDER BY id'),
    claims: all('SELECT * FROM entity_attributes ORDER BY id'),
    links: all('SELECT * FROM entity_dependencies ORDER BY id'),
    mentions: all('SELECT * FROM memory_entity_mentions ORDER BY memory_id, entity_id'),
    attention: all("SELECT * FROM dreaming_attention WHERE created_by <> 'engine' ORDER BY id"),
    memories: all('SELECT id, content, content_hash, pinned FROM memories WHERE is_deleted = 0 ORDER BY id'),
  };
}

async function world(llm?: LlmProvider) {
  const db = new Database(':memory:');
  const { engine, clock } = await createTestEngine({
    database: { database: db },
    ...(llm ? { llm } : {}),
    config: { dreaming: { allowUpdateDelete: true }, hints: { enabled: false } },
  });
  await engine.transcripts.append({ agentId: 'a', sessionKey: 'chat-1', turns: [{ role: 'user', content: CHAT }] });
  await engine.transcripts.complete({ agentId: 'a', sessionKey: 'chat-1' });
  const cite = (quote: string) => [{ sourceRef: 'transcript:chat-1', quote }];
  const setup = await engine.dreaming.apply({
    agentId: 'a',
    passId: 'setup',
    operations: [
      { operation: 'create_entity', payload: { name: 'Atlas' }, evidence: cite('the same thing as Atlas') },
      {
        operation: 'create_entity',
        payload: { name: 'Project Atlas', aliases: ['PA'] },
        evidence: cite('Project Atlas is the same thing'),
      },
      { operation: 'create_entity', payload: { name: 'Vendor' }, evidence: cite('launch moved to March') },
    ],
  });
  expect(setup.rejected).toEqual([]);
  const [atlas, dup, vendor] = setup.applied.map((a) => a.targetId) as [string, string, string];
  const more = await engine.dreaming.apply({
    agentId: 'a',
    passId: 'setup',
    operations: [
      { operation: 'create_aspect', payload: { entityId: atlas, name: 'schedule' }, evidence: cite('Atlas launch') },
      { operation: 'create_aspect', payload: { entityId: dup, name: 'schedule' }, evidence: cite('Atlas launch') },
      {
        operation: 'create_link',
        payload: { sourceEntityId: dup, targetEntityId: vendor, type: 'depends_on' },
        evidence: cite('moved to March'),
      },
    ],
  });
  expect(more.rejected).toEqual([]);
  const [schedule, dupSchedule] = more.applied.map((a) => a.targetId) as [string, string];
  const claims = await engine.dreaming.apply({
    agentId: 'a',
    passId: 'setup',
    operations: [
      {
        operation: 'add_claim',
        payload: { aspectId: schedule, claimKey: 'launch', content: 'Launch in February', validFrom: T0 },
        evidence: cite('The Atlas launch'),
      },
      {
        operation: 'add_claim',
        payload: { aspectId: dupSchedule, claimKey: 'review', content: 'Review on Friday' },
        evidence: cite('The launch review is on Friday'),
      },
    ],
  });
  expect(claims.rejected).toEqual([]);
  const feb = claims.applied[0]?.targetId ?? '';
  // A host memory that mentions the duplicate by name (inline linking writes the mention).
  const note = await engine.remember({ agentId: 'a', content: 'Project Atlas launches in February, says the plan.' });
  return { db, engine, clock, atlas, dup, vendor, feb, note: note.id };
}

describe('dreaming.revert', () => {
  it('takes back a pass that created, merged and superseded, as one audited operation, after a preview', async () => {
    let ids: Awaited<ReturnType<typeof world>> | undefined;
    const llm = scripted([
      () => tool('next_evidence', {}, 't1'),
      () =>
        tool(
          'apply_operations',
          {
            operations: [
              {
                operation: 'create_entity',
                payload: { name: 'Launch Review', entityType: 'event' },
                evidence: [{ sourceRef: 'transcript:chat-1', quote: 'The launch review is on Friday' }],
              },
              {
                operation: 'flag',
                payload: { kind: 'hygiene', subjectRef: `entity:${ids?.dup}`, details: 'same as Atlas' },
              },
              { operation: 'merge_entities', payload: { sourceEntityId: ids?.dup, targetEntityId: ids?.atlas } },
              {
                operation: 'supersede_claim',
                payload: { claimId: ids?.feb, content: 'Launch in March', validFrom: T0 + 1000 },
                evidence: [{ sourceRef: 'transcript:chat-1', quote: 'The Atlas launch moved to March' }],
              },
              {
                operation: 'supersede_memory',
                payload: { memoryId: ids?.note, content: 'Project Atlas launches in March.' },
                evidence: [{ sourceRef: 'transcript:chat-1', quote: 'The Atlas launch moved to March' }],
              },
              {
                operation: 'remember_memory',
                payload: { content: 'The Atlas launch review is on Friday.', type: 'fact' },
                evidence: [{ sourceRef: 'transcript:chat-1', quote: 'The launch review is on Friday' }],
              },
            ],
          },
          't2',
        ),
      () => ({ text: 'Merged the duplicate, moved the launch, added the review.' }),
    ]);
    ids = await world(llm);
    const { db, engine, dup, atlas, note } = ids;
    expect(db.prepare('SELECT count(*) AS n FROM memory_entity_mentions WHERE entity_id = ?').get(dup)).toEqual({
      n: 1,
    });
    const before = graphState(db);

    const pass = await engine.dreaming.runPass({ agentId: 'a', mode: 'incremental' });
    expect(pass).toMatchObject({ status: 'completed', mutations: { applied: 6, rejected: 0 } });
    const after = graphState(db);
    expect(after).not.toEqual(before);
    expect(db.prepare('SELECT status FROM entities WHERE id = ?').get(dup)).toEqual({ status: 'archived' });
    expect(await engine.getMemory({ agentId: 'a', id: note })).toMatchObject({
      content: 'Project Atlas launches in March.',
    });

    // The preview writes nothing and says what would happen.
    const preview = await engine.dreaming.revert({ agentId: 'a', passId: pass.passId });
    expect(preview).toMatchObject({ passId: pass.passId, applied: false, conflicts: [] });
    expect(preview.operations.map((o) => o.operation)).toEqual([
      'remember_memory',
      'supersede_memory',
      'supersede_claim',
      'merge_entities',
      'flag',
      'create_entity',
    ]);
    const actions = new Set(preview.rows.map((r) => `${r.kind}:${r.action}`));
    for (const expected of [
      'entity:delete',
      'entity:restore',
      'claim:delete',
      'claim:restore',
      'aspect:restore',
      'alias:delete',
      'alias:restore',
      'mention:restore',
      'link:restore',
      'attention:delete',
      'memory:forget_memory',
      'memory:restore_memory_content',
    ])
      expect(actions).toContain(expected);
    expect(graphState(db)).toEqual(after);

    const result = await engine.dreaming.revert({
      agentId: 'a',
      passId: pass.passId,
      apply: true,
      reason: 'bad merge',
    });
    expect(result).toMatchObject({ applied: true, revertId: expect.any(String), conflicts: [] });
    // Every graph row and every live memory is as it was before the pass.
    expect(graphState(db)).toEqual(before);
    expect(await engine.dreaming.claimsAsOf({ agentId: 'a', entityId: atlas, asOf: T0 + 5000 })).toEqual([
      expect.objectContaining({ content: 'Launch in February', status: 'active' }),
    ]);
    // Audited: the memory's history names the revert, the provenance points at it, the revert is recorded once.
    const history = await engine.history({ agentId: 'a', id: note });
    expect(history.at(-1)).toMatchObject({
      event: 'updated',
      newContent: 'Project Atlas launches in February, says the plan.',
      actorType: 'operator',
      reason: 'bad merge',
    });
    expect(
      db
        .prepare('SELECT count(*) AS n FROM dreaming_provenance WHERE pass_id = ? AND revert_id = ?')
        .get(pass.passId, result.revertId),
    ).toEqual({ n: 6 });
    expect(db.prepare('SELECT agent_id, pass_id, operations, reason FROM dreaming_reverts').all()).toEqual([
      { agent_id: 'a', pass_id: pass.passId, operations: 6, reason: 'bad merge' },
    ]);
    await expect(engine.dreaming.revert({ agentId: 'a', passId: pass.passId, apply: true })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    // The memory the pass created is forgotten, not erased: it can be recovered.
    const created = result.rows.find((r) => r.action === 'forget_memory');
    expect(await engine.getMemory({ agentId: 'a', id: created?.key[0] ?? '' })).toBeUndefined();
  });

  it('refuses while a row the pass wrote has changed since, and changes nothing', async () => {
    const { db, engine } = await world();
    const created = await engine.dreaming.apply({
      agentId: 'a',
      passId: 'p1',
      operations: [
        {
          operation: 'create_entity',
          payload: { name: 'Launch Review' },
          evidence: [{ sourceRef: 'transcript:chat-1', quote: 'The launch review is on Friday' }],
        },
      ],
    });
    const review = created.applied[0]?.targetId ?? '';
    // A later write builds on what p1 created.
    await engine.dreaming.apply({
      agentId: 'a',
      passId: 'p2',
      operations: [
        {
          operation: 'create_aspect',
          payload: { entityId: review, name: 'when' },
          evidence: [{ sourceRef: 'transcript:chat-1', quote: 'on Friday' }],
        },
      ],
    });
    const preview = await engine.dreaming.revert({ agentId: 'a', passId: 'p1' });
    expect(preview.conflicts).toEqual([
      expect.objectContaining({ kind: 'entity', reason: expect.stringMatching(/aspect .* the pass did not write/) }),
    ]);
    const state = graphState(db);
    await expect(engine.dreaming.revert({ agentId: 'a', passId: 'p1', apply: true })).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { conflicts: [expect.stringMatching(/did not write/)] },
    });
    expect(graphState(db)).toEqual(state);
    // Reverting the later pass first clears the way.
    await engine.dreaming.revert({ agentId: 'a', passId: 'p2', apply: true });
    await engine.dreaming.revert({ agentId: 'a', passId: 'p1', apply: true });
    expect(db.prepare('SELECT count(*) AS n FROM entities WHERE id = ?').get(review)).toEqual({ n: 0 });

    // A renamed row (changed after the pass) is a conflict too.
    const renamed = await engine.dreaming.apply({
      agentId: 'a',
      passId: 'p3',
      operations: [
        {
          operation: 'create_entity',
          payload: { name: 'Friday Review' },
          evidence: [{ sourceRef: 'transcript:chat-1', quote: 'review is on Friday' }],
        },
      ],
    });
    await engine.dreaming.apply({
      agentId: 'a',
      passId: 'p4',
      operations: [
        {
          operation: 'rename_entity',
          payload: { entityId: renamed.applied[0]?.targetId, name: 'The Launch Review' },
          evidence: [{ sourceRef: 'transcript:chat-1', quote: 'The launch review' }],
        },
      ],
    });
    expect((await engine.dreaming.revert({ agentId: 'a', passId: 'p3' })).conflicts).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(/changed after the pass/) }),
    ]);
  });

  it('is not blocked by memories written since that mention a merged entity; mention counts follow the rows', async () => {
    const { db, engine, clock, dup, atlas, note } = await world();
    clock.advance(1000); // the merge stamps the target's updated_at: its row is one the merge wrote
    const merged = await engine.dreaming.apply({
      agentId: 'a',
      passId: 'merge',
      operations: [
        { operation: 'flag', payload: { kind: 'hygiene', subjectRef: `entity:${dup}`, details: 'duplicate' } },
        { operation: 'merge_entities', payload: { sourceEntityId: dup, targetEntityId: atlas } },
      ],
    });
    expect(merged.rejected).toEqual([]);
    // The host keeps writing: a new memory mentions the merged entity (by the alias the merge added).
    const later = await engine.remember({ agentId: 'a', content: 'Project Atlas budget was approved on Monday.' });
    const result = await engine.dreaming.revert({ agentId: 'a', passId: 'merge', apply: true });
    expect(result.conflicts).toEqual([]);
    const mentions = (id: string) =>
      db.prepare('SELECT memory_id FROM memory_entity_mentions WHERE entity_id = ? ORDER BY memory_id').all(id);
    const counted = (id: string) => db.prepare('SELECT status, mentions FROM entities WHERE id = ?').get(id);
    expect(mentions(dup)).toEqual([{ memory_id: note }]);
    expect(counted(dup)).toEqual({ status: 'active', mentions: 1 });
    expect(mentions(atlas)).toEqual(
      [{ memory_id: note }, { memory_id: later.id }].sort((a, b) => (a.memory_id < b.memory_id ? -1 : 1)),
    );
    expect(counted(atlas)).toEqual({ status: 'active', mentions: 2 });
  });

  it('recovers memories a pass archived and reopens the attention its hygiene resolved', async () => {
    const { db, engine, vendor, note } = await world();
    const flagged = await engine.dreaming.apply({
      agentId: 'a',
      passId: 'flagging',
      operations: [
        { operation: 'flag', payload: { kind: 'hygiene', subjectRef: `entity:${vendor}`, details: 'unused' } },
      ],
    });
    const attentionId = flagged.applied[0]?.targetId ?? '';
    const hygiene = await engine.dreaming.apply({
      agentId: 'a',
      passId: 'hygiene',
      operations: [
        {
          operation: 'archive_entity',
          payload: { entityId: vendor },
          evidence: [{ sourceRef: `attention:${attentionId}`, quote: '' }],
        },
        { operation: 'flag', payload: { kind: 'review_due', subjectRef: `memory:${note}`, details: 'outdated' } },
        { operation: 'archive_memory', payload: { memoryId: note } },
      ],
    });
    expect(hygiene.rejected).toEqual([]);
    expect(await engine.getMemory({ agentId: 'a', id: note })).toBeUndefined();
    expect((await engine.dreaming.attention({ agentId: 'a' })).items).toEqual([]);

    const preview = await engine.dreaming.revert({ agentId: 'a', passId: 'hygiene' });
    expect(preview.rows.map((r) => `${r.kind}:${r.action}`).sort()).toEqual([
      'attention:delete',
      'attention:restore',
      'entity:restore',
      'memory:recover_memory',
    ]);
    await engine.dreaming.revert({ agentId: 'a', passId: 'hygiene', apply: true });
    expect(await engine.getMemory({ agentId: 'a', id: note })).toMatchObject({
      content: 'Project Atlas launches in February, says the plan.',
    });
    expect(db.prepare('SELECT status FROM entities WHERE id = ?').get(vendor)).toEqual({ status: 'active' });
    expect((await engine.dreaming.attention({ agentId: 'a' })).items).toEqual([
      expect.objectContaining({ id: attentionId, resolvedAt: null, resolution: null }),
    ]);
    expect((await engine.history({ agentId: 'a', id: note })).map((h) => h.event)).toEqual([
      'created',
      'deleted',
      'recovered',
    ]);

    // A memory the pass created and archived itself is left forgotten: nothing to take back.
    const both = await engine.dreaming.apply({
      agentId: 'a',
      passId: 'both',
      operations: [
        {
          operation: 'remember_memory',
          payload: { content: 'The launch review happens on Fridays.', type: 'fact' },
          evidence: [{ sourceRef: 'transcript:chat-1', quote: 'The launch review is on Friday' }],
        },
      ],
    });
    const made = both.applied[0]?.targetId ?? '';
    await engine.dreaming.apply({
      agentId: 'a',
      passId: 'both',
      operations: [
        { operation: 'flag', payload: { kind: 'review_due', subjectRef: `memory:${made}`, details: 'duplicate' } },
        { operation: 'archive_memory', payload: { memoryId: made } },
      ],
    });
    const undo = await engine.dreaming.revert({ agentId: 'a', passId: 'both', apply: true });
    expect(undo.conflicts).toEqual([]);
    expect(undo.rows.filter((r) => r.kind === 'memory')).toEqual([]);
    expect(await engine.getMemory({ agentId: 'a', id: made })).toBeUndefined();
  });

  it('answers another agent’s pass, and an unknown one, as missing', async () => {
    const { engine } = await world();
    await expect(engine.dreaming.revert({ agentId: 'b', passId: 'setup' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(engine.dreaming.revert({ agentId: 'a', passId: 'nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const bad: unknown = { agentId: 'a', passId: 'setup', apply: 'yes' };
    await expect(engine.dreaming.revert(bad as Parameters<typeof engine.dreaming.revert>[0])).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});
