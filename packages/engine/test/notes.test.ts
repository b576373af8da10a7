import { describe, expect, it } from 'vitest';
import { isMemoryError, type MemoryEngine } from '../src/index.js';
import { createTestEngine, T0 } from './helpers.js';

const iso = (ms: number) => ms;

async function expectCode(promise: Promise<unknown>, code: string, message?: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isMemoryError(error, code as never), `expected ${code}, got ${String(error)}`).toBe(true);
  if (message) expect((error as Error).message).toMatch(message);
}

async function note(engine: MemoryEngine, agentId = 'a', extra: Record<string, unknown> = {}) {
  return engine.notes.create({ agentId, title: 'Call Alice', content: 'Follow up on the renewal quote', ...extra });
}

describe('engine.notes lifecycle', () => {
  it('creates an active note with tags and links, and a created event', async () => {
    const { engine } = await createTestEngine();
    const n = await note(engine, 'a', {
      tags: ['follow-up', 'follow-up', 'sales'],
      linkedEntities: [{ type: 'contact', refId: '42', label: 'Alice Chen' }],
      reason: 'meeting outcome',
    });
    expect(n).toEqual({
      id: n.id,
      agentId: 'a',
      title: 'Call Alice',
      content: 'Follow up on the renewal quote',
      tags: ['follow-up', 'sales'],
      status: 'active',
      linkedEntities: [{ type: 'contact', refId: '42', label: 'Alice Chen' }],
      createdAt: iso(T0),
      updatedAt: iso(T0),
      resolvedAt: null,
      archivedAt: null,
    });
    expect(await engine.notes.get({ agentId: 'a', id: n.id })).toEqual(n);
    const history = await engine.notes.history({ agentId: 'a', id: n.id });
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      noteId: n.id,
      event: 'created',
      actor: 'a',
      actorType: 'agent',
      reason: 'meeting outcome',
      before: null,
      after: n,
      at: iso(T0),
    });
    await engine.close();
  });

  it('update changes fields, records before and after, and a no-op update records nothing', async () => {
    const { engine, clock } = await createTestEngine();
    const n = await note(engine);
    clock.advance(1000);
    const updated = await engine.notes.update({
      agentId: 'a',
      id: n.id,
      content: 'Quote sent; wait for reply',
      tags: ['waiting'],
      linkedEntities: [{ type: 'project', refId: '7' }],
      actor: { id: 'steward', type: 'engine' },
      reason: 'quote sent',
    });
    expect(updated).toMatchObject({ title: 'Call Alice', content: 'Quote sent; wait for reply', tags: ['waiting'] });
    expect(updated.linkedEntities).toEqual([{ type: 'project', refId: '7' }]);
    expect(updated.updatedAt).toBe(iso(T0 + 1000));
    expect(updated.createdAt).toBe(iso(T0));
    const same = await engine.notes.update({ agentId: 'a', id: n.id, content: 'Quote sent; wait for reply' });
    expect(same).toEqual(updated);
    const history = await engine.notes.history({ agentId: 'a', id: n.id });
    expect(history.map((h) => h.event)).toEqual(['created', 'updated']);
    expect(history[1]).toMatchObject({
      actor: 'steward',
      actorType: 'engine',
      reason: 'quote sent',
      before: n,
      after: updated,
    });
    // The link index follows linkedEntities: the old reference no longer finds it.
    expect((await engine.notes.list({ agentId: 'a', entity: { type: 'project', refId: '7' } })).items).toHaveLength(1);
    expect((await engine.notes.list({ agentId: 'a', entity: { type: 'contact', refId: '42' } })).items).toHaveLength(0);
    await engine.close();
  });

  it('active → resolved → archived, each audited with its time', async () => {
    const { engine, clock } = await createTestEngine();
    const n = await note(engine);
    clock.advance(10);
    const resolved = await engine.notes.resolve({ agentId: 'a', id: n.id, reason: 'done' });
    expect(resolved).toMatchObject({ status: 'resolved', resolvedAt: iso(T0 + 10), archivedAt: null });
    // A resolved note may still be corrected.
    clock.advance(10);
    const corrected = await engine.notes.update({ agentId: 'a', id: n.id, title: 'Called Alice' });
    expect(corrected).toMatchObject({ status: 'resolved', title: 'Called Alice' });
    clock.advance(10);
    const archived = await engine.notes.archive({ agentId: 'a', id: n.id, actor: 'operator-1' });
    expect(archived).toMatchObject({ status: 'archived', resolvedAt: iso(T0 + 10), archivedAt: iso(T0 + 30) });
    const history = await engine.notes.history({ agentId: 'a', id: n.id });
    expect(history.map((h) => [h.event, h.before?.status ?? null, h.after?.status])).toEqual([
      ['created', null, 'active'],
      ['resolved', 'active', 'resolved'],
      ['updated', 'resolved', 'resolved'],
      ['archived', 'resolved', 'archived'],
    ]);
    expect(history[3]).toMatchObject({ actor: 'operator-1', actorType: 'agent' });
    await engine.close();
  });

  it('active → archived directly', async () => {
    const { engine } = await createTestEngine();
    const n = await note(engine);
    expect(await engine.notes.archive({ agentId: 'a', id: n.id })).toMatchObject({
      status: 'archived',
      resolvedAt: null,
    });
    await engine.close();
  });

  it('refuses invalid transitions with CONFLICT naming the status, and writes nothing', async () => {
    const { engine } = await createTestEngine();
    const a = await note(engine);
    await engine.notes.resolve({ agentId: 'a', id: a.id });
    await expectCode(engine.notes.resolve({ agentId: 'a', id: a.id }), 'CONFLICT', /it is resolved/);
    await engine.notes.archive({ agentId: 'a', id: a.id });
    await expectCode(engine.notes.resolve({ agentId: 'a', id: a.id }), 'CONFLICT', /it is archived/);
    await expectCode(engine.notes.archive({ agentId: 'a', id: a.id }), 'CONFLICT', /it is archived/);
    await expectCode(engine.notes.update({ agentId: 'a', id: a.id, content: 'more' }), 'CONFLICT', /it is archived/);
    expect((await engine.notes.history({ agentId: 'a', id: a.id })).map((h) => h.event)).toEqual([
      'created',
      'resolved',
      'archived',
    ]);
    expect(await engine.notes.get({ agentId: 'a', id: a.id })).toMatchObject({ status: 'archived' });
    await engine.close();
  });

  it('rejects bad input with INVALID_INPUT', async () => {
    const { engine } = await createTestEngine();
    const n = await note(engine);
    const bad: Array<[string, () => Promise<unknown>]> = [
      ['empty title', () => engine.notes.create({ agentId: 'a', title: '', content: 'x' })],
      ['blank content', () => engine.notes.create({ agentId: 'a', title: 't', content: '   ' })],
      ['no agent', () => engine.notes.create({ title: 't', content: 'c' } as never)],
      [
        'unknown field',
        () => engine.notes.create({ agentId: 'a', title: 't', content: 'c', status: 'resolved' } as never),
      ],
      [
        'bad link',
        () =>
          engine.notes.create({
            agentId: 'a',
            title: 't',
            content: 'c',
            linkedEntities: [{ type: 'contact' }] as never,
          }),
      ],
      ['tags not strings', () => engine.notes.create({ agentId: 'a', title: 't', content: 'c', tags: [1] as never })],
      ['empty update', () => engine.notes.update({ agentId: 'a', id: n.id })],
      ['malformed id', () => engine.notes.get({ agentId: 'a', id: '' })],
      ['bad status', () => engine.notes.list({ agentId: 'a', status: 'open' as never })],
      ['bad cursor', () => engine.notes.list({ agentId: 'a', cursor: 'nonsense' })],
      ['bad limit', () => engine.notes.search({ agentId: 'a', query: 'x', limit: 0 })],
      ['bad actor', () => engine.notes.resolve({ agentId: 'a', id: n.id, actor: { id: 'x', type: 'robot' } as never })],
    ];
    for (const [what, run] of bad) {
      const error = await run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isMemoryError(error, 'INVALID_INPUT'), what).toBe(true);
    }
    expect((await engine.notes.list({ agentId: 'a' })).items).toHaveLength(1);
    await engine.close();
  });

  it("another agent's note is NOT_FOUND on every method, like a missing one", async () => {
    const { engine } = await createTestEngine();
    const theirs = await note(engine, 'b');
    const missing = 'id-999999';
    for (const id of [theirs.id, missing]) {
      await expectCode(engine.notes.get({ agentId: 'a', id }), 'NOT_FOUND');
      await expectCode(engine.notes.update({ agentId: 'a', id, content: 'mine now' }), 'NOT_FOUND');
      await expectCode(engine.notes.resolve({ agentId: 'a', id }), 'NOT_FOUND');
      await expectCode(engine.notes.archive({ agentId: 'a', id }), 'NOT_FOUND');
      await expectCode(engine.notes.history({ agentId: 'a', id }), 'NOT_FOUND');
    }
    // Untouched.
    expect(await engine.notes.get({ agentId: 'b', id: theirs.id })).toEqual(theirs);
    expect((await engine.notes.history({ agentId: 'b', id: theirs.id })).map((h) => h.event)).toEqual(['created']);
    expect((await engine.notes.list({ agentId: 'a' })).items).toEqual([]);
    await engine.close();
  });

  it('lists newest first with paging and status, tag and entity filters', async () => {
    const { engine, clock } = await createTestEngine();
    const made = [];
    for (let i = 0; i < 7; i++) {
      clock.advance(1);
      made.push(
        await engine.notes.create({
          agentId: 'a',
          title: `note ${i}`,
          content: `content ${i}`,
          tags: i % 2 === 0 ? ['even'] : ['odd'],
          linkedEntities: i < 3 ? [{ type: 'contact', refId: '42' }] : [],
        }),
      );
    }
    await note(engine, 'b', { linkedEntities: [{ type: 'contact', refId: '42' }] });
    await engine.notes.resolve({ agentId: 'a', id: made[1]?.id ?? '' });
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await engine.notes.list({ agentId: 'a', limit: 3, ...(cursor ? { cursor } : {}) });
      pages.push(page.items.map((n) => n.title));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(pages).toEqual([['note 6', 'note 5', 'note 4'], ['note 3', 'note 2', 'note 1'], ['note 0']]);
    const titles = async (input: Parameters<MemoryEngine['notes']['list']>[0]) =>
      (await engine.notes.list(input)).items.map((n) => n.title);
    expect(await titles({ agentId: 'a', status: 'resolved' })).toEqual(['note 1']);
    expect(await titles({ agentId: 'a', tags: ['even'] })).toEqual(['note 6', 'note 4', 'note 2', 'note 0']);
    expect(await titles({ agentId: 'a', entity: { type: 'contact', refId: '42' } })).toEqual([
      'note 2',
      'note 1',
      'note 0',
    ]);
    expect(await titles({ agentId: 'a', entity: { type: 'contact', refId: '42' }, status: 'active' })).toEqual([
      'note 2',
      'note 0',
    ]);
    const first = await engine.notes.list({ agentId: 'a', entity: { type: 'contact', refId: '42' }, limit: 2 });
    expect(first.items.map((n) => n.title)).toEqual(['note 2', 'note 1']);
    expect(
      (
        await engine.notes.list({
          agentId: 'a',
          entity: { type: 'contact', refId: '42' },
          cursor: first.nextCursor ?? '',
        })
      ).items.map((n) => n.title),
    ).toEqual(['note 0']);
    await engine.close();
  });
});
