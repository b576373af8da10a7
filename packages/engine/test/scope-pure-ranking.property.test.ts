import { createManualClock, createSequentialIds } from '@memory/core';
import { createHashingEmbedder } from '@memory/providers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryEngine, type MemoryEngine } from '../src/index.js';
import { T0 } from './helpers.js';

// Scope-pure ranking (issue 12): an agent's results and scores are the same whether or not other
// agents' data share the file. FTS5's bm25() took its statistics from the whole file, so one turn
// written by another agent was enough to move an agent's scores.

const WORDS = [
  'atlas',
  'budget',
  'launch',
  'tea',
  'dana',
  'invoice',
  'march',
  'vendor',
  'painting',
  'paints',
  'garden',
];
const sentence = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
const item = fc.record({ text: sentence, turn: fc.boolean(), hoursAgo: fc.nat(48) });

async function engineWith(embed: boolean): Promise<MemoryEngine> {
  return createMemoryEngine({
    database: { path: ':memory:' },
    clock: createManualClock(T0),
    ids: createSequentialIds('id'),
    ...(embed ? { embedder: createHashingEmbedder({ dimensions: 32 }) } : {}),
    config: { recall: { searchWindowDays: null } },
  });
}

/** Writes one item into `agentId`'s scope: a memory, or a transcript turn (session per agent). */
async function write(
  engine: MemoryEngine,
  agentId: string,
  it: { text: string; turn: boolean; hoursAgo: number },
  i: number,
) {
  if (it.turn)
    await engine.transcripts.append({
      agentId,
      sessionKey: 's',
      turns: [{ role: 'user', content: `${it.text} #${i}` }],
    });
  // With a source type, so neighbouring-turn context runs, and must skip other agents' rows between.
  else
    await engine.remember({
      agentId,
      content: `${it.text} #${i}`,
      createdAt: T0 - it.hoursAgo * 3_600_000,
      source: { type: 'chat', id: String(i) },
    });
}

/** What agent `a` sees for a query: contents and scores in order (ids differ between the two files). */
async function view(engine: MemoryEngine, query: string) {
  const recall = await engine.recall({ agentId: 'a', query, limit: 50 });
  const turns = await engine.transcripts.search({ agentId: 'a', query, completedOnly: false, limit: 50 });
  return {
    recall: recall.results.map((r) => [r.content, r.score, r.channels.lexical ?? null]),
    turns: turns.map((t) => [t.content, t.score]),
  };
}

describe('scope-pure ranking (property)', () => {
  it.each([false, true])(
    'an agent’s recall and transcript search are identical with and without other agents in the file (embedder: %s)',
    async (embed) => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(item, { minLength: 1, maxLength: 25 }),
          fc.array(fc.record({ agent: fc.constantFrom('b', 'c'), item, before: fc.nat(25) }), {
            minLength: 1,
            maxLength: 25,
          }),
          fc.array(sentence, { minLength: 1, maxLength: 4 }),
          async (own, others, queries) => {
            const alone = await engineWith(embed);
            const shared = await engineWith(embed);
            for (const [i, it] of own.entries()) await write(alone, 'a', it, i);
            // The same writes for `a`, in the same order, with other agents' writes in between.
            for (const [i, it] of own.entries()) {
              for (const [j, o] of others.entries()) if (o.before === i) await write(shared, o.agent, o.item, 1000 + j);
              await write(shared, 'a', it, i);
            }
            for (const [j, o] of others.entries())
              if (o.before >= own.length) await write(shared, o.agent, o.item, 1000 + j);
            for (const query of queries) expect(await view(shared, query)).toEqual(await view(alone, query));
            await alone.close();
            await shared.close();
          },
        ),
        { numRuns: 25 },
      );
    },
  );

  it('one word written by another agent does not move an agent’s scores', async () => {
    const engine = await engineWith(false);
    await engine.remember({ agentId: 'a', content: 'tea with dana in march' });
    await engine.remember({ agentId: 'a', content: 'tea budget' });
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 's',
      turns: [{ role: 'user', content: 'tea with dana' }],
    });
    const before = await view(engine, 'tea dana');
    await engine.remember({ agentId: 'b', content: 'dana' });
    await engine.transcripts.append({ agentId: 'b', sessionKey: 's', turns: [{ role: 'user', content: 'dana dana' }] });
    expect(await view(engine, 'tea dana')).toEqual(before);
    await engine.close();
  });
});
