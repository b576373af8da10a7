import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createMemoryEngine, isMemoryError } from '../src/index.js';
import { createTestEngine } from './helpers.js';

describe('engine lifecycle', () => {
  it('fails every call with ENGINE_CLOSED after close, and close is idempotent', async () => {
    const { engine } = await createTestEngine();
    const { id } = await engine.remember({ agentId: 'a', content: 'x' });
    await engine.close();
    await engine.close();
    const calls = [
      () => engine.remember({ agentId: 'a', content: 'y' }),
      () => engine.rememberMany({ agentId: 'a', memories: [{ content: 'y' }] }),
      () => engine.getMemory({ agentId: 'a', id }),
      () => engine.modify({ agentId: 'a', id, reason: 'r', importance: 0.2 }),
      () => engine.forget({ agentId: 'a', id, reason: 'r' }),
      () => engine.recover({ agentId: 'a', id }),
      () => engine.history({ agentId: 'a', id }),
      () => engine.recall({ agentId: 'a', query: 'x' }),
    ];
    for (const call of calls) await expect(call()).rejects.toSatisfy((e) => isMemoryError(e, 'ENGINE_CLOSED'));
  });

  it('persists to a file and reads it back in a new engine', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'memory-engine-')), 'memory.db');
    const first = await createMemoryEngine({ database: { path } });
    const { id } = await first.remember({ agentId: 'a', content: 'Persisted across restarts' });
    await first.close();
    const second = await createMemoryEngine({ database: { path } });
    expect((await second.getMemory({ agentId: 'a', id }))?.content).toBe('Persisted across restarts');
    expect((await second.recall({ agentId: 'a', query: 'restarts' })).results.map((r) => r.id)).toEqual([id]);
    await second.close();
  });

  it('keeps two engines in one process independent', async () => {
    const a = await createMemoryEngine({ database: { path: ':memory:' } });
    const b = await createMemoryEngine({ database: { path: ':memory:' } });
    await a.remember({ agentId: 'x', content: 'only in engine a' });
    expect((await b.recall({ agentId: 'x', query: 'engine' })).results).toEqual([]);
    await a.close();
    expect((await b.recall({ agentId: 'x', query: 'engine' })).results).toEqual([]);
    await b.close();
  });

  it('leaves a host-owned database open after close', async () => {
    const db = new Database(':memory:');
    const engine = await createMemoryEngine({ database: { database: db } });
    await engine.close();
    expect(db.open).toBe(true);
  });

  it('rejects bad options with INVALID_CONFIG', async () => {
    const bad: unknown[] = [
      undefined,
      {},
      { database: {} },
      { database: { path: 'a.db', database: new Database(':memory:') } },
      { database: { path: ':memory:' }, embedder: { model: 'x', dimensions: 0, embed: async () => [] } },
      { database: { path: ':memory:' }, llm: {} },
      { database: { path: ':memory:' }, config: { recall: { maxLimit: 'fifty' } } },
      { database: { path: ':memory:' }, config: { pipeline: { extractionProvider: 'ollama' } } },
    ];
    for (const options of bad) {
      await expect(createMemoryEngine(options as never)).rejects.toSatisfy((e) => isMemoryError(e, 'INVALID_CONFIG'));
    }
  });
});
