import { createManualClock, createSequentialIds } from '@memory/core';
import { createHashingEmbedder } from '@memory/providers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryEngine, type MemoryEngine } from '../src/index.js';
import { T0 } from './helpers.js';

// Notes are scope-pure like memories: agent `a`'s note search and recall (with notes) give the same
// notes, order and scores whether or not another agent's notes share the file, whatever they say.

const WORDS = ['atlas', 'budget', 'launch', 'tea', 'dana', 'invoice', 'march', 'vendor', 'painting', 'paints'];
const sentence = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }).map((w) => w.join(' '));
const note = fc.record({
  title: sentence,
  content: sentence,
  ref: fc.constantFrom('1', '2', null),
  resolved: fc.boolean(),
});

async function engineWith(embed: boolean): Promise<MemoryEngine> {
  return createMemoryEngine({
    database: { path: ':memory:' },
    clock: createManualClock(T0),
    ids: createSequentialIds('id'),
    ...(embed ? { embedder: createHashingEmbedder({ dimensions: 32 }) } : {}),
  });
}

async function write(
  engine: MemoryEngine,
  agentId: string,
  n: { title: string; content: string; ref: string | null; resolved: boolean },
): Promise<void> {
  const created = await engine.notes.create({
    agentId,
    title: n.title,
    content: n.content,
    linkedEntities: n.ref ? [{ type: 'contact', refId: n.ref }] : [],
  });
  if (n.resolved) await engine.notes.resolve({ agentId, id: created.id });
}

/** What agent `a` sees for a query (ids differ between the two files, so by text and score). */
async function view(engine: MemoryEngine, query: string) {
  const search = await engine.notes.search({ agentId: 'a', query, limit: 20 });
  const filtered = await engine.notes.search({ agentId: 'a', query, entity: { type: 'contact', refId: '1' } });
  const recall = await engine.recall({
    agentId: 'a',
    query,
    include: ['notes'],
    linkedEntities: [{ type: 'contact', refId: '2' }],
    limit: 20,
  });
  return {
    search: search.map((h) => [h.note.agentId, h.note.title, h.note.content, h.score]),
    filtered: filtered.map((h) => [h.note.title, h.note.content, h.score]),
    recall: recall.results.map((r) => [
      r.kind,
      r.kind === 'note' ? `${r.title}|${r.content}` : r.content,
      r.score,
      r.tier,
    ]),
  };
}

describe('notes are scope-pure (property)', () => {
  for (const embed of [false, true]) {
    it(`another agent's notes never change agent a's note search or recall (${embed ? 'with' : 'without'} vectors)`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(note, { minLength: 1, maxLength: 8 }),
          fc.array(note, { minLength: 1, maxLength: 12 }),
          fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }),
          fc.constantFrom(...WORDS),
          async (mine, theirs, interleave, query) => {
            const alone = await engineWith(embed);
            const shared = await engineWith(embed);
            try {
              for (const n of mine) await write(alone, 'a', n);
              // The same notes for `a`, with `b`'s interleaved.
              const queue = [...theirs];
              for (const [i, n] of mine.entries()) {
                const next = interleave[i] ? queue.shift() : undefined;
                if (next) await write(shared, 'b', next);
                await write(shared, 'a', n);
              }
              for (const n of queue) await write(shared, 'b', n);
              const expected = await view(alone, query);
              expect(await view(shared, query)).toEqual(expected);
            } finally {
              await alone.close();
              await shared.close();
            }
          },
        ),
        { numRuns: 15 },
      );
    }, 120_000);
  }
});
