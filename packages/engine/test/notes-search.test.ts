import { describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../src/index.js';
import { createBagOfWordsEmbedder, createTestEngine } from './helpers.js';

const NOTES = [
  { title: 'Renewal call', content: 'Call Alice about the Acme renewal quote', refs: ['42'] },
  { title: 'Lunch', content: 'Lunch with Bob on Friday at noon', refs: ['43'] },
  { title: 'Quote follow-up', content: 'Send the renewal quote to Carol before the board meeting', refs: ['42'] },
  { title: 'Gym', content: 'Book a personal trainer session', refs: [] },
];

async function seed(engine: MemoryEngine, agentId: string) {
  const ids: string[] = [];
  for (const n of NOTES) {
    const note = await engine.notes.create({
      agentId,
      title: n.title,
      content: n.content,
      linkedEntities: n.refs.map((refId) => ({ type: 'contact', refId })),
    });
    ids.push(note.id);
  }
  return ids;
}

/** Another agent writing many notes full of the query's words. */
async function flood(engine: MemoryEngine) {
  for (let i = 0; i < 40; i++) {
    await engine.notes.create({
      agentId: 'intruder',
      title: `Renewal quote ${i}`,
      content: 'renewal quote renewal quote Acme Alice Carol board lunch trainer',
      linkedEntities: [{ type: 'contact', refId: '42' }],
    });
  }
}

const view = (hits: Array<{ note: { title: string; agentId: string }; score: number }>) =>
  hits.map((h) => [h.note.title, h.score]);

describe('notes.search', () => {
  for (const withEmbedder of [false, true]) {
    const label = withEmbedder ? 'text and vectors' : 'text only';
    it(`ranks by ${label}; another agent's notes never appear, crowd out, or move the ranking`, async () => {
      const embedder = withEmbedder ? createBagOfWordsEmbedder() : undefined;
      const { engine } = await createTestEngine(embedder ? { embedder } : {});
      await seed(engine, 'a');
      const queries = [
        { agentId: 'a', query: 'renewal quote', limit: 2 },
        { agentId: 'a', query: 'lunch Friday' },
        { agentId: 'a', query: 'Acme', entity: { type: 'contact', refId: '42' } },
        { agentId: 'a', query: 'quote', status: 'active' as const },
      ];
      const before = [];
      for (const q of queries) before.push(view(await engine.notes.search(q)));
      expect(before[0]?.map((h) => h[0]).sort()).toEqual(['Quote follow-up', 'Renewal call']);
      expect(before[0]).toHaveLength(2);
      expect(before[1]?.[0]?.[0]).toBe('Lunch');
      expect(before[2]?.map((h) => h[0])).toEqual(['Renewal call']);
      await flood(engine);
      for (const [i, q] of queries.entries()) {
        const hits = await engine.notes.search(q);
        expect(hits.every((h) => h.note.agentId === 'a')).toBe(true);
        expect(view(hits)).toEqual(before[i]);
      }
      await engine.close();
    });
  }

  it('text matches rank first; scores are 0..1; a best lexical match scores the lexical weight or more', async () => {
    const { engine } = await createTestEngine();
    await seed(engine, 'a');
    const hits = await engine.notes.search({ agentId: 'a', query: 'renewal quote' });
    expect(hits.map((h) => h.note.title).sort()).toEqual(['Quote follow-up', 'Renewal call']);
    expect(hits[0]?.score).toBe(1);
    for (const h of hits) expect(h.score).toBeGreaterThan(0);
    await engine.close();
  });

  it('finds a note by meaning alone when an embedder is present', async () => {
    // Words of one concept share a vector direction, so "workout" is near "trainer" with no shared word.
    const concepts = [
      ['workout', 'gym', 'trainer', 'exercise'],
      ['money', 'quote', 'invoice'],
    ];
    const embedder = {
      model: 'concepts',
      dimensions: concepts.length + 1,
      embed: async (texts: readonly string[]) =>
        texts.map((text) => {
          const v = new Float32Array(concepts.length + 1);
          v[concepts.length] = 0.01;
          for (const word of text.toLowerCase().match(/[a-z]+/g) ?? [])
            concepts.forEach((words, i) => {
              if (words.includes(word)) v[i] = (v[i] ?? 0) + 1;
            });
          return v;
        }),
    };
    const plain = await createTestEngine();
    await seed(plain.engine, 'a');
    expect(await plain.engine.notes.search({ agentId: 'a', query: 'workout' })).toEqual([]);
    await plain.engine.close();
    const { engine } = await createTestEngine({ embedder });
    await seed(engine, 'a');
    const hits = await engine.notes.search({ agentId: 'a', query: 'workout' });
    expect(hits.map((h) => h.note.title)).toEqual(['Gym']);
    // Meaning alone scores the semantic weight at most.
    expect(hits[0]?.score).toBeCloseTo(engine.config.recall.semanticWeight, 2);
    await engine.close();
  });

  it('without a query: the filtered notes newest first, each scoring 1', async () => {
    const { engine } = await createTestEngine();
    await seed(engine, 'a');
    await flood(engine);
    const hits = await engine.notes.search({ agentId: 'a', entity: { type: 'contact', refId: '42' } });
    expect(view(hits)).toEqual([
      ['Quote follow-up', 1],
      ['Renewal call', 1],
    ]);
    await engine.close();
  });

  it('an embedder failure leaves notes searchable by text', async () => {
    const embedder = {
      model: 'broken',
      dimensions: 8,
      embed: async () => {
        throw new Error('embedder down');
      },
    };
    const { engine } = await createTestEngine({ embedder });
    await seed(engine, 'a');
    const hits = await engine.notes.search({ agentId: 'a', query: 'lunch' });
    expect(hits.map((h) => h.note.title)).toEqual(['Lunch']);
    await engine.close();
  });
});
