import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSequentialIds } from '@memory/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { checkMemoryTextIndex } from '../../store/test/support/text-index.js';
import { createBagOfWordsEmbedder, createTestEngine } from './helpers.js';

// On SQLite every writer program runs with the memory text index's insert trigger idle
// (`runWriterProgram`): the writer indexes the memories it creates itself. This holds only while
// every insert inside such a program goes through the writer, and while inserts outside the writer
// (a scope import) run with the trigger on. Every path that inserts memories is taken here, and the
// index must equal the one recomputed from the rows: a memory indexed twice (no deferral) or not at
// all (a deferred insert the writer did not index) fails it.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

describe('the memory text index after every path that writes memories (SQLite)', () => {
  it('equals the index recomputed from the live rows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-text-index-'));
    dirs.push(dir);
    const db = new Database(':memory:');
    const { engine } = await createTestEngine({
      database: { database: db },
      embedder: createBagOfWordsEmbedder(),
      config: { imports: { allowedDirectories: [dir] }, remember: { conflict: { threshold: 0.5 } } },
    });
    const tea = await engine.remember({ agentId: 'a', content: 'Alice drinks green tea every morning.' });
    await engine.rememberMany({
      agentId: 'a',
      memories: [
        { content: 'The deploy window is Tuesday at noon.', type: 'decision' },
        { content: 'Lunch is at noon.' },
        { content: 'Lunch is at noon.' },
      ],
    });
    // Conflict detection updates the decision in place.
    await engine.remember({ agentId: 'a', content: 'The deploy window is Tuesday at 14:00.', type: 'decision' });
    const kettle = await engine.remember({ agentId: 'a', content: 'The kettle is blue.' });
    await engine.modify({ agentId: 'a', id: kettle.id, content: 'The kettle is red.', reason: 'repainted' });
    await engine.forget({ agentId: 'a', id: kettle.id, reason: 'gone' });
    await engine.recover({ agentId: 'a', id: kettle.id });
    // Document chunks (the ingest job), then a conversion that retires them.
    const doc = await engine.documents.add({
      agentId: 'a',
      content: '# Ice\n\nGlaciers carve valleys.\n',
      path: 'ice.md',
    });
    await engine.runDue();
    await engine.documents.add({ agentId: 'a', content: '# Fire\n\nVolcanoes build islands.\n', path: 'ice.md' });
    await engine.runDue();
    // Dreaming's seam.
    const applied = await engine.dreaming.apply({
      agentId: 'a',
      operations: [
        {
          operation: 'remember_memory',
          payload: { content: 'Alice prefers green tea.', type: 'preference' },
          evidence: [{ sourceRef: `memory:${tea.id}`, quote: 'Alice drinks green tea' }],
        },
      ],
    });
    expect(applied.applied).toHaveLength(1);
    // A registry category's cascade forgets its memory.
    const boiler = await engine.remember({ agentId: 'a', content: 'The boiler is serviced in May.' });
    const category = await engine.registry.create({ agentId: 'a', name: 'Home' });
    await engine.registry.link({ agentId: 'a', id: category.id, object: { kind: 'memory', id: boiler.id } });
    await engine.registry.delete({ agentId: 'a', id: category.id });
    expect((await engine.documents.get({ agentId: 'a', id: doc.id }))?.conversion).toBe(2);

    // A scope import inserts rows outside the writer: the trigger indexes those.
    const { engine: source } = await createTestEngine({ ids: createSequentialIds('src') });
    await source.remember({ agentId: 'x', content: 'Imported memories are indexed by the trigger.' });
    await source.remember({ agentId: 'x', content: 'A second imported memory about harbours.' });
    const file = join(dir, 'scope.jsonl');
    writeFileSync(file, (await collect(source.export({ agentId: 'x' }))).join(''));
    await source.close();
    await engine.imports.start({ agentId: 'b', file });
    await engine.runDue();
    expect((await engine.list({ agentId: 'b' })).memories).toHaveLength(2);

    const { actual, expected } = checkMemoryTextIndex(db);
    expect(Object.keys(expected.scopes).sort()).toEqual(['a', 'b']);
    expect(actual).toEqual(expected);
    await engine.close();
  });
});
