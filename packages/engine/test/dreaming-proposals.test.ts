import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createTestEngine } from './helpers.js';

async function world(dreaming: Record<string, unknown> = {}) {
  const db = new Database(':memory:');
  const { engine, clock } = await createTestEngine({
    database: { database: db },
    config: { dreaming: { shadowMode: true, ...dreaming }, hints: { enabled: false } },
  });
  const tea = await engine.remember({ agentId: 'a', content: 'Alice drinks green tea every morning before standup.' });
  const coffee = await engine.remember({ agentId: 'a', content: 'Bob switched to decaf coffee after the audit.' });
  return { db, engine, clock, tea: tea.id, coffee: coffee.id };
}

const remember = (memoryId: string, quote: string, content: string) => ({
  operation: 'remember_memory',
  payload: { content, type: 'preference' },
  evidence: [{ sourceRef: `memory:${memoryId}`, quote }],
  reason: 'a settled preference',
});

describe('dreaming.proposals', () => {
  it('lists shadow-mode writes, and accept applies one through the seam with provenance and an audit', async () => {
    const { db, engine, clock, tea } = await world();
    const result = await engine.dreaming.apply({
      agentId: 'a',
      passId: 'p1',
      operations: [remember(tea, 'Alice drinks green tea', 'Alice prefers green tea.')],
    });
    expect(result.applied).toEqual([]);
    const page = await engine.dreaming.proposals.list({ agentId: 'a' });
    expect(page.items).toEqual([
      expect.objectContaining({
        id: result.proposals[0]?.id,
        passId: 'p1',
        route: 'shadow',
        status: 'pending',
        reason: 'a settled preference',
        operation: expect.objectContaining({ operation: 'remember_memory' }),
        contradiction: null,
      }),
    ]);
    expect(page.nextCursor).toBeUndefined();
    // Nothing was written by the proposal itself.
    expect(db.prepare("SELECT count(*) AS n FROM memories WHERE content = 'Alice prefers green tea.'").get()).toEqual({
      n: 0,
    });
    // Another agent sees no proposals and cannot decide this one.
    expect((await engine.dreaming.proposals.list({ agentId: 'b' })).items).toEqual([]);
    const id = page.items[0]?.id ?? '';
    expect(await engine.dreaming.proposals.get({ agentId: 'b', proposalId: id })).toBeUndefined();
    await expect(engine.dreaming.proposals.accept({ agentId: 'b', proposalId: id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });

    clock.advance(1000);
    const accepted = await engine.dreaming.proposals.accept({
      agentId: 'a',
      proposalId: id,
      actor: { id: 'dana' },
      reason: 'checked with Alice',
    });
    expect(accepted).toMatchObject({ proposalId: id, operation: 'remember_memory', targetType: 'memory' });
    expect(await engine.getMemory({ agentId: 'a', id: accepted.targetId })).toMatchObject({
      content: 'Alice prefers green tea.',
    });
    expect(await engine.dreaming.proposals.get({ agentId: 'a', proposalId: id })).toMatchObject({
      status: 'accepted',
      decidedBy: 'dana',
      decisionReason: 'checked with Alice',
      decidedAt: clock.now(),
    });
    const provenance = await engine.dreaming.provenance({
      agentId: 'a',
      targetType: 'memory',
      targetId: accepted.targetId,
    });
    expect(provenance.items).toEqual([
      expect.objectContaining({
        passId: 'p1',
        actor: 'dana',
        operation: 'remember_memory',
        proposalId: id,
        evidence: [{ sourceRef: `memory:${tea}`, quote: 'Alice drinks green tea' }],
        changes: [expect.objectContaining({ kind: 'memory', before: null })],
      }),
    ]);
    const history = await engine.history({ agentId: 'a', id: accepted.targetId });
    expect(history[0]).toMatchObject({ event: 'created', changedBy: 'dana', actorType: 'operator' });
    // Decided once.
    await expect(engine.dreaming.proposals.accept({ agentId: 'a', proposalId: id })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(
      engine.dreaming.proposals.reject({ agentId: 'a', proposalId: id, reason: 'late' }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    // The accepted operation belongs to its pass: reverting p1 takes it back.
    const revert = await engine.dreaming.revert({ agentId: 'a', passId: 'p1' });
    expect(revert.operations.map((o) => o.operation)).toEqual(['remember_memory']);
  });

  it('refuses to accept a proposal whose evidence memory was forgotten since, and it stays pending until rejected', async () => {
    const { db, engine, coffee } = await world();
    const proposed = await engine.dreaming.apply({
      agentId: 'a',
      passId: 'p1',
      operations: [remember(coffee, 'Bob switched to decaf coffee', 'Bob drinks decaf.')],
    });
    const id = proposed.proposals[0]?.id ?? '';
    await engine.forget({ agentId: 'a', id: coffee, reason: 'wrong person' });
    const count = () => db.prepare('SELECT count(*) AS n FROM memories').get();
    const rows = count();
    await expect(engine.dreaming.proposals.accept({ agentId: 'a', proposalId: id })).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { id, reason: expect.stringMatching(/memory/) },
    });
    expect(count()).toEqual(rows);
    expect(await engine.dreaming.proposals.get({ agentId: 'a', proposalId: id })).toMatchObject({
      status: 'pending',
    });
    // A rejection needs a reason (checked at run time too, for untyped callers).
    const noReason: unknown = { agentId: 'a', proposalId: id };
    await expect(
      engine.dreaming.proposals.reject(noReason as Parameters<typeof engine.dreaming.proposals.reject>[0]),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await engine.dreaming.proposals.reject({
      agentId: 'a',
      proposalId: id,
      reason: 'its evidence is gone',
      actor: { id: 'dana' },
    });
    expect(await engine.dreaming.proposals.get({ agentId: 'a', proposalId: id })).toMatchObject({
      status: 'rejected',
      decidedBy: 'dana',
      decisionReason: 'its evidence is gone',
    });
    expect((await engine.dreaming.proposals.list({ agentId: 'a' })).items).toEqual([]);
    expect((await engine.dreaming.proposals.list({ agentId: 'a', status: 'rejected' })).items).toHaveLength(1);
  });

  it('lists contradictions with the claim they disagree with; rejecting resolves the contradiction', async () => {
    const { db, engine, tea } = await world({ shadowMode: false });
    const entity = await engine.dreaming.apply({
      agentId: 'a',
      operations: [
        {
          operation: 'create_entity',
          payload: { name: 'Alice' },
          evidence: [{ sourceRef: `memory:${tea}`, quote: 'Alice drinks green tea' }],
        },
      ],
    });
    const aspect = await engine.dreaming.apply({
      agentId: 'a',
      operations: [
        {
          operation: 'create_aspect',
          payload: { entityId: entity.applied[0]?.targetId, name: 'drinks' },
          evidence: [{ sourceRef: `memory:${tea}`, quote: 'drinks green tea' }],
        },
      ],
    });
    const aspectId = aspect.applied[0]?.targetId;
    const first = await engine.dreaming.apply({
      agentId: 'a',
      operations: [
        {
          operation: 'add_claim',
          payload: { aspectId, claimKey: 'morning', content: 'Green tea in the morning' },
          evidence: [{ sourceRef: `memory:${tea}`, quote: 'green tea every morning' }],
        },
      ],
    });
    const clash = await engine.dreaming.apply({
      agentId: 'a',
      passId: 'p2',
      operations: [
        {
          operation: 'add_claim',
          payload: { aspectId, claimKey: 'morning', content: 'Black tea in the morning' },
          evidence: [{ sourceRef: `memory:${tea}`, quote: 'tea every morning' }],
        },
        {
          operation: 'remember_memory',
          payload: { content: 'Alice has tea before standup.', type: 'fact' },
          risk: 'review_required',
          evidence: [{ sourceRef: `memory:${tea}`, quote: 'before standup' }],
        },
      ],
    });
    expect(clash.proposals.map((p) => p.route)).toEqual(['contradiction', 'review_required']);
    const contradictions = await engine.dreaming.proposals.list({ agentId: 'a', route: 'contradiction' });
    expect(contradictions.items).toEqual([
      expect.objectContaining({
        route: 'contradiction',
        contradiction: expect.objectContaining({ claimId: first.applied[0]?.targetId, status: 'open' }),
      }),
    ]);
    const id = contradictions.items[0]?.id ?? '';
    await engine.dreaming.proposals.reject({ agentId: 'a', proposalId: id, reason: 'she drinks green' });
    expect(await engine.dreaming.proposals.get({ agentId: 'a', proposalId: id })).toMatchObject({
      contradiction: expect.objectContaining({ status: 'resolved' }),
    });
    expect(db.prepare("SELECT count(*) AS n FROM ontology_contradictions WHERE status = 'open'").get()).toEqual({
      n: 0,
    });
    // Paging: one per page, oldest first, cursors carry on; a foreign cursor is refused.
    const all = await engine.dreaming.proposals.list({ agentId: 'a', status: 'all', limit: 1 });
    expect(all.items.map((p) => p.route)).toEqual(['contradiction']);
    const next = await engine.dreaming.proposals.list({
      agentId: 'a',
      status: 'all',
      limit: 1,
      cursor: all.nextCursor ?? '',
    });
    expect(next.items.map((p) => p.route)).toEqual(['review_required']);
    expect(next.nextCursor).toBeUndefined();
    await expect(engine.dreaming.proposals.list({ agentId: 'a', cursor: 'garbage' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('accepts a shadow-mode hygiene operation once the attention its batch flagged is open', async () => {
    const { db, engine, tea } = await world({ shadowMode: false });
    const created = await engine.dreaming.apply({
      agentId: 'a',
      operations: [
        {
          operation: 'create_entity',
          payload: { name: 'Green Tea' },
          evidence: [{ sourceRef: `memory:${tea}`, quote: 'drinks green tea' }],
        },
      ],
    });
    const entityId = created.applied[0]?.targetId ?? '';
    const shadow = await createTestEngine({
      database: { database: db },
      config: { dreaming: { shadowMode: true }, hints: { enabled: false } },
    });
    const proposed = await shadow.engine.dreaming.apply({
      agentId: 'a',
      passId: 'hygiene',
      operations: [
        { operation: 'flag', payload: { kind: 'hygiene', subjectRef: `entity:${entityId}`, details: 'unused' } },
        { operation: 'archive_entity', payload: { entityId } },
      ],
    });
    const [flag, archive] = proposed.proposals.map((p) => p.id) as [string, string];
    // Alone, the archive has no attention behind it.
    await expect(engine.dreaming.proposals.accept({ agentId: 'a', proposalId: archive })).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { reason: expect.stringMatching(/attention/) },
    });
    await engine.dreaming.proposals.accept({ agentId: 'a', proposalId: flag });
    await engine.dreaming.proposals.accept({ agentId: 'a', proposalId: archive });
    expect(db.prepare('SELECT status FROM entities WHERE id = ?').get(entityId)).toEqual({ status: 'archived' });
    expect((await engine.dreaming.attention({ agentId: 'a', state: 'resolved' })).items).toEqual([
      expect.objectContaining({ subjectRef: `entity:${entityId}`, resolution: 'resolved' }),
    ]);
  });

  it('refuses decisions while mutations are frozen', async () => {
    const { engine, tea } = await world();
    const proposed = await engine.dreaming.apply({
      agentId: 'a',
      operations: [remember(tea, 'Alice drinks green tea', 'Alice likes tea.')],
    });
    const frozen = await createTestEngine({ config: { dreaming: { mutationsFrozen: true } } });
    await expect(
      frozen.engine.dreaming.proposals.accept({ agentId: 'a', proposalId: proposed.proposals[0]?.id ?? 'x' }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
  });
});
