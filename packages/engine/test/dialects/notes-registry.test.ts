import {
  createManualClock,
  createManualScheduler,
  createSequentialIds,
  type GenerateRequest,
  isMemoryError,
  type LlmProvider,
} from '@memory/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder } from '../helpers.js';
import { hostResolvers } from '../steward-helpers.js';
import { engineBackends } from '../support/backends.js';

// Working notes, the entity registry, API tokens, the steward's linked tier and registry
// auto-linking through the engine's public API, on SQLite, PGlite and the real PostgreSQL server.

const T0 = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const backends = await engineBackends();

const code = async (promise: Promise<unknown>): Promise<string | undefined> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return isMemoryError(error) ? error.code : undefined;
};

describe.each(backends)('notes, registry, tokens and the steward on $name', (backend) => {
  afterEach(() => backend.cleanup());
  afterAll(() => backend.dispose());

  const open = (extra: Record<string, unknown> = {}) => {
    const clock = createManualClock(T0);
    return backend
      .open({ clock, scheduler: createManualScheduler(clock), ids: createSequentialIds('id'), ...extra })
      .then((engine) => ({ engine, clock }));
  };

  it.skipIf(backend.skip)('keeps notes through their lifecycle, lists, searches and audits them', async () => {
    const { engine, clock } = await open({ embedder: createBagOfWordsEmbedder() });
    const acme = { type: 'company', refId: 'acme', label: 'Acme' };
    const renewal = await engine.notes.create({
      agentId: 'a',
      title: 'Acme renewal',
      content: 'Send the renewal quote before Friday',
      tags: ['sales', 'urgent'],
      linkedEntities: [acme],
    });
    clock.advance(1000);
    const groceries = await engine.notes.create({
      agentId: 'a',
      title: 'Groceries',
      content: 'oat milk, coffee beans',
    });
    clock.advance(1000);
    await engine.notes.create({ agentId: 'b', title: 'Acme renewal', content: 'another agent, same words' });
    expect(renewal).toMatchObject({ status: 'active', tags: ['sales', 'urgent'], linkedEntities: [acme] });

    // Another agent's note is NOT_FOUND, exactly like a missing one.
    expect(await code(engine.notes.get({ agentId: 'b', id: renewal.id }))).toBe('NOT_FOUND');
    expect(await code(engine.notes.get({ agentId: 'a', id: 'missing' }))).toBe('NOT_FOUND');

    const changed = await engine.notes.update({ agentId: 'a', id: renewal.id, content: 'Quote sent; invoice next' });
    expect(changed.content).toBe('Quote sent; invoice next');
    // The text index followed the change: the new words are found, the old ones no longer.
    const byNewWord = await engine.notes.search({ agentId: 'a', query: 'invoice' });
    expect(byNewWord.map((h) => h.note.id)).toEqual([renewal.id]);
    const byOldWord = await engine.notes.search({ agentId: 'a', query: 'friday' });
    expect(byOldWord.filter((h) => h.note.id === renewal.id && h.score > 0.9)).toEqual([]);
    // By meaning: the embedder's vectors alone find the note sharing no word with the title.
    const byMeaning = await engine.notes.search({ agentId: 'a', query: 'coffee beans' });
    expect(byMeaning[0]?.note.id).toBe(groceries.id);

    await engine.notes.resolve({ agentId: 'a', id: renewal.id, reason: 'quote sent' });
    expect(await code(engine.notes.resolve({ agentId: 'a', id: renewal.id }))).toBe('CONFLICT');
    const archived = await engine.notes.archive({ agentId: 'a', id: groceries.id });
    expect(archived.status).toBe('archived');
    expect(await code(engine.notes.update({ agentId: 'a', id: groceries.id, title: 'x' }))).toBe('CONFLICT');

    const page = await engine.notes.list({ agentId: 'a', limit: 1 });
    expect(page.items.map((n) => n.id)).toEqual([groceries.id]);
    const next = await engine.notes.list({ agentId: 'a', limit: 1, cursor: page.nextCursor ?? '' });
    expect(next.items.map((n) => n.id)).toEqual([renewal.id]);
    expect(next.nextCursor).toBeNull();
    expect((await engine.notes.list({ agentId: 'a', status: 'resolved' })).items.map((n) => n.id)).toEqual([
      renewal.id,
    ]);
    const byEntity = { type: acme.type, refId: acme.refId };
    expect((await engine.notes.list({ agentId: 'a', entity: byEntity })).items.map((n) => n.id)).toEqual([renewal.id]);
    expect((await engine.notes.list({ agentId: 'a', tags: ['urgent'] })).items.map((n) => n.id)).toEqual([renewal.id]);
    const linkedSearch = await engine.notes.search({ agentId: 'a', query: 'quote', entity: byEntity });
    expect(linkedSearch.map((h) => h.note.id)).toEqual([renewal.id]);

    const history = await engine.notes.history({ agentId: 'a', id: renewal.id });
    expect(history.map((e) => e.event)).toEqual(['created', 'updated', 'resolved']);
    expect(history[2]).toMatchObject({
      reason: 'quote sent',
      before: { status: 'active' },
      after: { status: 'resolved' },
    });
    expect(await code(engine.notes.history({ agentId: 'b', id: renewal.id }))).toBe('NOT_FOUND');
  });

  it.skipIf(backend.skip)('takes concurrent note writes of one scope: each written and indexed once', async () => {
    const { engine } = await open();
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        engine.notes.create({ agentId: 'c', title: `ticket ${i}`, content: `customer escalation number ${i}` }),
      ),
    );
    expect(new Set(made.map((n) => n.id)).size).toBe(12);
    await Promise.all(made.slice(0, 6).map((n) => engine.notes.update({ agentId: 'c', id: n.id, content: 'closed' })));
    const stillOpen = await engine.notes.search({ agentId: 'c', query: 'escalation', limit: 50 });
    expect(stillOpen.map((h) => h.note.id).sort()).toEqual(
      made
        .slice(6)
        .map((n) => n.id)
        .sort(),
    );
    const closed = await engine.notes.search({ agentId: 'c', query: 'closed', limit: 50 });
    expect(closed).toHaveLength(6);
  });

  it.skipIf(backend.skip)(
    'keeps registry categories: links, reads, renames, merges and deletes with the cascade',
    async () => {
      const { engine } = await open();
      const note = await engine.notes.create({ agentId: 'a', title: 'Tax return', content: 'file by April' });
      const shared = await engine.notes.create({ agentId: 'a', title: 'Budget', content: 'monthly budget' });
      const finance = await engine.registry.create({ agentId: 'a', name: 'Personal Finance', aliases: ['Money'] });
      const home = await engine.registry.create({ agentId: 'a', name: 'Home' });
      expect(await code(engine.registry.create({ agentId: 'a', name: 'money' }))).toBe('CONFLICT');
      const contact = { kind: 'host' as const, type: 'contact', refId: 'c1' };
      expect(
        await engine.registry.link({ agentId: 'a', id: finance.id, object: { kind: 'note', id: note.id } }),
      ).toEqual({
        linked: true,
      });
      expect(
        await engine.registry.link({ agentId: 'a', id: finance.id, object: { kind: 'note', id: note.id } }),
      ).toEqual({
        linked: false,
      });
      await engine.registry.link({ agentId: 'a', id: finance.id, object: { kind: 'note', id: shared.id } });
      await engine.registry.link({ agentId: 'a', id: home.id, object: { kind: 'note', id: shared.id } });
      await engine.registry.link({ agentId: 'a', id: finance.id, object: contact });
      // A note of another scope cannot be linked; another agent cannot see the category.
      const foreign = await engine.notes.create({ agentId: 'b', title: 'x', content: 'y' });
      expect(
        await code(engine.registry.link({ agentId: 'a', id: finance.id, object: { kind: 'note', id: foreign.id } })),
      ).toBe('NOT_FOUND');
      expect(await code(engine.registry.get({ agentId: 'b', id: finance.id }))).toBe('NOT_FOUND');

      const detail = await engine.registry.get({ agentId: 'a', id: finance.id });
      expect(detail).toMatchObject({
        name: 'Personal Finance',
        objectCount: 3,
        counts: { note: 2, host: 1, memory: 0 },
      });
      // Oldest link first; links of one instant by kind, then reference.
      expect(detail.objects.map((o) => [o.kind, o.state, o.preview])).toEqual([
        ['host', 'host', null],
        ['note', 'live', 'Tax return'],
        ['note', 'live', 'Budget'],
      ]);
      expect((await engine.registry.list({ agentId: 'a' })).map((c) => [c.name, c.objectCount])).toEqual([
        ['Home', 1],
        ['Personal Finance', 3],
      ]);
      expect(
        (await engine.registry.categoriesOf({ agentId: 'a', object: { kind: 'note', id: shared.id } })).map(
          (c) => c.name,
        ),
      ).toEqual(['Home', 'Personal Finance']);
      const renamed = await engine.registry.update({ agentId: 'a', id: home.id, name: 'Household' });
      expect(renamed.name).toBe('Household');
      expect(await engine.registry.unlink({ agentId: 'a', id: finance.id, object: contact })).toEqual({
        unlinked: true,
      });

      // The delete archives the note only this category holds and unlinks the shared one.
      const preview = await engine.registry.deletePreview({ agentId: 'a', id: finance.id });
      expect(preview.remove).toEqual([{ kind: 'note', id: note.id }]);
      expect(preview.unlink).toEqual([{ kind: 'note', id: shared.id }]);
      const deleted = await engine.registry.delete({ agentId: 'a', id: finance.id, reason: 'cleanup' });
      expect(deleted.remove).toEqual(preview.remove);
      expect((await engine.notes.get({ agentId: 'a', id: note.id })).status).toBe('archived');
      expect((await engine.notes.get({ agentId: 'a', id: shared.id })).status).toBe('active');
      expect(await code(engine.registry.get({ agentId: 'a', id: finance.id }))).toBe('NOT_FOUND');
      const trail = await engine.registry.history({ agentId: 'a', id: finance.id });
      expect(trail.map((e) => e.action)).toEqual(['created', 'linked', 'linked', 'linked', 'unlinked', 'deleted']);

      const travel = await engine.registry.create({ agentId: 'a', name: 'Travel' });
      await engine.registry.link({ agentId: 'a', id: travel.id, object: { kind: 'note', id: shared.id } });
      const merged = await engine.registry.merge({ agentId: 'a', id: travel.id, intoId: home.id });
      expect(merged).toMatchObject({
        moved: 0,
        alreadyLinked: 1,
        category: { name: 'Household', aliases: ['Travel'] },
      });
      expect((await engine.registry.list({ agentId: 'a' })).map((c) => c.name)).toEqual(['Household']);
    },
  );

  it.skipIf(backend.skip)('mints, verifies, lists and revokes API tokens', async () => {
    const { engine, clock } = await open();
    const created = await engine.tokens.create({ agents: ['a', 'b'], permissions: ['read'], expiresAt: T0 + DAY });
    expect(created.token).toMatch(/^mem_.+\.[0-9a-f]{64}$/);
    expect(await engine.tokens.verify({ token: created.token })).toMatchObject({ id: created.id, agents: ['a', 'b'] });
    // The secret's last hex digit, changed: a fixed digit would be the same token one time in 16.
    const tampered = `${created.token.slice(0, -1)}${created.token.endsWith('0') ? '1' : '0'}`;
    expect(await engine.tokens.verify({ token: tampered })).toBeUndefined();
    expect((await engine.tokens.list({ agentId: 'b' })).map((t) => t.id)).toEqual([created.id]);
    expect(await engine.tokens.list({ agentId: 'c' })).toEqual([]);
    expect(await engine.tokens.revoke({ id: created.id })).toEqual({ revoked: true });
    expect(await engine.tokens.revoke({ id: created.id })).toEqual({ revoked: false });
    expect(await engine.tokens.verify({ token: created.token })).toBeUndefined();
    expect(await engine.tokens.list({})).toEqual([]);
    expect((await engine.tokens.list({ includeRevoked: true }))[0]?.revokedAt).toBe(clock.now());
  });

  it.skipIf(backend.skip)('the steward recalls the active notes linked to what a task resolves to', async () => {
    const { engine } = await open();
    for (const resolver of hostResolvers()) engine.steward.registerResolver(resolver);
    const linked = await engine.notes.create({
      agentId: 'a',
      title: 'Alice follow-up',
      content: 'Alice asked for the SSO pricing',
      linkedEntities: [{ type: 'contact', refId: '42', label: 'Alice Chen' }],
    });
    await engine.notes.create({
      agentId: 'b',
      title: 'Alice elsewhere',
      content: 'another scope',
      linkedEntities: [{ type: 'contact', refId: '42' }],
    });
    const recall = await engine.steward.recall({
      agentId: 'a',
      text: 'Reply to the latest email',
      sender: { email: 'alice@acme.test' },
    });
    expect(recall.entities.map((e) => [e.type, e.refId])).toEqual([['contact', '42']]);
    expect(recall.linked.map((i) => [i.kind, i.id])).toEqual([['note', linked.id]]);
  });

  it.skipIf(backend.skip)('auto-links a new note under a category the model proposes', async () => {
    const prompts: string[] = [];
    const llm: LlmProvider = {
      async generate(request: GenerateRequest) {
        prompts.push(request.messages.map((m) => m.content).join('\n'));
        return { text: '```json\n{"existing": [], "new": {"name": "Personal Finance", "description": "money"}}\n```' };
      },
    };
    const { engine } = await open({ llm, config: { hints: { enabled: false }, registry: { autoLinkOnCreate: true } } });
    const note = await engine.notes.create({ agentId: 'a', title: 'Taxes', content: 'Quarterly tax estimate due' });
    await engine.runDue();
    expect(prompts[0]).toContain('Quarterly tax estimate due');
    const categories = await engine.registry.categoriesOf({ agentId: 'a', object: { kind: 'note', id: note.id } });
    expect(categories).toMatchObject([{ name: 'Personal Finance', createdBy: 'engine' }]);
  });

  it.skipIf(backend.skip)('archives stale notes in the maintenance reap, on every dialect', async () => {
    const { engine, clock } = await open({ config: { notes: { reapAfterDays: 10 } } });
    const stale = await engine.notes.create({ agentId: 'a', title: 'Old', content: 'left alone' });
    clock.advance(11 * 86_400_000);
    const fresh = await engine.notes.create({ agentId: 'a', title: 'New', content: 'just written' });
    const preview = await engine.maintenance.preview();
    expect(preview.reap.notes.candidates).toBe(1);
    await engine.maintenance.run({ task: 'reap' });
    expect(await engine.notes.get({ agentId: 'a', id: stale.id })).toMatchObject({ status: 'archived' });
    expect(await engine.notes.get({ agentId: 'a', id: fresh.id })).toMatchObject({ status: 'active' });
  });

  it.skipIf(backend.skip)('auto-links a document once its ingest is done', async () => {
    const llm: LlmProvider = {
      async generate() {
        return { text: '{"existing": [], "new": {"name": "Policies", "description": "company rules"}}' };
      },
    };
    const { engine } = await open({ llm, config: { hints: { enabled: false }, registry: { autoLinkOnCreate: true } } });
    const doc = await engine.documents.add({ agentId: 'a', content: 'Invoices are due in 30 days.', title: 'Billing' });
    // The ingest first, then the auto-link job it queued.
    await engine.runDue();
    await engine.runDue();
    const categories = await engine.registry.categoriesOf({ agentId: 'a', object: { kind: 'document', id: doc.id } });
    expect(categories).toMatchObject([{ name: 'Policies', createdBy: 'engine' }]);
  });
});
