import { isMemoryError } from '@memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createTestEngine, T0 } from './helpers.js';

async function setup(config: Record<string, unknown> = {}) {
  const db = new Database(':memory:');
  const { engine, clock } = await createTestEngine({ database: { database: db }, config });
  return { engine, clock, db };
}

/** The error a promise rejects with (the test fails if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('engine.registry: categories', () => {
  it('creates, lists with object counts, gets with linked objects, updates, and audits each change', async () => {
    const { engine, clock } = await setup();
    const finance = await engine.registry.create({
      agentId: 'a',
      name: 'Personal Finance',
      description: 'money, budgets, taxes',
      aliases: ['Money'],
      actor: { id: 'ops', type: 'operator' },
      reason: 'set up',
    });
    expect(finance).toMatchObject({
      agentId: 'a',
      name: 'Personal Finance',
      aliases: ['Money'],
      createdBy: 'operator',
      createdAt: T0,
    });
    const health = await engine.registry.create({ agentId: 'a', name: 'Health & Fitness' });
    const m1 = await engine.remember({ agentId: 'a', content: 'Paid the quarterly tax estimate' });
    const m2 = await engine.remember({ agentId: 'a', content: 'Gym membership renews in March for 40 euros' });
    await engine.registry.link({ agentId: 'a', id: finance.id, object: { kind: 'memory', id: m1.id } });
    await engine.registry.link({ agentId: 'a', id: finance.id, object: { kind: 'memory', id: m2.id } });
    await engine.registry.link({ agentId: 'a', id: health.id, object: { kind: 'memory', id: m2.id } });
    await engine.registry.link({
      agentId: 'a',
      id: finance.id,
      object: { kind: 'host', type: 'contact', refId: '42' },
    });

    const list = await engine.registry.list({ agentId: 'a' });
    expect(list.map((c) => [c.name, c.objectCount])).toEqual([
      ['Health & Fitness', 1],
      ['Personal Finance', 3],
    ]);

    const detail = await engine.registry.get({ agentId: 'a', id: finance.id });
    expect(detail.counts).toEqual({ memory: 2, note: 0, document: 0, transcript: 0, host: 1 });
    expect(detail.objectCount).toBe(3);
    // Oldest link first; links of one instant by kind, then reference.
    expect(detail.objects).toEqual([
      { kind: 'host', type: 'contact', refId: '42', state: 'host', preview: null, linkedAt: T0, linkedBy: 'agent' },
      {
        kind: 'memory',
        id: m1.id,
        state: 'live',
        preview: 'Paid the quarterly tax estimate',
        linkedAt: T0,
        linkedBy: 'agent',
      },
      expect.objectContaining({ kind: 'memory', id: m2.id, state: 'live' }),
    ]);
    const onlyHost = await engine.registry.get({ agentId: 'a', id: finance.id, kind: 'host' });
    expect(onlyHost.objects.map((o) => o.kind)).toEqual(['host']);

    clock.advance(1000);
    const renamed = await engine.registry.update({
      agentId: 'a',
      id: finance.id,
      name: 'Finances',
      description: null,
      reason: 'shorter',
    });
    expect(renamed).toMatchObject({ name: 'Finances', description: null, aliases: ['Money'], updatedAt: T0 + 1000 });
    const history = await engine.registry.history({ agentId: 'a', id: finance.id });
    expect(history.map((e) => e.action)).toEqual(['created', 'linked', 'linked', 'linked', 'updated']);
    expect(history[0]).toMatchObject({ actor: { id: 'ops', type: 'operator' }, reason: 'set up', before: null });
    expect(history[4]).toMatchObject({
      reason: 'shorter',
      before: { name: 'Personal Finance', description: 'money, budgets, taxes' },
      after: { name: 'Finances', description: null },
    });
    await engine.close();
  });

  it('answers both directions: objects by category and categories by object', async () => {
    const { engine } = await setup();
    const work = await engine.registry.create({ agentId: 'a', name: 'Acme renewal' });
    const family = await engine.registry.create({ agentId: 'a', name: 'Family' });
    const m = await engine.remember({ agentId: 'a', content: 'Dinner with the Acme buyer and my sister' });
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 's1',
      turns: [{ role: 'user', content: 'Talk about the renewal terms', id: 't1' }],
    });
    for (const id of [work.id, family.id])
      await engine.registry.link({ agentId: 'a', id, object: { kind: 'memory', id: m.id } });
    await engine.registry.link({ agentId: 'a', id: work.id, object: { kind: 'transcript', id: 's1' } });

    const byObject = await engine.registry.categoriesOf({ agentId: 'a', object: { kind: 'memory', id: m.id } });
    expect(byObject.map((c) => c.name)).toEqual(['Acme renewal', 'Family']);
    const objects = await engine.registry.objects({ agentId: 'a', id: work.id });
    expect(objects.map((o) => [o.kind, 'id' in o ? o.id : ''])).toEqual([
      ['memory', m.id],
      ['transcript', 's1'],
    ]);
    expect(await engine.registry.objects({ agentId: 'a', id: work.id, kind: 'transcript' })).toHaveLength(1);
    // Unlinking is one direction's change seen from both.
    expect(await engine.registry.unlink({ agentId: 'a', id: family.id, object: { kind: 'memory', id: m.id } })).toEqual(
      { unlinked: true },
    );
    expect(await engine.registry.unlink({ agentId: 'a', id: family.id, object: { kind: 'memory', id: m.id } })).toEqual(
      { unlinked: false },
    );
    const after = await engine.registry.categoriesOf({ agentId: 'a', object: { kind: 'memory', id: m.id } });
    expect(after.map((c) => c.name)).toEqual(['Acme renewal']);
    // Linking twice is one link.
    expect(await engine.registry.link({ agentId: 'a', id: work.id, object: { kind: 'memory', id: m.id } })).toEqual({
      linked: false,
    });
    await engine.close();
  });

  it('refuses duplicate names by normalized form, objects that do not exist, and more than maxPerObject categories', async () => {
    const { engine } = await setup({ registry: { maxPerObject: 2 } });
    const health = await engine.registry.create({ agentId: 'a', name: 'Health & Fitness', aliases: ['Wellbeing'] });
    for (const name of ['health and fitness', '  HEALTH & FITNESS. ', 'wellbeing']) {
      const error = await rejection(engine.registry.create({ agentId: 'a', name }));
      expect(isMemoryError(error, 'CONFLICT')).toBe(true);
    }
    // Another agent may use the same name: names are unique per agent.
    await expect(engine.registry.create({ agentId: 'b', name: 'Health & Fitness' })).resolves.toMatchObject({
      agentId: 'b',
    });
    const other = await engine.registry.create({ agentId: 'a', name: 'Travel' });
    expect(
      isMemoryError(
        await rejection(engine.registry.update({ agentId: 'a', id: other.id, name: 'Wellbeing' })),
        'CONFLICT',
      ),
    ).toBe(true);
    // An update may keep its own name and aliases.
    await expect(
      engine.registry.update({ agentId: 'a', id: health.id, name: 'Health & Fitness', aliases: ['Wellbeing', 'Gym'] }),
    ).resolves.toMatchObject({ aliases: ['Wellbeing', 'Gym'] });

    const missing = await rejection(
      engine.registry.link({
        agentId: 'a',
        id: health.id,
        object: { kind: 'memory', id: '01900000-0000-7000-8000-000000000000' },
      }),
    );
    expect(isMemoryError(missing, 'NOT_FOUND')).toBe(true);
    const noSession = await rejection(
      engine.registry.link({ agentId: 'a', id: health.id, object: { kind: 'transcript', id: 'nope' } }),
    );
    expect(isMemoryError(noSession, 'NOT_FOUND')).toBe(true);

    const third = await engine.registry.create({ agentId: 'a', name: 'Family' });
    const m = await engine.remember({ agentId: 'a', content: 'Morning run with my brother' });
    const object = { kind: 'memory' as const, id: m.id };
    await engine.registry.link({ agentId: 'a', id: health.id, object });
    await engine.registry.link({ agentId: 'a', id: other.id, object });
    const full = await rejection(engine.registry.link({ agentId: 'a', id: third.id, object }));
    expect(isMemoryError(full, 'CONFLICT')).toBe(true);
    expect((await engine.registry.categoriesOf({ agentId: 'a', object })).map((c) => c.name)).toEqual([
      'Health & Fitness',
      'Travel',
    ]);

    for (const bad of [
      { agentId: 'a', name: '' },
      { agentId: 'a', name: 'x'.repeat(61) },
      { agentId: 'a', name: '!!!' },
      { agentId: 'a', name: 'Ok', extra: true },
    ]) {
      expect(isMemoryError(await rejection(engine.registry.create(bad as never)), 'INVALID_INPUT')).toBe(true);
    }
    expect(
      isMemoryError(await rejection(engine.registry.update({ agentId: 'a', id: health.id })), 'INVALID_INPUT'),
    ).toBe(true);
    await engine.close();
  });

  it("keeps agents apart: another agent's category is NOT_FOUND on every call, and its objects cannot be linked", async () => {
    const { engine, db } = await setup();
    const mine = await engine.registry.create({ agentId: 'a', name: 'Personal Finance' });
    const theirs = await engine.registry.create({ agentId: 'b', name: 'Garden' });
    const theirMemory = await engine.remember({ agentId: 'b', content: 'Tomatoes need staking in June' });
    const myMemory = await engine.remember({ agentId: 'a', content: 'Budget review every month' });
    await engine.registry.link({ agentId: 'a', id: mine.id, object: { kind: 'memory', id: myMemory.id } });
    const before = db.prepare('SELECT count(*) AS n FROM registry_events').get();

    const foreign = { agentId: 'a', id: theirs.id };
    const object = { kind: 'memory' as const, id: myMemory.id };
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['get', () => engine.registry.get(foreign)],
      ['objects', () => engine.registry.objects(foreign)],
      ['update', () => engine.registry.update({ ...foreign, name: 'Stolen' })],
      ['link', () => engine.registry.link({ ...foreign, object })],
      ['unlink', () => engine.registry.unlink({ ...foreign, object })],
      ['deletePreview', () => engine.registry.deletePreview(foreign)],
      ['delete', () => engine.registry.delete(foreign)],
      ['merge', () => engine.registry.merge({ ...foreign, intoId: mine.id })],
      ['merge into', () => engine.registry.merge({ agentId: 'a', id: mine.id, intoId: theirs.id })],
      ['history', () => engine.registry.history(foreign)],
    ];
    // A session key of another agent is answered like one that exists nowhere.
    await engine.transcripts.append({
      agentId: 'b',
      sessionKey: 'chat-42',
      turns: [{ role: 'user', content: 'secret' }],
    });
    const crossSession = await rejection(
      engine.registry.link({ agentId: 'a', id: mine.id, object: { kind: 'transcript', id: 'chat-42' } }),
    );
    const noSession = await rejection(
      engine.registry.link({ agentId: 'a', id: mine.id, object: { kind: 'transcript', id: 'chat-43' } }),
    );
    expect((crossSession as Error).message.replace('chat-42', 'X')).toBe(
      (noSession as Error).message.replace('chat-43', 'X'),
    );
    const missingId = '01900000-0000-7000-8000-00000000abcd';
    for (const [name, run] of calls) {
      const error = await rejection(run());
      expect(isMemoryError(error, 'NOT_FOUND'), name).toBe(true);
      // Indistinguishable from a missing category: the same code, the same message shape.
      expect((error as Error).message).toBe(`no category ${theirs.id} in this scope`);
    }
    const missing = await rejection(engine.registry.get({ agentId: 'a', id: missingId }));
    expect((missing as Error).message).toBe(`no category ${missingId} in this scope`);
    // B's memory cannot be filed under A's category.
    const cross = await rejection(
      engine.registry.link({ agentId: 'a', id: mine.id, object: { kind: 'memory', id: theirMemory.id } }),
    );
    expect(isMemoryError(cross, 'NOT_FOUND')).toBe(true);
    // Nothing of B's leaked into A's reads, and nothing was written.
    expect((await engine.registry.list({ agentId: 'a' })).map((c) => c.name)).toEqual(['Personal Finance']);
    expect(await engine.registry.categoriesOf({ agentId: 'b', object })).toEqual([]);
    expect(db.prepare('SELECT count(*) AS n FROM registry_events').get()).toEqual(before);
    expect((await engine.registry.get({ agentId: 'b', id: theirs.id })).name).toBe('Garden');
    await engine.close();
  });

  it('keeps a forgotten memory linked (recover restores it whole) and drops links of purged rows', async () => {
    const { engine, db } = await setup();
    const c = await engine.registry.create({ agentId: 'a', name: 'Personal Finance' });
    const m = await engine.remember({ agentId: 'a', content: 'Tax return filed in April' });
    await engine.registry.link({ agentId: 'a', id: c.id, object: { kind: 'memory', id: m.id } });
    await engine.forget({ agentId: 'a', id: m.id, reason: 'test' });
    expect((await engine.registry.get({ agentId: 'a', id: c.id })).objects[0]).toMatchObject({ state: 'forgotten' });
    // A hard delete (purge, erase) takes the link with the row.
    db.prepare('DELETE FROM memories WHERE id = ?').run(m.id);
    expect((await engine.registry.get({ agentId: 'a', id: c.id })).objectCount).toBe(0);
    await engine.close();
  });

  it('erase removes the scope from the registry tables too', async () => {
    const { engine, db } = await setup();
    const c = await engine.registry.create({ agentId: 'gone', name: 'Personal Finance' });
    const m = await engine.remember({ agentId: 'gone', content: 'Tax return filed in April' });
    await engine.registry.link({ agentId: 'gone', id: c.id, object: { kind: 'memory', id: m.id } });
    await engine.registry.create({ agentId: 'kept', name: 'Personal Finance' });
    const result = await engine.erase({ agentId: 'gone' });
    expect(result.counts).toMatchObject({ registry_categories: 1, registry_category_links: 1, registry_events: 2 });
    for (const table of ['registry_categories', 'registry_category_links', 'registry_events'])
      expect(db.prepare(`SELECT count(*) AS n FROM ${table} WHERE agent_id = 'gone'`).get()).toEqual({ n: 0 });
    expect(await engine.registry.list({ agentId: 'kept' })).toHaveLength(1);
    await engine.close();
  });
});
