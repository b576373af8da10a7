import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../src/index.js';
import { createTestEngine } from './helpers.js';
import { collect, records } from './support/fill-export-scope.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

let imports = 0;
/** Imports `lines` into `agentId` of `engine` and runs the job to its end. */
async function importInto(engine: MemoryEngine, dir: string, agentId: string, lines: readonly string[]) {
  const file = join(dir, `scope-${agentId}-${++imports}.jsonl`);
  writeFileSync(file, lines.join(''));
  const { jobId } = await engine.imports.start({ agentId, file });
  await engine.runDue();
  return { jobId, status: await engine.imports.status({ agentId, jobId }) };
}

describe('registry categories in export and import', () => {
  it('carries categories with their links and audit events; an import into a fresh file exports the same records', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'registry-export-'));
    dirs.push(dir);
    const { engine: source } = await createTestEngine();
    const finance = await source.registry.create({ agentId: 'a', name: 'Personal Finance', description: 'money' });
    const { id: memoryId } = await source.remember({ agentId: 'a', content: 'Quarterly tax estimate due on the 15th' });
    const note = await source.notes.create({ agentId: 'a', title: 'Budget', content: 'Review the budget' });
    await source.registry.link({ agentId: 'a', id: finance.id, object: { kind: 'memory', id: memoryId } });
    await source.registry.link({ agentId: 'a', id: finance.id, object: { kind: 'note', id: note.id } });
    await source.registry.link({
      agentId: 'a',
      id: finance.id,
      object: { kind: 'host', type: 'account', refId: 'chk-1' },
    });
    await source.registry.create({ agentId: 'someone-else', name: 'Not exported' });

    const exported = await collect(source.export({ agentId: 'a' }));
    const categories = records(exported).filter((r) => r['kind'] === 'category');
    expect(categories).toEqual([
      expect.objectContaining({
        id: finance.id,
        name: 'Personal Finance',
        description: 'money',
        links: [
          expect.objectContaining({ object_kind: 'host', host_type: 'account', object_ref: 'chk-1' }),
          expect.objectContaining({ object_kind: 'memory', object_ref: memoryId }),
          expect.objectContaining({ object_kind: 'note', object_ref: note.id }),
        ],
        events: [
          expect.objectContaining({ action: 'created' }),
          expect.objectContaining({ action: 'linked' }),
          expect.objectContaining({ action: 'linked' }),
          expect.objectContaining({ action: 'linked' }),
        ],
      }),
    ]);
    // The scope and rowids stay behind.
    expect(categories[0]).not.toHaveProperty('agent_id');
    const events = (categories[0]?.['events'] ?? []) as Array<Record<string, unknown>>;
    expect(events[0]).not.toHaveProperty('seq');
    expect(exported.join('')).not.toContain('Not exported');
    // Categories follow every object they link to.
    expect(records(exported).at(-2)?.['kind']).toBe('category');
    await source.close();

    const { engine: target } = await createTestEngine({ config: { imports: { allowedDirectories: [dir] } } });
    const { status } = await importInto(target, dir, 'a', exported);
    expect(status).toMatchObject({ status: 'completed', counters: { imported: exported.length, rejected: 0 } });
    expect(records(await collect(target.export({ agentId: 'a' })))).toEqual(records(exported));
    const detail = await target.registry.get({ agentId: 'a', id: finance.id });
    expect(detail).toMatchObject({ name: 'Personal Finance' });
    expect(
      (await target.registry.categoriesOf({ agentId: 'a', object: { kind: 'memory', id: memoryId } })).map((c) => c.id),
    ).toEqual([finance.id]);
    expect((await target.registry.history({ agentId: 'a', id: finance.id })).map((e) => e.action)).toEqual([
      'created',
      'linked',
      'linked',
      'linked',
    ]);

    // The same file again: every record but the header and footer is a duplicate, and no audit event is doubled.
    const again = await importInto(target, dir, 'a', exported);
    expect(again.status?.counters).toMatchObject({ imported: 2, duplicate: exported.length - 2, rejected: 0 });
    expect(await target.registry.history({ agentId: 'a', id: finance.id })).toHaveLength(4);

    // Another scope of this file cannot take the category's id.
    const other = await importInto(target, dir, 'other', exported);
    const rejected = await target.imports.records({ agentId: 'other', jobId: other.jobId, outcome: 'rejected' });
    expect(rejected.map((r) => r.reason)).toContain('id_conflict');
    expect(await target.registry.list({ agentId: 'other' })).toEqual([]);
    await target.close();
  });

  it('links into a same-named category of the target scope, and skips links to objects the scope does not hold', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'registry-export-'));
    dirs.push(dir);
    const { engine: source } = await createTestEngine();
    const category = await source.registry.create({ agentId: 'a', name: 'Acme renewal' });
    const { id: kept } = await source.remember({ agentId: 'a', content: 'Acme renewal is due in March' });
    const { id: dropped } = await source.remember({ agentId: 'a', content: 'Acme asked for a discount' });
    await source.registry.link({ agentId: 'a', id: category.id, object: { kind: 'memory', id: kept } });
    await source.registry.link({ agentId: 'a', id: category.id, object: { kind: 'memory', id: dropped } });
    const exported = await collect(source.export({ agentId: 'a' }));
    await source.close();
    // The file without the second memory's record: its link has nothing to point at.
    const partial = exported.filter((l) => !l.includes('"kind":"memory"') || !l.includes(dropped));

    const { engine: target } = await createTestEngine({ config: { imports: { allowedDirectories: [dir] } } });
    const existing = await target.registry.create({ agentId: 'b', name: 'ACME Renewal' });
    const { status } = await importInto(target, dir, 'b', partial);
    expect(status).toMatchObject({ status: 'completed', counters: { rejected: 0 } });
    expect((await target.registry.list({ agentId: 'b' })).map((c) => [c.id, c.objectCount])).toEqual([
      [existing.id, 1],
    ]);
    expect(
      (await target.registry.categoriesOf({ agentId: 'b', object: { kind: 'memory', id: kept } })).map((c) => c.id),
    ).toEqual([existing.id]);
    // The existing category's own history is not rewritten by the import.
    expect((await target.registry.history({ agentId: 'b', id: existing.id })).map((e) => e.action)).toEqual([
      'created',
    ]);
    await target.close();
  });

  it('reads a crafted category by the registry rules: the name form is recomputed, bad links reject the record, the cap holds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'registry-export-'));
    dirs.push(dir);
    const { engine } = await createTestEngine({ config: { imports: { allowedDirectories: [dir] } } });
    const finance = await engine.registry.create({ agentId: 'b', name: 'Finance' });
    const { id: memoryId } = await engine.remember({ agentId: 'b', content: 'Rent is due on the first' });
    const header = `${JSON.stringify({ kind: 'header', format: 'memory-export', version: 1, agentId: 'x', exportedAt: 1 })}\n`;
    const category = (n: number, extra: Record<string, unknown> = {}) =>
      `${JSON.stringify({
        kind: 'category',
        id: `0190c0de-0000-7000-8000-${String(n).padStart(12, '0')}`,
        name: `Area ${n}`,
        normalized_name: `area ${n}`,
        description: null,
        aliases_json: '[]',
        created_by: 'agent',
        created_at: 1,
        updated_at: 1,
        links: [],
        events: [],
        ...extra,
      })}\n`;
    const link = (kind: string, hostType: string, ref: string) => ({
      object_kind: kind,
      host_type: hostType,
      object_ref: ref,
      created_by: 'agent',
      created_at: 1,
    });

    // A file's normalized_name is never trusted: "Finance" under a made-up comparison form, with an
    // alias that is another category's name, lands in the existing Finance category.
    const crafted = [
      header,
      category(1, {
        name: 'Finance',
        normalized_name: 'zz crafted',
        aliases_json: '["finance"]',
        links: [link('memory', '', memoryId)],
      }),
      // A memory link with a host type (unremovable through the API) and an empty host reference.
      category(2, { links: [link('memory', 'x', memoryId)] }),
      category(3, { links: [link('host', '', '')] }),
      // A name registry.create refuses (no letter or digit).
      category(4, { name: '!!!' }),
    ];
    const first = await importInto(engine, dir, 'b', crafted);
    const rejected = await engine.imports.records({ agentId: 'b', jobId: first.jobId, outcome: 'rejected' });
    expect(rejected.map((r) => r.reason)).toEqual(['schema_violation', 'schema_violation', 'schema_violation']);
    expect((await engine.registry.list({ agentId: 'b' })).map((c) => [c.name, c.aliases, c.objectCount])).toEqual([
      ['Finance', [], 1],
    ]);
    expect(
      (await engine.registry.categoriesOf({ agentId: 'b', object: { kind: 'memory', id: memoryId } })).map((c) => c.id),
    ).toEqual([finance.id]);

    // The per-agent cap (1,000) holds for imports: the scope has one category, so 999 more fit.
    const many = [header, ...Array.from({ length: 1000 }, (_, i) => category(100 + i))];
    const capped = await importInto(engine, dir, 'b', many);
    expect(capped.status?.counters).toMatchObject({ rejected: 1 });
    const over = await engine.imports.records({ agentId: 'b', jobId: capped.jobId, outcome: 'rejected' });
    expect(over.map((r) => r.reason)).toEqual(['limit_reached']);
    expect(await engine.registry.list({ agentId: 'b', limit: 1000 })).toHaveLength(1000);
    await engine.close();
  });
});
