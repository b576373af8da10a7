import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ERASE_STEPS } from '@memory/store';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder, createTestEngine } from './helpers.js';

type Db = InstanceType<typeof Database>;
const root = join(import.meta.dirname, '..', '..', '..');
const child = join(import.meta.dirname, 'fixtures', 'erase-child.ts');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

/** Rows of the scope per table, as the erase selects them. */
function scopeRows(db: Db, agentId: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const step of ERASE_STEPS) {
    const params = Array.from({ length: step.where.split('?').length - 1 }, () => agentId);
    const n = (
      db.prepare(`SELECT count(*) AS n FROM ${step.table} WHERE ${step.where}`).get(...params) as { n: number }
    ).n;
    if (n > 0) out[step.table] = n;
  }
  return out;
}

/** Tables of the migrated file that have an `agent_id` column. */
function tablesWithAgent(db: Db): string[] {
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_%'",
    )
    .all() as Array<{ name: string }>;
  return tables
    .map((t) => t.name)
    .filter((name) =>
      (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(name) as Array<{ name: string }>).some(
        (c) => c.name === 'agent_id',
      ),
    )
    .sort();
}

/** Fills two scopes with a bit of everything: memories (vectors, links), history, transcripts, documents, graph, telemetry. */
async function seed(engine: Awaited<ReturnType<typeof createTestEngine>>['engine'], agentId: string, memories: number) {
  const batch = Array.from({ length: memories }, (_, i) => ({
    content: `${agentId} fact number ${i} about the quarterly plan`,
    tags: ['plan'],
    linkedEntities: [{ type: 'contact', refId: String(i % 7) }],
  }));
  const ids = await engine.rememberMany({ agentId, memories: batch });
  const first = ids[0]?.id ?? '';
  await engine.modify({ agentId, id: first, reason: 'edit', content: `${agentId} edited fact about the plan` });
  await engine.forget({ agentId, id: ids[1]?.id ?? '', reason: 'gone' });
  await engine.transcripts.append({
    agentId,
    sessionKey: 'chat',
    turns: [
      { role: 'user', content: `${agentId} asks about Project Atlas` },
      { role: 'assistant', content: 'Atlas ships in March' },
    ],
  });
  await engine.transcripts.complete({ agentId, sessionKey: 'chat' });
  await engine.dreaming.apply({
    agentId,
    operations: [
      {
        operation: 'create_entity',
        payload: { name: 'Project Atlas' },
        evidence: [{ sourceRef: 'transcript:chat', quote: 'Project Atlas' }],
      },
    ],
  });
  await engine.documents.add({ agentId, content: `${agentId} document body about the plan`, title: 'Doc' });
  await engine.runDue();
  await engine.recall({ agentId, query: 'quarterly plan' });
  // Recall writes its telemetry on the next scheduler turn.
  await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('engine.erase', () => {
  it('removes a whole scope from every table that holds one, with counts per table, and leaves other scopes alone', async () => {
    const db = new Database(':memory:');
    const { engine } = await createTestEngine({
      database: { database: db },
      embedder: createBagOfWordsEmbedder(),
      config: { telemetry: { recallQa: true } },
    });
    // Every table with an agent_id column is one the erase empties (the list cannot fall behind the schema).
    const covered = new Set(ERASE_STEPS.map((s) => s.table));
    expect(tablesWithAgent(db).filter((t) => !covered.has(t) && t !== 'scope_erasures')).toEqual([]);

    await seed(engine, 'gone', 30);
    await seed(engine, 'kept', 10);
    const before = scopeRows(db, 'gone');
    const kept = scopeRows(db, 'kept');
    expect(before).toMatchObject({
      // 30 remembered, and the document's one chunk.
      memories: 31,
      embeddings: expect.any(Number),
      memory_history: expect.any(Number),
      memories_cold: 1,
      memory_links: 30,
      session_transcripts: 1,
      session_transcript_turns: 2,
      entities: 1,
      documents: 1,
      document_memories: 1,
      recall_telemetry: 1,
    });
    const result = await engine.erase({ agentId: 'gone' });
    expect(result).toMatchObject({ agentId: 'gone', counts: before, resumed: false });
    expect(result.total).toBe(Object.values(before).reduce((a, b) => a + b, 0));
    expect(scopeRows(db, 'gone')).toEqual({});
    expect(scopeRows(db, 'kept')).toEqual(kept);
    // The vector index holds the other scope's vectors only.
    expect(
      (db.prepare("SELECT count(*) AS n FROM vector_partitions WHERE agent_id = 'gone'").get() as { n: number }).n,
    ).toBe(0);
    expect((await engine.list({ agentId: 'gone', includeForgotten: true })).memories).toEqual([]);
    expect((await engine.recall({ agentId: 'gone', query: 'quarterly plan' })).results).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Erasing again removes only what was written since (this recall's telemetry row).
    expect((await engine.erase({ agentId: 'gone' })).counts).toEqual({ recall_telemetry: 1 });
    expect((await engine.recall({ agentId: 'kept', query: 'quarterly plan' })).results.length).toBeGreaterThan(0);
    await engine.close();
  });

  it('resumes after its process is killed mid-erase, and reports every row of both runs exactly once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-erase-crash-'));
    dirs.push(dir);
    const path = join(dir, 'memory.db');
    const { engine } = await createTestEngine({ database: { path }, embedder: createBagOfWordsEmbedder() });
    await seed(engine, 'gone', 4000);
    await seed(engine, 'kept', 20);
    await engine.close();
    const reader = new Database(path, { readonly: true });
    const before = scopeRows(reader, 'gone');
    const kept = scopeRows(reader, 'kept');

    // Kill the child once it has committed some batches but not all.
    const killedAt = await new Promise<number>((resolve, reject) => {
      const proc = spawn(process.execPath, ['--conditions=@memory/source', '--import', 'tsx', child, path, 'gone'], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let errors = '';
      proc.stderr.on('data', (d: Buffer) => {
        errors += d.toString();
      });
      const timer = setInterval(() => {
        const row = reader.prepare("SELECT counts_json FROM scope_erasures WHERE agent_id = 'gone'").get() as
          | { counts_json: string }
          | undefined;
        const removed = row
          ? Object.values(JSON.parse(row.counts_json) as Record<string, number>).reduce((a, b) => a + b, 0)
          : 0;
        if (removed >= 1500) {
          clearInterval(timer);
          proc.kill('SIGKILL');
          resolve(removed);
        }
      }, 1);
      proc.on('exit', (code, signal) => {
        clearInterval(timer);
        if (signal !== 'SIGKILL') reject(new Error(`child exited (${code}) before it was killed: ${errors}`));
      });
    });
    expect(killedAt).toBeGreaterThanOrEqual(1500);
    const partial = reader.prepare("SELECT status FROM scope_erasures WHERE agent_id = 'gone'").get() as {
      status: string;
    };
    expect(partial.status).toBe('running');
    reader.close();

    const { engine: again } = await createTestEngine({ database: { path } });
    const result = await again.erase({ agentId: 'gone' });
    expect(result.resumed).toBe(true);
    expect(result.counts).toEqual(before);
    await again.close();
    const after = new Database(path, { readonly: true });
    expect(scopeRows(after, 'gone')).toEqual({});
    expect(scopeRows(after, 'kept')).toEqual(kept);
    after.close();
  }, 180_000);
});
