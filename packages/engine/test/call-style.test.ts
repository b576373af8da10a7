import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createMemoryEngine, isMemoryError, type MemoryEngine } from '../src/index.js';
import { createTestEngine } from './helpers.js';

/** An aborted call: a MemoryError with `details.reason: 'aborted'` naming the operation. */
const aborted = (operation: string) => ({
  code: 'ABORTED',
  details: { reason: 'aborted', operation },
});

describe('await using', () => {
  it('closes the engine when the scope ends (Symbol.asyncDispose calls close)', async () => {
    const db = new Database(':memory:');
    let held: MemoryEngine | undefined;
    {
      await using engine = await createMemoryEngine({ database: { database: db } });
      held = engine;
      await engine.remember({ agentId: 'a', content: 'scoped engines close themselves' });
    }
    await expect(held?.recall({ agentId: 'a', query: 'scoped' })).rejects.toSatisfy((e) =>
      isMemoryError(e, 'ENGINE_CLOSED'),
    );
    // Disposal is close(): idempotent, and a host-owned database stays open.
    await held?.[Symbol.asyncDispose]();
    expect(db.open).toBe(true);
  });
});

describe('one argument style', () => {
  it('refuses the retired positional forms with INVALID_INPUT', async () => {
    const { engine } = await createTestEngine();
    const { id } = await engine.remember({ agentId: 'a', content: 'positional arguments are gone' });
    const calls: Array<() => Promise<unknown>> = [
      () => engine.getMemory(id as never),
      () => engine.history(id as never),
      () => engine.memoryHead('a' as never),
      () => engine.telemetry.list('a' as never),
      () => engine.telemetry.purge('a' as never),
      () => engine.jobs.get('id-1' as never),
      () => engine.imports.status('id-1' as never),
      () => engine.imports.pause('id-1' as never),
      () => engine.dreaming.apply('a' as never),
      () => engine.dreaming.apply({ agentId: 'a' } as never),
      () => engine.rememberMany([{ agentId: 'a', content: 'x' }] as never),
    ];
    for (const call of calls) await expect(call()).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await engine.getMemory({ agentId: 'a', id })).toMatchObject({ content: 'positional arguments are gone' });
    expect(await engine.getMemory({ agentId: 'b', id })).toBeUndefined();
    expect(await engine.jobs.get({ id: 'id-404' })).toBeUndefined();
    expect(await engine.telemetry.list({ agentId: 'a', limit: 5 })).toEqual([]);
    expect(await engine.telemetry.purge({ agentId: 'a' })).toBe(0);
  });
});

describe('AbortSignal', () => {
  it('rejects recall, documents.add and imports.start given an aborted signal, writing nothing', async () => {
    const { engine } = await createTestEngine();
    const signal = AbortSignal.abort(new Error('host gave up'));
    await expect(engine.recall({ agentId: 'a', query: 'anything', signal })).rejects.toMatchObject(aborted('recall'));
    await expect(engine.documents.add({ agentId: 'a', content: 'a document', signal })).rejects.toMatchObject(
      aborted('documents.add'),
    );
    expect(await engine.documents.list({ agentId: 'a' })).toEqual([]);
    await expect(engine.imports.start({ agentId: 'a', file: '/no/such/file.jsonl', signal })).rejects.toMatchObject(
      aborted('imports.start'),
    );
    // A live signal changes nothing; a signal that is not an AbortSignal is refused.
    const live = new AbortController().signal;
    await expect(engine.recall({ agentId: 'a', query: 'anything', signal: live })).resolves.toMatchObject({
      results: [],
    });
    await expect(engine.recall({ agentId: 'a', query: 'x', signal: {} as never })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/signal/),
    });
  });

  it('stops spooling an import stream and removes the partial copy', async () => {
    const spoolDirectory = mkdtempSync(join(tmpdir(), 'memory-spool-'));
    const { engine } = await createTestEngine({ config: { imports: { spoolDirectory } } });
    const controller = new AbortController();
    async function* stream() {
      yield '{"id":"1"}\n';
      controller.abort(new Error('upload cancelled'));
      await new Promise((resolve) => setTimeout(resolve, 5));
      yield '{"id":"2"}\n';
    }
    await expect(
      engine.imports.start({ agentId: 'a', stream: stream(), signal: controller.signal }),
    ).rejects.toMatchObject(aborted('imports.start'));
    expect(readdirSync(spoolDirectory)).toEqual([]);
  });

  it('rejects dreaming.runPass before the model is called, or after the turn in which it aborts', async () => {
    const controller = new AbortController();
    let calls = 0;
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(':memory:');
    const { engine } = await createTestEngine({
      database: { database: db },
      llm: {
        async generate() {
          calls++;
          controller.abort(new Error('deadline'));
          return { text: '', toolCalls: [{ id: 't1', name: 'next_evidence', arguments: '{}' }] };
        },
      },
      config: { hints: { enabled: false } },
    });
    await engine.transcripts.append({ agentId: 'a', sessionKey: 's1', turns: [{ role: 'user', content: 'hello' }] });
    await engine.transcripts.complete({ agentId: 'a', sessionKey: 's1' });
    await expect(engine.dreaming.runPass({ agentId: 'a', signal: AbortSignal.abort() })).rejects.toMatchObject(
      aborted('dreaming.runPass'),
    );
    expect(calls).toBe(0);
    await expect(engine.dreaming.runPass({ agentId: 'a', signal: controller.signal })).rejects.toMatchObject(
      aborted('dreaming.runPass'),
    );
    expect(calls).toBe(1);
    // The pass stopped at its next turn and was recorded as failed.
    expect(db.prepare("SELECT status, error FROM dreaming_passes WHERE agent_id = 'a'").all()).toEqual([
      { status: 'failed', error: 'stopped: aborted' },
    ]);
  });
});
