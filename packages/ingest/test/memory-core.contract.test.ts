import { MemoryError } from '@memory/core';
import { conflictCandidateVectorsProgram, type PortableStore } from '@memory/store';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { embedStoredMemories } from '../src/embed-existing.js';
import { fillMissingVectors } from '../src/fill-vectors.js';
import { forgetMemory, modifyMemory, recoverMemory } from '../src/lifecycle.js';
import { getMemory, memoryHistory } from '../src/read.js';
import { remember, rememberMany } from '../src/remember.js';
import { bagOfWords } from './support/bag-of-words.js';
import { BACKENDS, type CoreSetup, type WriterOptions } from './support/memory-core-backends.js';

// The memory core's contract: remember, rememberMany, dedup, modify, forget, recover, conflict
// detection, reads, history and vector fill-in behave the same on SQLite, PGlite and a real
// PostgreSQL server. Each test works in its own agents and ids, so a backend's tests share one database.

const vectorModels = (store: PortableStore, agentId: string, id: string, model: string) =>
  store.db.read(() => conflictCandidateVectorsProgram(agentId, model, [id]));

const CONFLICTS: WriterOptions = {
  embedder: bagOfWords(),
  config: { remember: { conflict: { threshold: 0.5 } } },
};

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip !== undefined)(
    `the memory core on ${backend.name}${backend.skip ? ` (skipped: ${backend.skip})` : ''}`,
    () => {
      let n = 0;
      /** A writer for this test, with ids and agents of its own. */
      const setup = (options?: WriterOptions): Promise<CoreSetup> => backend.setup(`t${++n}-`, options);
      const agent = (name: string) => `${name}-${n}`;

      beforeAll(() => backend.beforeAll(), 120_000);
      afterAll(() => backend.afterAll());
      afterEach(() => backend.afterEach());

      it('remembers, dedups within a scope only, and reads back what it stored', async () => {
        const { writer } = await setup({ embedder: bagOfWords() });
        const a = agent('a');
        const first = await remember(writer, { agentId: a, content: 'The kettle is blue.', tags: ['home'] });
        expect(first.deduped).toBe(false);
        const again = await remember(writer, { agentId: a, content: '  the KETTLE is blue. ' });
        expect(again).toEqual({ id: first.id, deduped: true });
        const other = await remember(writer, { agentId: agent('b'), content: 'The kettle is blue.' });
        expect(other.id).not.toBe(first.id);
        const memory = await getMemory(writer, first.id, { agentId: a });
        expect(memory).toMatchObject({ id: first.id, agentId: a, content: 'The kettle is blue.', tags: ['home'] });
        expect(memory?.deleted).toBe(false);
        // Another agent's memory reads as missing.
        expect(await getMemory(writer, first.id, { agentId: agent('b') })).toBeUndefined();
        expect(await vectorModels(writer.store, a, first.id, 'bow')).toHaveLength(1);
      });

      it('rememberMany keeps input order across batches, dedups in and across batches, and validates first', async () => {
        const { writer } = await setup({ embedder: bagOfWords(), config: { remember: { batchSize: 2 } } });
        const a = agent('a');
        const texts = ['One apple.', 'Two pears.', 'One apple.', 'Three plums.', 'Two pears.'];
        const results = await rememberMany(
          writer,
          texts.map((content) => ({ agentId: a, content })),
        );
        expect(results.map((r) => r.deduped)).toEqual([false, false, true, false, true]);
        expect(results[2]?.id).toBe(results[0]?.id);
        expect(results[4]?.id).toBe(results[1]?.id);
        for (const [i, result] of results.entries())
          expect((await getMemory(writer, result.id, { agentId: a }))?.content).toBe(texts[i]);
        await expect(
          rememberMany(writer, [
            { agentId: a, content: 'Would be stored.' },
            { agentId: a, content: '' },
          ]),
        ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        const stored = await rememberMany(writer, [{ agentId: a, content: 'Would be stored.' }]);
        expect(stored[0]?.deduped).toBe(false);
      });

      it('modifies content with history, refuses content another memory holds, and hides other scopes', async () => {
        const { writer } = await setup({ embedder: bagOfWords() });
        const a = agent('a');
        const one = await remember(writer, { agentId: a, content: 'Lunch is at noon.' });
        const two = await remember(writer, { agentId: a, content: 'Dinner is at seven.' });
        const changed = await modifyMemory(writer, one.id, {
          reason: 'test',
          agentId: a,
          content: 'Lunch is at one.',
          importance: 0.9,
          pinned: true,
        });
        expect(changed).toMatchObject({ content: 'Lunch is at one.', importance: 0.9, pinned: true, updateCount: 1 });
        expect(await vectorModels(writer.store, a, one.id, 'bow')).toHaveLength(1);
        await expect(
          modifyMemory(writer, two.id, { reason: 'test', agentId: a, content: 'Lunch is at one.' }),
        ).rejects.toMatchObject({
          code: 'CONFLICT',
        });
        await expect(
          modifyMemory(writer, one.id, { reason: 'test', agentId: agent('b'), importance: 0.1 }),
        ).rejects.toMatchObject({
          code: 'NOT_FOUND',
        });
        const history = await memoryHistory(writer, one.id, { agentId: a });
        expect(history.map((h) => h.event)).toEqual(['created', 'updated']);
        expect(history[1]).toMatchObject({ oldContent: 'Lunch is at noon.', newContent: 'Lunch is at one.' });
        await expect(memoryHistory(writer, one.id, { agentId: agent('b') })).rejects.toMatchObject({
          code: 'NOT_FOUND',
        });
      });

      it('forgets (pinned only with force) and recovers within the window, never into a duplicate', async () => {
        const { writer, clock } = await setup({ embedder: bagOfWords() });
        const a = agent('a');
        const pinned = await remember(writer, { agentId: a, content: 'The gate code is 4417.', pinned: true });
        await expect(forgetMemory(writer, pinned.id, { reason: 'test', agentId: a })).rejects.toMatchObject({
          code: 'PINNED',
        });
        expect(await forgetMemory(writer, pinned.id, { reason: 'test', agentId: a, force: true })).toEqual({
          id: pinned.id,
          forgotten: true,
        });
        expect(await forgetMemory(writer, pinned.id, { reason: 'test', agentId: a, force: true })).toEqual({
          id: pinned.id,
          forgotten: false,
        });
        expect(await getMemory(writer, pinned.id, { agentId: a })).toBeUndefined();
        expect((await getMemory(writer, pinned.id, { agentId: a, includeDeleted: true }))?.deleted).toBe(true);
        expect(await vectorModels(writer.store, a, pinned.id, 'bow')).toHaveLength(0);
        // The same content again is a new memory while the first is forgotten: recovering would duplicate it.
        const again = await remember(writer, { agentId: a, content: 'The gate code is 4417.' });
        expect(again.id).not.toBe(pinned.id);
        await expect(recoverMemory(writer, pinned.id, { agentId: a })).rejects.toMatchObject({ code: 'CONFLICT' });
        await forgetMemory(writer, again.id, { reason: 'test', agentId: a });
        const back = await recoverMemory(writer, pinned.id, { agentId: a });
        expect(back).toMatchObject({ id: pinned.id, deleted: false, content: 'The gate code is 4417.' });
        expect(await vectorModels(writer.store, a, pinned.id, 'bow')).toHaveLength(1);
        await expect(recoverMemory(writer, pinned.id, { agentId: a })).rejects.toMatchObject({ code: 'CONFLICT' });
        // Past the recovery window a forgotten memory stays forgotten.
        await forgetMemory(writer, pinned.id, { reason: 'test', agentId: a, force: true });
        clock.advance(writer.config.retention.recoverWindowDays * 86_400_000 + 1);
        await expect(recoverMemory(writer, pinned.id, { agentId: a })).rejects.toMatchObject({ code: 'CONFLICT' });
        const events = (await memoryHistory(writer, pinned.id, { agentId: a })).map((h) => h.event);
        expect(events).toEqual(['created', 'deleted', 'recovered', 'deleted']);
      });

      it('merges a memory that updates another of the same kind, in remember and in rememberMany', async () => {
        const { writer } = await setup(CONFLICTS);
        const a = agent('a');
        const first = await remember(writer, {
          agentId: a,
          content: 'The weekly standup is at 9:30 on Monday',
          type: 'decision',
        });
        const second = await remember(writer, {
          agentId: a,
          content: 'The weekly standup is at 10:00 on Tuesday',
          type: 'decision',
        });
        expect(second).toEqual({
          id: first.id,
          deduped: false,
          updated: true,
          previous: 'The weekly standup is at 9:30 on Monday',
        });
        const history = await memoryHistory(writer, first.id, { agentId: a });
        expect(history.at(-1)).toMatchObject({ event: 'updated', reason: expect.stringMatching(/conflict/) });
        // A different subject is stored beside it.
        const other = await remember(writer, { agentId: a, content: 'Bob lives in Lisbon', type: 'decision' });
        expect(other.updated).toBeUndefined();
        // rememberMany: the batch's later item updates the earlier one, as one by one.
        const b = agent('b');
        const batch = await rememberMany(writer, [
          { agentId: b, content: 'The budget review is on Friday', type: 'decision' },
          { agentId: b, content: 'Unrelated note about plants', type: 'decision' },
          { agentId: b, content: 'The budget review is on Thursday', type: 'decision' },
        ]);
        expect(batch[2]).toMatchObject({ id: batch[0]?.id, updated: true, previous: 'The budget review is on Friday' });
        expect((await getMemory(writer, batch[0]?.id, { agentId: b }))?.content).toBe(
          'The budget review is on Thursday',
        );
      });

      it('sees what another engine changed before judging a conflict (the key index catches up)', async () => {
        const setupDone = await setup(CONFLICTS);
        const { writer } = setupDone;
        const a = agent('a');
        const first = await remember(writer, { agentId: a, content: 'Standup is at 9:30 on Monday', type: 'decision' });
        // A second checked write: the index has read the first memory's row now.
        await remember(writer, { agentId: a, content: 'Lunch is at noon on Friday', type: 'decision' });
        // Another engine (or this one, where there is one connection) changes the first memory in place.
        const other = setupDone.another ? await setupDone.another() : writer;
        await modifyMemory(other, first.id, { reason: 'test', agentId: a, content: 'Retro is at 9:30 on Monday' });
        const next = await remember(writer, { agentId: a, content: 'Retro is at 11:00 on Monday', type: 'decision' });
        expect(next).toMatchObject({ id: first.id, updated: true, previous: 'Retro is at 9:30 on Monday' });
      });

      it('fills in missing vectors and embeds memories written without one', async () => {
        const { writer, store } = await setup();
        const a = agent('a');
        const results = await rememberMany(writer, [
          { agentId: a, content: 'Vectorless one.' },
          { agentId: a, content: 'Vectorless two.' },
          { agentId: a, content: 'Vectorless three.' },
        ]);
        const embedder = bagOfWords(64, 'fill');
        const withEmbedder = { ...writer, embedder: store.guard.embedder(embedder) };
        const [one, two, three] = results.map((r) => r.id as string) as unknown as [string, string, string];
        expect(await embedStoredMemories(withEmbedder, a, [one])).toBe(1);
        expect(await vectorModels(store, a, one, 'fill')).toHaveLength(1);
        const report = await fillMissingVectors(withEmbedder, { batchSize: 1, maxAttempts: 2 });
        expect(report.finished).toBe(true);
        // Other tests' memories on a shared database may be filled too: at least this test's two.
        expect(report.embedded).toBeGreaterThanOrEqual(2);
        expect(await vectorModels(store, a, two, 'fill')).toHaveLength(1);
        expect(await vectorModels(store, a, three, 'fill')).toHaveLength(1);
        // An embedder that gives unusable vectors: counted per memory, then left alone.
        const broken = await rememberMany(writer, [{ agentId: a, content: 'Cannot be embedded.' }]);
        const bad = {
          ...writer,
          embedder: store.guard.embedder({
            model: 'fill',
            dimensions: 64,
            embed: async (texts: readonly string[]) => texts.map(() => new Float32Array(3)),
          }),
        };
        const failing = await fillMissingVectors(bad, { batchSize: 50, maxAttempts: 1 });
        expect(failing.failed).toBeGreaterThanOrEqual(1);
        expect((await fillMissingVectors(bad, { batchSize: 50, maxAttempts: 1 })).finished).toBe(true);
        expect(await vectorModels(store, a, broken[0]?.id ?? '', 'fill')).toHaveLength(0);
      });

      it('runs the derived-work hook inside the write: a failing hook leaves nothing behind', async () => {
        const seen: string[] = [];
        const failing = (id: string) => {
          if (seen.length > 0) throw new MemoryError('CONFLICT', `hook refused ${id}`);
          seen.push(id);
        };
        const { writer } = await setup({
          onContentLive: (_sql, memory) => failing(memory.id),
          // biome-ignore lint/correctness/useYield: a hook that writes nothing and may throw
          onContentLiveProgram: function* (memory) {
            failing(memory.id);
          },
        });
        const a = agent('a');
        const kept = await remember(writer, { agentId: a, content: 'Kept.' });
        expect(seen).toEqual([kept.id]);
        await expect(remember(writer, { agentId: a, content: 'Refused.' })).rejects.toThrow(/hook refused/);
        const retry = await rememberMany(writer, [{ agentId: a, content: 'Refused.' }]).catch(() => undefined);
        expect(retry).toBeUndefined();
        // The refused write left no row: remembering it with a working hook creates it now.
        seen.length = 0;
        const fresh = await remember(
          { ...writer, onContentLive: undefined, onContentLiveProgram: undefined },
          {
            agentId: a,
            content: 'Refused.',
          },
        );
        expect(fresh.deduped).toBe(false);
      });

      it('two engines remembering the same content at once store one memory', async (context) => {
        const first = await setup({ embedder: bagOfWords() });
        if (!first.another) {
          context.skip('one connection: writes cannot overlap on this backend');
          return;
        }
        const second = await first.another();
        const a = agent('a');
        for (let round = 0; round < 5; round++) {
          const content = `Concurrent fact number ${round}.`;
          const results = await Promise.all([
            remember(first.writer, { agentId: a, content }),
            remember(second, { agentId: a, content }),
            rememberMany(second, [{ agentId: a, content }]).then((r) => r[0]),
          ]);
          const ids = new Set(results.map((r) => r?.id));
          expect(ids.size).toBe(1);
          expect(results.filter((r) => r?.deduped === false)).toHaveLength(1);
        }
      });
    },
  );
}
