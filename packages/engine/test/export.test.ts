import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder, createTestEngine } from './helpers.js';
import { collect, fillExportScope, records } from './support/fill-export-scope.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

describe('engine.export and its import', () => {
  it('round-trips a scope: export → import into a fresh file → export again gives the same records', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-export-'));
    dirs.push(dir);
    const { engine: source, clock } = await createTestEngine({ embedder: createBagOfWordsEmbedder() });
    await fillExportScope(source, () => clock.advance(60_000));
    const exported = await collect(source.export({ agentId: 'a' }));
    const kinds = records(exported).map((r) => r['kind']);
    expect(kinds[0]).toBe('header');
    expect(kinds.at(-1)).toBe('footer');
    expect(kinds.filter((k) => k === 'entity')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'link')).toHaveLength(1);
    // The standup memory, the forgotten one, tea, Bob's and the document's chunk.
    expect(kinds.filter((k) => k === 'memory')).toHaveLength(5);
    expect(kinds.filter((k) => k === 'transcript')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'document')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'note')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'category')).toHaveLength(1);
    expect(exported.join('')).not.toContain('not exported');
    const memory = records(exported).find((r) => r['kind'] === 'memory' && String(r['content']).includes('10:30'));
    expect(memory).toMatchObject({
      tags: '["team"]',
      history: [
        expect.objectContaining({ event: 'created', new_content: 'Project Atlas standup moved to 10:00' }),
        expect.objectContaining({ event: 'updated', old_content: 'Project Atlas standup moved to 10:00' }),
      ],
      mentions: [
        expect.objectContaining({ entity_id: expect.any(String), mention_text: expect.stringContaining('Atlas') }),
      ],
    });
    await source.close();

    const file = join(dir, 'scope.jsonl');
    writeFileSync(file, exported.join(''));
    const { engine: target } = await createTestEngine({
      embedder: createBagOfWordsEmbedder(),
      config: { imports: { allowedDirectories: [dir] } },
    });
    const { jobId } = await target.imports.start({ agentId: 'a', file });
    await target.runDue();
    const status = await target.imports.status({ agentId: 'a', jobId });
    expect(status).toMatchObject({
      status: 'completed',
      counters: { total: exported.length, imported: exported.length, duplicate: 0, rejected: 0, pending: 0 },
    });
    const again = await collect(target.export({ agentId: 'a' }));
    expect(records(again)).toEqual(records(exported));

    // The imported scope works: recall finds memories (the fill-in job embedded them), the graph reads.
    // Diagnostics show the embedding fill-in's progress: the live imported memories (all five but the
    // forgotten one) have no vector yet.
    expect((await target.diagnostics()).maintenance.vectorsMissing).toBe(4);
    await target.runDue();
    expect((await target.diagnostics()).maintenance.vectorsMissing).toBe(0);
    expect((await target.health({ agentId: 'a' })).vectors).toMatchObject({ missing: 0, current: 4 });
    const recalled = await target.recall({ agentId: 'a', query: 'Atlas standup' });
    expect(recalled.results[0]?.content).toBe('Project Atlas standup moved to 10:30');

    // The same file again: every record a duplicate. Into another scope of this file: ids are taken.
    const replay = await target.imports.start({ agentId: 'a', file });
    await target.runDue();
    expect((await target.imports.status({ agentId: 'a', jobId: replay.jobId }))?.counters).toMatchObject({
      imported: 2, // header and footer
      duplicate: exported.length - 2,
    });
    const other = await target.imports.start({ agentId: 'other', file });
    await target.runDue();
    const rejected = await target.imports.records({ agentId: 'other', jobId: other.jobId, outcome: 'rejected' });
    expect(rejected.length).toBe(exported.length - 3); // all but header, footer and the transcript
    expect(rejected.every((r) => r.reason === 'id_conflict')).toBe(true);
    await target.close();
  });

  it('rejects lines it cannot read one by one, and an unknown version', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-export-bad-'));
    dirs.push(dir);
    const file = join(dir, 'bad.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ kind: 'header', format: 'memory-export', version: 2 }),
        JSON.stringify({ kind: 'memory', id: 'm1', content: 'x', history: [], mentions: [], nested: { no: 1 } }),
        JSON.stringify({ kind: 'memory', id: 'm2', content: 'fine', history: [], mentions: [], not_a_column: 1 }),
        JSON.stringify({
          kind: 'memory',
          id: 'm3',
          content: 'a good one',
          type: 'fact',
          history: [],
          mentions: [],
          created_at: 1,
          updated_at: 1,
        }),
      ].join('\n'),
    );
    const { engine } = await createTestEngine({ config: { imports: { allowedDirectories: [dir] } } });
    const { jobId } = await engine.imports.start({ agentId: 'a', file });
    await engine.runDue();
    const outcomes = await engine.imports.records({ agentId: 'a', jobId });
    expect(outcomes.map((r) => [r.outcome, r.reason])).toEqual([
      ['rejected', 'unsupported_version'],
      ['rejected', 'schema_violation'],
      ['rejected', 'schema_violation'],
      ['imported', null],
    ]);
    expect((await engine.getMemory({ agentId: 'a', id: 'm3' }))?.content).toBe('a good one');
    await engine.close();
  });
});
