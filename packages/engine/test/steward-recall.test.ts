import { describe, expect, it } from 'vitest';
import { HYPOTHESIS_INSTRUCTION } from '../src/index.js';
import { createBagOfWordsEmbedder, createTestEngine, T0 } from './helpers.js';
import { hostResolvers } from './steward-helpers.js';

const DAY = 86_400_000;
const alice = { type: 'contact', refId: '42', label: 'Alice Chen' };
const bob = { type: 'contact', refId: '43', label: 'Bob Stone' };
const renewal = { type: 'project', refId: '7', label: 'Acme renewal' };

async function seeded() {
  const { engine, clock } = await createTestEngine({ embedder: createBagOfWordsEmbedder(128) });
  for (const r of hostResolvers()) engine.steward.registerResolver(r);
  const ids: Record<string, string> = {};
  const put = async (key: string, input: Parameters<typeof engine.remember>[0]) => {
    ids[key] = (await engine.remember(input)).id;
  };
  // Old (outside recall's 90-day window): a structural link still finds it.
  await put('oldAgreement', {
    agentId: 'desk',
    content: 'Alice Chen agreed to quarterly invoicing for the support contract.',
    type: 'agreement',
    linkedEntities: [alice],
    createdAt: new Date(T0 - 200 * DAY).toISOString(),
  });
  await put('alicePref', {
    agentId: 'desk',
    content: 'Prefers calls in the afternoon, never before 2pm.',
    type: 'preference',
    linkedEntities: [alice],
    importance: 0.9,
  });
  await put('renewalDecision', {
    agentId: 'desk',
    content: 'We decided to offer a 10% discount on the two-year renewal.',
    type: 'decision',
    linkedEntities: [renewal, alice],
  });
  await put('bobPref', {
    agentId: 'desk',
    content: 'Bob Stone prefers afternoon calls about invoices.',
    type: 'preference',
    linkedEntities: [bob],
  });
  await put('unlinked', {
    agentId: 'desk',
    content: 'Afternoon calls about invoicing go through the billing team.',
    type: 'operating_rule',
  });
  await put('forgotten', {
    agentId: 'desk',
    content: 'Alice Chen used to be on the old enterprise plan.',
    type: 'project_context',
    linkedEntities: [alice],
  });
  await engine.forget({ agentId: 'desk', id: ids['forgotten'] as string, reason: 'outdated' });
  // Another agent's memory linked to the same contact id never shows up.
  await engine.remember({
    agentId: 'other-desk',
    content: 'Alice Chen is a VIP of the other desk.',
    type: 'fact',
    linkedEntities: [alice],
  });
  return { engine, clock, ids };
}

describe('steward.recall', () => {
  it('puts memories linked to resolved host objects in LINKED, text and meaning matches in RELATED', async () => {
    const { engine, ids } = await seeded();
    const result = await engine.steward.recall({
      agentId: 'desk',
      taskId: 'job-1',
      text: 'Can we set up afternoon calls about invoicing with her?',
      sender: { email: 'alice@acme.test' },
    });
    expect(result.entities).toEqual([{ ...alice, confidence: 1, via: 'sender:crm-sender' }]);
    // Linked: every live memory linked to contact 42, however old and whatever its words; the
    // forgotten one and the other agent's are absent; order: links' confidence, then pinned, importance, recency.
    expect(result.linked.map((i) => i.id)).toEqual([ids['alicePref'], ids['renewalDecision'], ids['oldAgreement']]);
    expect(result.linked.every((i) => i.kind === 'memory' && i.linkedBy.some((l) => l.refId === '42'))).toBe(true);
    expect(result.linked[0]).toMatchObject({ memoryType: 'preference', score: 1, linkedBy: [alice] });
    // Related: found by words or meaning, never a linked one again. Bob's memory shares the words
    // but is not linked to anything this task resolved: it is a hypothesis, not context.
    const related = result.related.map((i) => i.id);
    expect(related).toEqual(expect.arrayContaining([ids['bobPref'], ids['unlinked']]));
    expect(related).not.toContain(ids['alicePref']);
    expect(result.related.every((i) => i.linkedBy.length === 0)).toBe(true);
    expect(result.drillDown[0]).toMatchObject({ kind: 'open_host_object', type: 'contact', refId: '42' });
    expect(result.timings.totalMs).toBeGreaterThanOrEqual(result.timings.linkedMs);
    await engine.close();
  });

  it('with nothing resolved, everything is RELATED', async () => {
    const { engine } = await seeded();
    const result = await engine.steward.recall({ agentId: 'desk', text: 'afternoon calls about invoicing' });
    expect(result.entities).toEqual([]);
    expect(result.linked).toEqual([]);
    expect(result.related.length).toBeGreaterThan(0);
    await engine.close();
  });

  it('limits each tier by steward.linkedLimit and steward.relatedLimit', async () => {
    const { engine } = await createTestEngine({ config: { steward: { linkedLimit: 2, relatedLimit: 1 } } });
    for (const r of hostResolvers()) engine.steward.registerResolver(r);
    for (let i = 0; i < 5; i++) {
      await engine.remember({ agentId: 'a', content: `Renewal note number ${i} for Alice`, linkedEntities: [alice] });
      await engine.remember({ agentId: 'a', content: `Renewal remark number ${i} unlinked` });
    }
    const result = await engine.steward.recall({
      agentId: 'a',
      text: 'renewal remark number',
      sender: { email: 'alice@acme.test' },
    });
    expect(result.linked).toHaveLength(2);
    expect(result.related).toHaveLength(1);
    await engine.close();
  });

  it('formats LINKED CONTEXT, POSSIBLY RELATED with the hypothesis instruction, and DRILL-DOWN', async () => {
    const { engine } = await seeded();
    const result = await engine.steward.recall({
      agentId: 'desk',
      text: 'Can we set up afternoon calls about invoicing with her?',
      sender: { email: 'alice@acme.test' },
    });
    const text = engine.steward.format(result);
    const linked = text.indexOf('LINKED CONTEXT');
    const related = text.indexOf('POSSIBLY RELATED');
    const drill = text.indexOf('\nDRILL-DOWN\n');
    expect(linked).toBe(0);
    expect(related).toBeGreaterThan(linked);
    expect(drill).toBeGreaterThan(related);
    expect(text).toContain('Resolved: Alice Chen (contact:42)');
    expect(text).toContain(
      '[preference · 2026-01-01] Prefers calls in the afternoon, never before 2pm. (linked to Alice Chen (contact:42))',
    );
    expect(text.slice(related)).toContain(HYPOTHESIS_INSTRUCTION);
    expect(text.slice(related, drill)).toContain('Bob Stone prefers afternoon calls about invoices.');
    expect(text.slice(drill)).toContain(
      '- open Alice Chen (contact:42): resolved by sender:crm-sender (confidence 1.00)',
    );
    // A small budget drops lines and says so.
    expect(engine.steward.format(result, { budgetTokens: 60 })).toMatch(/more items left out to fit the budget/);
    await engine.close();
  });

  it('puts active notes linked to resolved host objects in LINKED, other matching notes in RELATED', async () => {
    const { engine } = await seeded();
    const mine = await engine.notes.create({
      agentId: 'desk',
      title: 'Invoice follow-up',
      content: 'Send Alice the corrected invoice.',
      linkedEntities: [alice],
    });
    const done = await engine.notes.create({
      agentId: 'desk',
      title: 'Old invoice question',
      content: 'Alice asked about invoicing.',
      linkedEntities: [alice],
    });
    await engine.notes.resolve({ agentId: 'desk', id: done.id });
    const bobs = await engine.notes.create({
      agentId: 'desk',
      title: 'Afternoon calls',
      content: 'Bob wants afternoon calls about invoicing.',
      linkedEntities: [bob],
    });
    const result = await engine.steward.recall({
      agentId: 'desk',
      text: 'afternoon calls about invoicing',
      sender: { email: 'alice@acme.test' },
    });
    const linkedNotes = result.linked.filter((i) => i.kind === 'note');
    expect(linkedNotes).toEqual([
      expect.objectContaining({ id: mine.id, title: 'Invoice follow-up', linkedBy: [alice] }),
    ]);
    const relatedNotes = result.related.filter((i) => i.kind === 'note').map((i) => i.id);
    expect(relatedNotes).toContain(bobs.id);
    expect(relatedNotes).not.toContain(mine.id);
    expect(relatedNotes).not.toContain(done.id);
    await engine.close();
  });

  it('leaves note search out of the related tier with steward.relatedNotes: false, keeping linked notes', async () => {
    const { engine } = await createTestEngine({ config: { steward: { relatedNotes: false } } });
    for (const r of hostResolvers()) engine.steward.registerResolver(r);
    const linkedNote = await engine.notes.create({
      agentId: 'a',
      title: 'Invoice follow-up',
      content: 'Send the corrected invoice.',
      linkedEntities: [alice],
    });
    await engine.notes.create({
      agentId: 'a',
      title: 'Invoices',
      content: 'Bob asked about the invoice.',
      linkedEntities: [bob],
    });
    const result = await engine.steward.recall({
      agentId: 'a',
      text: 'corrected invoice',
      sender: { email: 'alice@acme.test' },
    });
    expect(result.linked.map((i) => i.id)).toEqual([linkedNote.id]);
    expect(result.related.filter((i) => i.kind === 'note')).toEqual([]);
    await engine.close();
  });
});
