import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryEngine } from '../src/index.js';
import { createTestEngine } from './helpers.js';
import { collect, createExportNotes, records } from './support/fill-export-scope.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

describe('notes in export and erase', () => {
  it('exports notes with their events; an import into a fresh file gives the same records and working notes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'notes-export-'));
    dirs.push(dir);
    const { engine: source } = await createTestEngine();
    const { renewal: a } = await createExportNotes(source, 'a');
    await source.notes.create({ agentId: 'someone-else', title: 'Not exported', content: 'not exported' });
    const exported = await collect(source.export({ agentId: 'a' }));
    const notes = records(exported).filter((r) => r['kind'] === 'note');
    expect(notes).toHaveLength(2);
    expect(notes.find((n) => n['id'] === a.id)).toMatchObject({
      title: 'Call Alice',
      status: 'active',
      tags: '["sales"]',
      events: [
        expect.objectContaining({ event: 'created' }),
        expect.objectContaining({ event: 'updated', reason: 'sent' }),
      ],
    });
    expect(exported.join('')).not.toContain('not exported');
    await source.close();

    const file = join(dir, 'scope.jsonl');
    writeFileSync(file, exported.join(''));
    const { engine: target } = await createTestEngine({ config: { imports: { allowedDirectories: [dir] } } });
    const { jobId } = await target.imports.start({ agentId: 'a', file });
    await target.runDue();
    expect(await target.imports.status({ agentId: 'a', jobId })).toMatchObject({
      status: 'completed',
      counters: { imported: exported.length, rejected: 0 },
    });
    expect(records(await collect(target.export({ agentId: 'a' })))).toEqual(records(exported));
    // The imported notes work: entity lookup (links rebuilt), text search (index filled), history.
    const linked = await target.notes.list({ agentId: 'a', entity: { type: 'contact', refId: '42' } });
    expect(linked.items.map((n) => n.id)).toEqual([a.id]);
    expect((await target.notes.search({ agentId: 'a', query: 'trainer' })).map((h) => h.note.title)).toEqual([
      'Book gym',
    ]);
    expect((await target.notes.history({ agentId: 'a', id: a.id })).map((e) => e.event)).toEqual([
      'created',
      'updated',
    ]);
    // Another scope of this file cannot take the same note ids.
    const other = await target.imports.start({ agentId: 'other', file });
    await target.runDue();
    const rejected = await target.imports.records({ agentId: 'other', jobId: other.jobId, outcome: 'rejected' });
    expect(rejected.filter((r) => r.reason === 'id_conflict').length).toBe(2);
    expect((await target.notes.list({ agentId: 'other' })).items).toEqual([]);
    await target.close();
  });

  it('erase removes every note row of the scope (text index counts too) and leaves other scopes alone', async () => {
    const database = new Database(':memory:');
    const engine = await createMemoryEngine({ database: { database } });
    await createExportNotes(engine, 'a');
    await createExportNotes(engine, 'b');
    const result = await engine.erase({ agentId: 'a' });
    expect(result.counts).toMatchObject({ notes: 2, note_events: 4, note_links: 1, note_text_scopes: 1 });
    const count = (sql: string, ...params: unknown[]) => (database.prepare(sql).get(...params) as { n: number }).n;
    for (const table of ['notes', 'note_events', 'note_links', 'note_vectors', 'note_text_scopes'])
      expect(count(`SELECT count(*) AS n FROM ${table} WHERE agent_id = 'a'`), table).toBe(0);
    expect(count("SELECT count(*) AS n FROM notes WHERE agent_id = 'b'")).toBe(2);
    // No postings are left without a scope.
    expect(
      count('SELECT count(*) AS n FROM note_text_postings WHERE scope NOT IN (SELECT scope FROM note_text_scopes)'),
    ).toBe(0);
    expect((await engine.notes.search({ agentId: 'b', query: 'renewal' })).length).toBe(1);
    await engine.close();
  });
});
