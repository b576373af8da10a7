import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSequentialIds, type EmbedOptions } from '@memory/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { MemoryEngine, MemoryEngineOptions } from '../src/index.js';
import { createBagOfWordsEmbedder, createTestEngine } from './helpers.js';

const root = join(import.meta.dirname, '..', '..', '..');
const child = join(import.meta.dirname, 'fixtures', 'reembed-child.ts');
const HOUR_MS = 3_600_000;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'memory-reembed-'));
  dirs.push(dir);
  return join(dir, 'memory.db');
}

const TOPICS = ['tea', 'coffee', 'trains', 'rivers', 'chess', 'violins', 'glaciers', 'lanterns', 'comets', 'orchards'];
const contentOf = (scope: string, i: number) =>
  `${scope} note ${i}: the ${TOPICS[i % TOPICS.length]} ledger entry number ${i} for ${scope}`;

async function seed(engine: MemoryEngine, agentId: string, n: number): Promise<void> {
  await engine.rememberMany({
    agentId,
    memories: Array.from({ length: n }, (_, i) => ({ content: contentOf(agentId, i) })),
  });
}

/** A logger that keeps warnings: a provider called inside a write transaction shows up as one. */
function warnings() {
  const seen: string[] = [];
  const logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message: string) => void seen.push(message),
    error: (message: string) => void seen.push(message),
  };
  return { seen, logger };
}

let opens = 0;
/** Each open gets its own id prefix: sequential ids restart per engine, the file keeps the last ones. */
function open(path: string, overrides: Partial<MemoryEngineOptions>) {
  opens++;
  return createTestEngine({ database: { path }, ids: createSequentialIds(`o${opens}-`), ...overrides });
}

function rows(path: string, query: string): unknown[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(query).all();
  } finally {
    db.close();
  }
}

describe('embedding migration', () => {
  it('records a change of model, reports partial coverage with counts, never mixes the two models, and re-embeds in bounded batches outside transactions', async () => {
    const path = tempPath();
    const a = createBagOfWordsEmbedder(64, 'bow-a');
    const first = await open(path, { embedder: a });
    await seed(first.engine, 'a', 30);
    await seed(first.engine, 'b', 5);
    expect((await first.engine.recall({ agentId: 'a', query: 'tea ledger' })).vectorCompleteness).toBe('exact');
    await first.engine.close();

    // The new model fails after two calls: the run stops part-way, as an outage would.
    const b = createBagOfWordsEmbedder(32, 'bow-b');
    const sizes: number[] = [];
    let failAfter = 2;
    const flaky = {
      model: b.model,
      dimensions: b.dimensions,
      embed: async (texts: readonly string[], options?: EmbedOptions) => {
        // Recall's query embeddings always work; the migration's calls fail after two.
        if (options?.purpose === 'index') {
          if (failAfter-- <= 0) throw new Error('provider down');
          sizes.push(texts.length);
        }
        return b.embed(texts);
      },
    };
    const { seen, logger } = warnings();
    const second = await open(path, { embedder: flaky, logger, config: { vectors: { fillBatchSize: 4 } } });
    const engine = second.engine;
    const before = await engine.recall({ agentId: 'a', query: 'tea ledger' });
    expect(before.vectorCompleteness).toBe('partial');
    expect(before.vectorCoverage).toEqual({ embedded: 0, total: 30 });
    // No old-model vector was compared with the new model's query.
    expect(before.results.every((r) => r.channels.semantic === undefined)).toBe(true);
    expect((await engine.health({ agentId: 'a' })).vectors).toEqual({
      model: 'bow-b',
      current: 0,
      missing: 0,
      otherModel: 30,
    });
    const diag = (await engine.diagnostics()).maintenance.embedding;
    expect(diag).toMatchObject({ model: 'bow-b', vectorKey: 'bow-b', embedded: 0, total: 35, requested: [] });
    expect(diag?.lastChange).toMatchObject({ fromKey: 'bow-a', toKey: 'bow-b', finishedAt: null });

    await engine.runDue();
    // Two batches of four went through before the outage; the rest waits for the next run.
    expect(sizes).toEqual([4, 4]);
    const mid = await engine.recall({ agentId: 'a', query: 'tea ledger', limit: 30, explain: true });
    const embedded = mid.vectorCoverage?.embedded ?? 0;
    expect(mid.vectorCompleteness).toBe('partial');
    expect(embedded).toBeGreaterThan(0);
    expect(embedded).toBeLessThan(30);
    const onNew = new Set(
      (
        rows(path, "SELECT id FROM memories WHERE agent_id = 'a' AND embedding_model = 'bow-b'") as Array<{
          id: string;
        }>
      ).map((r) => r.id),
    );
    expect(onNew.size).toBe(embedded);
    for (const r of mid.results) expect(r.channels.semantic !== undefined).toBe(onNew.has(r.id));

    failAfter = Number.POSITIVE_INFINITY;
    await engine.runDue();
    expect(sizes.every((n) => n <= 4)).toBe(true);
    const after = await engine.recall({ agentId: 'a', query: 'tea ledger' });
    expect(after.vectorCompleteness).toBe('exact');
    expect(after.vectorCoverage).toEqual({ embedded: 30, total: 30 });
    expect(after.results[0]?.channels.semantic).toBeGreaterThan(0);
    const done = (await engine.diagnostics()).maintenance.embedding;
    expect(done).toMatchObject({ embedded: 35, total: 35 });
    expect(done?.lastChange?.finishedAt).not.toBeNull();
    // The old model's vectors went as each memory got its new one; no provider call hit a transaction.
    expect(rows(path, 'SELECT model, dimensions, count(*) AS n FROM embeddings GROUP BY model, dimensions')).toEqual([
      { model: 'bow-b', dimensions: 32, n: 35 },
    ]);
    expect(seen.filter((m) => !m.includes('embedding failed'))).toEqual([]);
    expect(seen.filter((m) => m.includes('embedding failed'))).toHaveLength(1);
    await engine.close();
  });

  it('keeps vectors of one model name under two dimensions apart, and finds its own again when switched back', async () => {
    const path = tempPath();
    const first = await open(path, { embedder: createBagOfWordsEmbedder(64, 'bow') });
    await seed(first.engine, 'a', 12);
    await first.engine.close();

    const second = await open(path, { embedder: createBagOfWordsEmbedder(32, 'bow') });
    const partial = await second.engine.recall({ agentId: 'a', query: 'tea ledger' });
    expect(partial).toMatchObject({ vectorCompleteness: 'partial', vectorCoverage: { embedded: 0, total: 12 } });
    expect((await second.engine.diagnostics()).maintenance.embedding).toMatchObject({
      vectorKey: 'bow#32',
      lastChange: { fromKey: 'bow', toKey: 'bow#32' },
    });
    await second.engine.runDue();
    expect((await second.engine.recall({ agentId: 'a', query: 'tea ledger' })).vectorCompleteness).toBe('exact');
    expect(rows(path, 'SELECT DISTINCT model, dimensions FROM embeddings')).toEqual([
      { model: 'bow#32', dimensions: 32 },
    ]);
    await second.engine.close();

    // Back to 64 dimensions: the first key again, a change recorded, every memory re-embedded.
    const third = await open(path, { embedder: createBagOfWordsEmbedder(64, 'bow') });
    expect((await third.engine.diagnostics()).maintenance.embedding).toMatchObject({
      vectorKey: 'bow',
      lastChange: { fromKey: 'bow#32', toKey: 'bow' },
      embedded: 0,
    });
    await third.engine.runDue();
    expect((await third.engine.recall({ agentId: 'a', query: 'tea ledger' })).vectorCoverage).toEqual({
      embedded: 12,
      total: 12,
    });
    await third.engine.close();
  });

  it('a pinned embedder refuses to open with another model before anything is written', async () => {
    const path = tempPath();
    const pinned = { vectors: { pinnedEmbedder: { model: 'bow-a' } } };
    const first = await open(path, { embedder: createBagOfWordsEmbedder(64, 'bow-a'), config: pinned });
    await seed(first.engine, 'a', 5);
    await first.engine.close();
    const identities = rows(path, 'SELECT vector_key, model, dimensions FROM embedder_identities');

    await expect(open(path, { embedder: createBagOfWordsEmbedder(32, 'bow-b'), config: pinned })).rejects.toMatchObject(
      { code: 'INVALID_CONFIG' },
    );
    const dims = { vectors: { pinnedEmbedder: { model: 'bow-a', dimensions: 64 } } };
    await expect(open(path, { embedder: createBagOfWordsEmbedder(32, 'bow-a'), config: dims })).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
    });
    expect(rows(path, 'SELECT vector_key, model, dimensions FROM embedder_identities')).toEqual(identities);
    expect(rows(path, 'SELECT * FROM embedding_migrations')).toEqual([]);

    // The pinned model opens, and recall still searches every vector.
    const again = await open(path, { embedder: createBagOfWordsEmbedder(64, 'bow-a'), config: dims });
    expect((await again.engine.recall({ agentId: 'a', query: 'tea ledger' })).vectorCompleteness).toBe('exact');
    await again.engine.close();
  });

  it("with reembed 'manual', re-embeds only what maintenance.reembed asks for, per scope, then everything", async () => {
    const path = tempPath();
    const first = await open(path, { embedder: createBagOfWordsEmbedder(64, 'bow-a') });
    await seed(first.engine, 'a', 10);
    await seed(first.engine, 'b', 6);
    await first.engine.close();

    const { engine } = await open(path, {
      embedder: createBagOfWordsEmbedder(32, 'bow-b'),
      config: { vectors: { reembed: 'manual' } },
    });
    await engine.remember({ agentId: 'a', content: 'a new note about kestrels' });
    await engine.runDue();
    // Nothing re-embedded on its own; the new memory has the new model's vector.
    expect((await engine.recall({ agentId: 'a', query: 'kestrels' })).vectorCoverage).toEqual({
      embedded: 1,
      total: 11,
    });
    expect(await engine.maintenance.reembed({ agentId: 'a' })).toEqual({ agentId: 'a', remaining: 10, queued: true });
    expect((await engine.diagnostics()).maintenance.embedding?.requested).toEqual(['a']);
    await engine.runDue();
    expect((await engine.recall({ agentId: 'a', query: 'tea ledger' })).vectorCompleteness).toBe('exact');
    expect((await engine.recall({ agentId: 'b', query: 'tea ledger' })).vectorCoverage).toEqual({
      embedded: 0,
      total: 6,
    });
    // A scope's request is cleared once done; the migration is not finished while b waits.
    const status = (await engine.diagnostics()).maintenance.embedding;
    expect(status?.requested).toEqual([]);
    expect(status?.lastChange?.finishedAt).toBeNull();

    expect(await engine.maintenance.reembed({ agentId: 'a' })).toEqual({ agentId: 'a', remaining: 0, queued: false });
    expect(await engine.maintenance.reembed()).toEqual({ remaining: 6, queued: true });
    await engine.runDue();
    expect((await engine.recall({ agentId: 'b', query: 'tea ledger' })).vectorCompleteness).toBe('exact');
    expect((await engine.diagnostics()).maintenance.embedding?.lastChange?.finishedAt).not.toBeNull();
    await engine.close();
  });

  it('maintenance.reembed without an embedder is refused', async () => {
    const { engine } = await createTestEngine();
    await expect(engine.maintenance.reembed()).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(engine.maintenance.reembed({ agentId: '' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await engine.close();
  });

  it('resumes after its process is killed part-way: every memory ends with exactly one vector, of the new model', async () => {
    const path = tempPath();
    const first = await open(path, { embedder: createBagOfWordsEmbedder(64, 'bow-a') });
    await seed(first.engine, 'a', 300);
    await first.engine.close();
    const reader = new Database(path, { readonly: true });
    const onNew = () =>
      (reader.prepare("SELECT count(*) AS n FROM memories WHERE embedding_model = 'bow-b'").get() as { n: number }).n;

    const killedAt = await new Promise<number>((resolve, reject) => {
      const proc = spawn(process.execPath, ['--conditions=@memory/source', '--import', 'tsx', child, path, '0'], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let errors = '';
      proc.stderr.on('data', (d: Buffer) => {
        errors += d.toString();
      });
      const timer = setInterval(() => {
        const n = onNew();
        if (n >= 60) {
          clearInterval(timer);
          proc.kill('SIGKILL');
          resolve(n);
        }
      }, 1);
      proc.on('exit', (code, signal) => {
        clearInterval(timer);
        if (signal !== 'SIGKILL') reject(new Error(`child exited (${code}) before it was killed: ${errors}`));
      });
    });
    const atKill = onNew();
    expect(killedAt).toBeLessThan(300);
    expect(atKill).toBeLessThan(300);

    // A later process (its clock past the dead one's lease) picks the job up and finishes it.
    const { engine } = await open(path, {
      embedder: createBagOfWordsEmbedder(32, 'bow-b'),
      clock: { now: () => Date.now() + 2 * HOUR_MS },
    });
    const mid = await engine.recall({ agentId: 'a', query: 'tea ledger' });
    expect(mid.vectorCompleteness).toBe('partial');
    expect(mid.vectorCoverage).toEqual({ embedded: atKill, total: 300 });
    for (let i = 0; i < 20; i++) {
      await engine.runDue();
      const status = (await engine.diagnostics()).maintenance.embedding;
      if (status && status.embedded >= status.total) break;
    }
    expect((await engine.recall({ agentId: 'a', query: 'tea ledger' })).vectorCoverage).toEqual({
      embedded: 300,
      total: 300,
    });
    expect(
      reader
        .prepare('SELECT model, count(*) AS n, count(DISTINCT source_id) AS sources FROM embeddings GROUP BY model')
        .all(),
    ).toEqual([{ model: 'bow-b', n: 300, sources: 300 }]);
    const jobs = reader
      .prepare("SELECT status, count(*) AS n FROM memory_jobs WHERE job_type = 'embedding_migration' GROUP BY status")
      .all() as Array<{ status: string; n: number }>;
    expect(jobs.filter((j) => j.status !== 'completed')).toEqual([]);
    expect((await engine.diagnostics()).maintenance.embedding?.lastChange?.finishedAt).not.toBeNull();
    reader.close();
    await engine.close();
  }, 180_000);
});
