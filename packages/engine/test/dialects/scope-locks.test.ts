import { setTimeout as sleep } from 'node:timers/promises';
import { createManualClock, createManualScheduler, createSequentialIds } from '@memory/core';
import { memoryScopeLockKeys } from '@memory/store';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { holdAdvisoryLock } from '../../../store/test/support/postgres.js';
import type { MemoryEngine } from '../../src/index.js';
import { type EngineBackend, engineBackends } from '../support/backends.js';

// The rule of `runWriterProgram`: on PostgreSQL every write that changes a scope's memories holds
// the scope's lock keys (conflict detection's history marks are exact only then). Each entry point
// below is called while another session holds the scope's key: it must wait for it, and finish once
// the key is released. One that forgot the keys would not wait. Needs a real server (PGlite is one
// session, which takes its own advisory locks again); no embedder, so no conflict check (which reads
// under the same keys) waits in a write's place.

const T0 = Date.UTC(2026, 0, 1);
const backends = await engineBackends();
const server = backends.find((b) => b.name === 'postgres') as EngineBackend;

const options = () => {
  const clock = createManualClock(T0);
  return { clock, scheduler: createManualScheduler(clock), ids: createSequentialIds('id') };
};

function connectionString(backend: EngineBackend): string {
  const target = backend.target();
  if (!target || !('connectionString' in target) || !target.connectionString) throw new Error('no server target');
  return target.connectionString;
}

/** Runs `call` while the scope's lock key is held elsewhere: it must wait for it, then finish. */
async function waitsForScope<R>(agentId: string, call: () => Promise<R>): Promise<R> {
  const [key] = memoryScopeLockKeys([agentId]);
  const lock = await holdAdvisoryLock(connectionString(server), key as string);
  let settled = false;
  let outcome: Promise<{ ok: true; value: R } | { ok: false; error: unknown }>;
  try {
    outcome = call().then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    void outcome.then(() => {
      settled = true;
    });
    // Until the call reaches its write (or finishes without waiting: a call that forgot the keys).
    let waited = false;
    // Bounded, and generous: on a loaded machine a call can take many seconds to reach its write.
    const deadline = Date.now() + 90_000;
    while (!waited && !settled && Date.now() < deadline) {
      waited = await lock.waited();
      if (!waited) await sleep(25);
    }
    expect({ waited, settled }).toEqual({ waited: true, settled: false });
  } finally {
    await lock.release();
  }
  const result = await outcome;
  if (!result.ok) throw result.error;
  return result.value;
}

describe.skipIf(server.skip)(
  `memory writes hold their scope's lock keys on a PostgreSQL server${server.skip ? ` (skipped: ${server.skip})` : ''}`,
  () => {
    afterEach(() => server.cleanup());
    afterAll(() => server.dispose());

    it('remember, rememberMany, modify, forget and recover wait for the scope; another scope does not', {
      timeout: 600_000,
    }, async () => {
      const engine = await server.open(options());
      const one = await waitsForScope('a', () => engine.remember({ agentId: 'a', content: 'The kettle is blue.' }));
      await waitsForScope('a', () =>
        engine.rememberMany({ agentId: 'a', memories: [{ content: 'Lunch is at noon.' }] }),
      );
      await waitsForScope('a', () =>
        engine.modify({ agentId: 'a', id: one.id, content: 'The kettle is red.', reason: 'x' }),
      );
      await waitsForScope('a', () => engine.forget({ agentId: 'a', id: one.id, reason: 'gone' }));
      expect(await waitsForScope('a', () => engine.recover({ agentId: 'a', id: one.id }))).toMatchObject({
        deleted: false,
        content: 'The kettle is red.',
      });
      // The key is the scope's own: a writer of another scope does not wait for it.
      const [key] = memoryScopeLockKeys(['a']);
      const lock = await holdAdvisoryLock(connectionString(server), key as string);
      try {
        await engine.remember({ agentId: 'b', content: 'The kettle is green.' });
        expect(await lock.waited()).toBe(false);
      } finally {
        await lock.release();
      }
    });

    it("a document's ingest and delete, a registry category's cascade and an erase wait for the scope", {
      timeout: 600_000,
    }, async () => {
      const engine: MemoryEngine = await server.open(options());
      const added = await engine.documents.add({ agentId: 'a', content: '# Ice\n\nGlaciers carve valleys.\n' });
      // The ingest job writes the chunk memories.
      await waitsForScope('a', () => engine.runDue());
      expect(await engine.documents.get({ agentId: 'a', id: added.id })).toMatchObject({ status: 'done' });
      const deletion = await waitsForScope('a', () => engine.documents.delete({ agentId: 'a', id: added.id }));
      expect(deletion.forgottenChunks).toBeGreaterThan(0);

      const memory = await engine.remember({ agentId: 'a', content: 'The boiler is serviced in May.' });
      const category = await engine.registry.create({ agentId: 'a', name: 'Home' });
      await engine.registry.link({ agentId: 'a', id: category.id, object: { kind: 'memory', id: memory.id } });
      const deleted = await waitsForScope('a', () => engine.registry.delete({ agentId: 'a', id: category.id }));
      expect(deleted.remove).toEqual([{ kind: 'memory', id: memory.id }]);
      expect(await engine.getMemory({ agentId: 'a', id: memory.id })).toBeUndefined();

      await engine.remember({ agentId: 'a', content: 'The attic is cold.' });
      const erased = await waitsForScope('a', () => engine.erase({ agentId: 'a' }));
      expect(erased.counts.memories).toBeGreaterThan(0);
    });
  },
);
