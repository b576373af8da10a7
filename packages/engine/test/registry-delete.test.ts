import { isMemoryError } from '@memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createTestEngine } from './helpers.js';

async function setup() {
  const db = new Database(':memory:');
  const { engine, clock } = await createTestEngine({ database: { database: db } });
  return { engine, clock, db };
}

const ids = (objects: ReadonlyArray<{ kind: string } & ({ id: string } | { type: string; refId: string })>) =>
  objects.map((o) => ('id' in o ? `${o.kind}:${o.id}` : `host:${o.type}:${o.refId}`)).sort();

describe('engine.registry: cascade delete and merge', () => {
  it('previews exactly what delete then does: exclusive objects removed, shared ones unlinked, pinned and host objects kept', async () => {
    const { engine, db } = await setup();
    const acme = await engine.registry.create({ agentId: 'a', name: 'Acme renewal' });
    const finance = await engine.registry.create({ agentId: 'a', name: 'Personal Finance' });
    const only = await engine.remember({ agentId: 'a', content: 'Acme wants a 3-year term' });
    const shared = await engine.remember({ agentId: 'a', content: 'Acme invoice paid from the business account' });
    const pinned = await engine.remember({ agentId: 'a', content: 'Acme contract number is 7781', pinned: true });
    const doc = await engine.documents.add({
      agentId: 'a',
      content: 'Acme renewal terms: three years.',
      title: 'Terms',
    });
    await engine.runDue();
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 'call-1',
      turns: [{ role: 'user', content: 'Call with Acme procurement', id: 't1' }],
    });
    const link = (id: string, object: Parameters<typeof engine.registry.link>[0]['object']) =>
      engine.registry.link({ agentId: 'a', id, object });
    await link(acme.id, { kind: 'memory', id: only.id });
    await link(acme.id, { kind: 'memory', id: shared.id });
    await link(finance.id, { kind: 'memory', id: shared.id });
    await link(acme.id, { kind: 'memory', id: pinned.id });
    await link(acme.id, { kind: 'document', id: doc.id });
    await link(acme.id, { kind: 'transcript', id: 'call-1' });
    await link(acme.id, { kind: 'host', type: 'project', refId: '7' });

    const preview = await engine.registry.deletePreview({ agentId: 'a', id: acme.id });
    expect(ids(preview.remove)).toEqual(
      ids([
        { kind: 'memory', id: only.id },
        { kind: 'document', id: doc.id },
        { kind: 'transcript', id: 'call-1' },
      ]),
    );
    expect(ids(preview.unlink)).toEqual([`memory:${shared.id}`]);
    expect(preview.keep).toEqual([
      { object: { kind: 'host', type: 'project', refId: '7' }, reason: 'host-owned' },
      { object: { kind: 'memory', id: pinned.id }, reason: 'pinned' },
    ]);
    expect(preview.category).toMatchObject({ name: 'Acme renewal', objectCount: 6 });
    // The preview changed nothing.
    expect((await engine.registry.get({ agentId: 'a', id: acme.id })).objectCount).toBe(6);
    expect(await engine.getMemory({ agentId: 'a', id: only.id })).toBeDefined();

    const result = await engine.registry.delete({ agentId: 'a', id: acme.id, reason: 'deal closed' });
    expect({ ...result, remove: ids(result.remove), unlink: ids(result.unlink) }).toEqual({
      ...preview,
      remove: ids(preview.remove),
      unlink: ids(preview.unlink),
    });
    // Memories are forgotten with history, not hard-deleted: recoverable.
    expect(await engine.getMemory({ agentId: 'a', id: only.id })).toBeUndefined();
    const history = await engine.history({ agentId: 'a', id: only.id });
    expect(history.at(-1)).toMatchObject({ event: 'deleted', reason: 'deal closed' });
    await engine.recover({ agentId: 'a', id: only.id });
    // Shared and pinned memories stay; the shared one keeps its other category.
    expect(await engine.getMemory({ agentId: 'a', id: shared.id })).toBeDefined();
    expect(await engine.getMemory({ agentId: 'a', id: pinned.id })).toMatchObject({ pinned: true, deleted: false });
    expect(
      (await engine.registry.categoriesOf({ agentId: 'a', object: { kind: 'memory', id: shared.id } })).map(
        (c) => c.id,
      ),
    ).toEqual([finance.id]);
    expect(await engine.registry.categoriesOf({ agentId: 'a', object: { kind: 'memory', id: pinned.id } })).toEqual([]);
    // The document is deleted with its chunks; the transcript is gone.
    expect(await engine.documents.get({ agentId: 'a', id: doc.id })).toMatchObject({ status: 'deleted' });
    expect(await engine.transcripts.get({ agentId: 'a', sessionKey: 'call-1' })).toBeUndefined();
    // The category and every link of it are gone; its trail stays.
    expect(isMemoryError(await engine.registry.get({ agentId: 'a', id: acme.id }).catch((e) => e), 'NOT_FOUND')).toBe(
      true,
    );
    expect(db.prepare('SELECT count(*) AS n FROM registry_category_links WHERE category_id = ?').get(acme.id)).toEqual({
      n: 0,
    });
    const trail = await engine.registry.history({ agentId: 'a', id: acme.id });
    expect(trail.at(-1)).toMatchObject({
      action: 'deleted',
      reason: 'deal closed',
      after: { removed: 3, unlinked: 1, kept: 2 },
    });
    await engine.close();
  });

  it('forgets pinned memories too with force, and only unlinks an object that gained another category after the preview', async () => {
    const { engine } = await setup();
    const c = await engine.registry.create({ agentId: 'a', name: 'Health & Fitness' });
    const other = await engine.registry.create({ agentId: 'a', name: 'Family' });
    const pinned = await engine.remember({ agentId: 'a', content: 'Allergic to penicillin', pinned: true });
    const later = await engine.remember({ agentId: 'a', content: 'Dad runs marathons' });
    await engine.registry.link({ agentId: 'a', id: c.id, object: { kind: 'memory', id: pinned.id } });
    await engine.registry.link({ agentId: 'a', id: c.id, object: { kind: 'memory', id: later.id } });
    const preview = await engine.registry.deletePreview({ agentId: 'a', id: c.id, force: true });
    expect(ids(preview.remove)).toEqual(
      ids([
        { kind: 'memory', id: pinned.id },
        { kind: 'memory', id: later.id },
      ]),
    );
    await engine.registry.link({ agentId: 'a', id: other.id, object: { kind: 'memory', id: later.id } });
    const result = await engine.registry.delete({ agentId: 'a', id: c.id, force: true });
    expect(ids(result.remove)).toEqual([`memory:${pinned.id}`]);
    expect(ids(result.unlink)).toEqual([`memory:${later.id}`]);
    expect(await engine.getMemory({ agentId: 'a', id: pinned.id })).toBeUndefined();
    expect(await engine.getMemory({ agentId: 'a', id: later.id })).toBeDefined();
    await engine.close();
  });

  it('removes every object of a category larger than one removal batch (35 memories, batches of 10)', async () => {
    const { engine } = await setup();
    const c = await engine.registry.create({ agentId: 'a', name: 'Reading list' });
    const made = await engine.rememberMany({
      agentId: 'a',
      memories: Array.from({ length: 35 }, (_, i) => ({ content: `Book number ${i} recommended by a friend` })),
    });
    for (const m of made) await engine.registry.link({ agentId: 'a', id: c.id, object: { kind: 'memory', id: m.id } });
    const result = await engine.registry.delete({ agentId: 'a', id: c.id });
    expect(result.remove).toHaveLength(35);
    const page = await engine.list({ agentId: 'a' });
    expect(page.memories).toHaveLength(0);
    await engine.close();
  });

  it('archives notes linked only to the deleted category (audited in note_events) and only unlinks shared ones', async () => {
    const { engine } = await setup();
    const acme = await engine.registry.create({ agentId: 'a', name: 'Acme renewal' });
    const family = await engine.registry.create({ agentId: 'a', name: 'Family' });
    const only = await engine.notes.create({ agentId: 'a', title: 'Acme follow-up', content: 'Send the signed terms' });
    const shared = await engine.notes.create({
      agentId: 'a',
      title: 'Trip',
      content: 'Acme visit doubles as family trip',
    });
    const done = await engine.notes.create({ agentId: 'a', title: 'Old', content: 'Archived already' });
    await engine.notes.archive({ agentId: 'a', id: done.id });
    for (const [id, note] of [
      [acme.id, only.id],
      [acme.id, shared.id],
      [family.id, shared.id],
    ] as const)
      await engine.registry.link({ agentId: 'a', id, object: { kind: 'note', id: note } });
    // An archived note cannot be filed (like a forgotten memory).
    await expect(
      engine.registry.link({ agentId: 'a', id: acme.id, object: { kind: 'note', id: done.id } }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const detail = await engine.registry.get({ agentId: 'a', id: acme.id, kind: 'note' });
    expect(detail.objects.map((o) => [o.state, o.preview])).toEqual([
      ['live', 'Acme follow-up'],
      ['live', 'Trip'],
    ]);
    const preview = await engine.registry.deletePreview({ agentId: 'a', id: acme.id });
    expect(ids(preview.remove)).toEqual([`note:${only.id}`]);
    expect(ids(preview.unlink)).toEqual([`note:${shared.id}`]);
    const result = await engine.registry.delete({ agentId: 'a', id: acme.id, reason: 'deal closed' });
    expect(ids(result.remove)).toEqual([`note:${only.id}`]);
    expect(await engine.notes.get({ agentId: 'a', id: only.id })).toMatchObject({ status: 'archived' });
    expect((await engine.notes.history({ agentId: 'a', id: only.id })).at(-1)).toMatchObject({
      event: 'archived',
      reason: 'deal closed',
    });
    expect(await engine.notes.get({ agentId: 'a', id: shared.id })).toMatchObject({ status: 'active' });
    expect(
      (await engine.registry.categoriesOf({ agentId: 'a', object: { kind: 'note', id: shared.id } })).map(
        (c) => c.name,
      ),
    ).toEqual(['Family']);
    await engine.close();
  });

  it('merges: links and aliases move to the survivor, shared objects keep one link, the merged category is gone, both audited', async () => {
    const { engine, db } = await setup();
    const money = await engine.registry.create({ agentId: 'a', name: 'Money', aliases: ['Cash'] });
    const finance = await engine.registry.create({ agentId: 'a', name: 'Personal Finance', aliases: ['Budget'] });
    const m1 = await engine.remember({ agentId: 'a', content: 'Savings goal is 10k this year' });
    const m2 = await engine.remember({ agentId: 'a', content: 'Credit card due on the 5th' });
    const m3 = await engine.remember({ agentId: 'a', content: 'Mortgage rate fixed until 2030' });
    await engine.registry.link({ agentId: 'a', id: money.id, object: { kind: 'memory', id: m1.id } });
    await engine.registry.link({ agentId: 'a', id: money.id, object: { kind: 'memory', id: m2.id } });
    await engine.registry.link({ agentId: 'a', id: finance.id, object: { kind: 'memory', id: m2.id } });
    await engine.registry.link({ agentId: 'a', id: finance.id, object: { kind: 'memory', id: m3.id } });
    await engine.registry.link({ agentId: 'a', id: money.id, object: { kind: 'host', type: 'account', refId: 'chk' } });

    const merged = await engine.registry.merge({
      agentId: 'a',
      id: money.id,
      intoId: finance.id,
      reason: 'same thing',
    });
    expect(merged).toMatchObject({ moved: 2, alreadyLinked: 1 });
    expect(merged.category).toMatchObject({
      id: finance.id,
      name: 'Personal Finance',
      aliases: ['Budget', 'Money', 'Cash'],
    });
    const detail = await engine.registry.get({ agentId: 'a', id: finance.id });
    expect(detail.objectCount).toBe(4);
    expect(ids(detail.objects)).toEqual(
      ids([
        { kind: 'memory', id: m1.id },
        { kind: 'memory', id: m2.id },
        { kind: 'memory', id: m3.id },
        { kind: 'host', type: 'account', refId: 'chk' },
      ]),
    );
    expect(isMemoryError(await engine.registry.get({ agentId: 'a', id: money.id }).catch((e) => e), 'NOT_FOUND')).toBe(
      true,
    );
    expect(db.prepare('SELECT count(*) AS n FROM registry_category_links WHERE category_id = ?').get(money.id)).toEqual(
      {
        n: 0,
      },
    );
    // The merged name now resolves to the survivor: creating it again is a conflict.
    expect(
      isMemoryError(await engine.registry.create({ agentId: 'a', name: 'money' }).catch((e) => e), 'CONFLICT'),
    ).toBe(true);
    expect((await engine.registry.history({ agentId: 'a', id: finance.id })).at(-1)).toMatchObject({
      action: 'merged',
      reason: 'same thing',
      after: { absorbed: { id: money.id, name: 'Money' }, moved: 2, alreadyLinked: 1 },
    });
    expect((await engine.registry.history({ agentId: 'a', id: money.id })).at(-1)).toMatchObject({
      action: 'merged_into',
      after: { intoId: finance.id },
    });
    // Memories are untouched by a merge.
    expect((await engine.list({ agentId: 'a' })).memories).toHaveLength(3);
    const self = await engine.registry.merge({ agentId: 'a', id: finance.id, intoId: finance.id }).catch((e) => e);
    expect(isMemoryError(self, 'INVALID_INPUT')).toBe(true);
    await engine.close();
  });
});
