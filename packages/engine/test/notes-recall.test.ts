import { describe, expect, it } from 'vitest';
import { formatRecall, type MemoryEngine } from '../src/index.js';
import { createBagOfWordsEmbedder, createTestEngine } from './helpers.js';

async function seed(engine: MemoryEngine, agentId: string) {
  await engine.remember({ agentId, content: 'Alice prefers the renewal quote in euros', type: 'preference' });
  await engine.remember({ agentId, content: 'The office closes at six', type: 'fact' });
  const linked = await engine.notes.create({
    agentId,
    title: 'Call Alice',
    content: 'Ask whether the board approved the budget',
    linkedEntities: [{ type: 'contact', refId: '42', label: 'Alice Chen' }],
  });
  const related = await engine.notes.create({
    agentId,
    title: 'Renewal quote',
    content: 'Send the renewal quote on Monday',
  });
  const archived = await engine.notes.create({
    agentId,
    title: 'Old renewal quote',
    content: 'renewal quote draft v1',
  });
  await engine.notes.archive({ agentId, id: archived.id });
  return { linked, related, archived };
}

const shape = (results: ReadonlyArray<{ kind: string; id: string; tier: string; score: number }>) =>
  results.map((r) => [r.kind, r.id, r.tier, r.score]);

describe('recall with notes', () => {
  for (const withEmbedder of [false, true]) {
    it(`ranks and tiers notes with memories, each result saying its kind (${withEmbedder ? 'with' : 'without'} vectors)`, async () => {
      const embedder = withEmbedder ? createBagOfWordsEmbedder() : undefined;
      const { engine } = await createTestEngine(embedder ? { embedder } : {});
      const { linked, related, archived } = await seed(engine, 'a');
      await engine.runDue();
      const input = {
        agentId: 'a',
        query: 'renewal quote',
        linkedEntities: [{ type: 'contact', refId: '42' }],
      };
      const plain = await engine.recall(input);
      expect(plain.results.every((r) => r.kind === 'memory')).toBe(true);
      expect(plain.results.length).toBeGreaterThan(0);

      const both = await engine.recall({ ...input, include: ['memories', 'notes'] });
      const notes = both.results.filter((r) => r.kind === 'note');
      expect(notes.map((n) => n.id).sort()).toEqual([linked.id, related.id].sort());
      expect(both.results.map((r) => r.id)).not.toContain(archived.id);
      const linkedResult = notes.find((n) => n.id === linked.id);
      expect(linkedResult).toMatchObject({ kind: 'note', tier: 'linked', title: 'Call Alice', status: 'active' });
      // Linked notes are scored by meaning too when vectors exist (above the linked floor).
      if (withEmbedder) expect(linkedResult?.channels.semantic).toBeTypeOf('number');
      expect(notes.find((n) => n.id === related.id)).toMatchObject({ tier: 'related', channels: { lexical: 1 } });
      // The memories are the same as without notes, in the same order.
      expect(both.results.filter((r) => r.kind === 'memory').map((r) => r.id)).toEqual(plain.results.map((r) => r.id));
      // One list by score.
      const scores = both.results.map((r) => r.score);
      expect(scores).toEqual([...scores].sort((x, y) => y - x));

      const onlyNotes = await engine.recall({ ...input, include: ['notes'] });
      expect(onlyNotes.results.every((r) => r.kind === 'note')).toBe(true);
      expect(onlyNotes.results).toHaveLength(2);

      // Another agent's notes and memories change nothing.
      const before = shape(both.results);
      for (let i = 0; i < 20; i++) {
        await engine.notes.create({
          agentId: 'b',
          title: `renewal quote ${i}`,
          content: 'renewal quote renewal quote Alice',
          linkedEntities: [{ type: 'contact', refId: '42' }],
        });
      }
      await engine.runDue();
      expect(shape((await engine.recall({ ...input, include: ['memories', 'notes'] })).results)).toEqual(before);
      await engine.close();
    });
  }

  it('resolved notes are included with their status; memory-only filters leave notes out', async () => {
    const { engine } = await createTestEngine();
    const { related } = await seed(engine, 'a');
    await engine.notes.resolve({ agentId: 'a', id: related.id });
    const both = await engine.recall({ agentId: 'a', query: 'renewal quote', include: ['memories', 'notes'] });
    expect(both.results.find((r) => r.id === related.id)).toMatchObject({ kind: 'note', status: 'resolved' });
    const typed = await engine.recall({
      agentId: 'a',
      query: 'renewal quote',
      include: ['memories', 'notes'],
      type: 'preference',
    });
    expect(typed.results.map((r) => r.kind)).toEqual(['memory']);
    await engine.close();
  });

  it('rejects an unknown kind', async () => {
    const { engine } = await createTestEngine();
    await expect(engine.recall({ agentId: 'a', query: 'x', include: ['documents'] as never })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await engine.close();
  });

  it('formatRecall renders notes in their tier', async () => {
    const { engine } = await createTestEngine();
    await seed(engine, 'a');
    const response = await engine.recall({
      agentId: 'a',
      query: 'renewal quote',
      linkedEntities: [{ type: 'contact', refId: '42' }],
      include: ['memories', 'notes'],
    });
    const text = formatRecall(response);
    expect(text).toMatch(
      /LINKED CONTEXT\n- \[note · active · 2026-01-01\] Call Alice: Ask whether the board approved the budget/,
    );
    expect(text).toMatch(
      /POSSIBLY RELATED\n(?:.*\n)*- \[note · active · 2026-01-01 · 1\.00\] Renewal quote: Send the renewal quote on Monday/,
    );
    await engine.close();
  });
});
