import { createSequentialIds, MemoryError } from '@memory/core';
import { describe, expect, it } from 'vitest';
import {
  createMemoriesProgram,
  forgetMemoryProgram,
  isSqliteStore,
  type PortableStore,
  prepareContent,
  runWriterProgram,
  type WriterTarget,
} from '../src/index.js';
import { portable, run as runStatement } from '../src/program/program.js';
import { raw } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';
import { checkMemoryTextIndex } from './support/text-index.js';

const deps = () => ({ ids: createSequentialIds('w'), vectorAvailable: false, inlineEntityLinking: false });
const memory = (agentId: string, content: string) => ({
  agentId,
  content: prepareContent(content),
  type: 'fact' as const,
  importance: 0.5,
  audit: {},
});

describe('runWriterProgram on SQLite', () => {
  it('runs a writer program in one write, the writer indexing its own inserts exactly once', async () => {
    const store = await createTestStore();
    const writer = deps();
    const created = await runWriterProgram(store, { agentIds: ['a', 'b'] }, function* (target: WriterTarget) {
      const made = yield* createMemoriesProgram(
        target,
        writer,
        [memory('a', 'green tea at noon'), memory('a', 'the kettle is red'), memory('b', 'okapi garden')],
        0,
      );
      yield* forgetMemoryProgram(target, writer, { agentId: 'a', id: made[1]?.id ?? '', audit: {} }, 1);
      return made;
    });
    expect(created.map((c) => c.deduped)).toEqual([false, false, false]);
    const { actual, expected } = checkMemoryTextIndex(store.database);
    expect(expected.scopes).toEqual({ a: '1 docs, 4 tokens', b: '1 docs, 2 tokens' });
    expect(actual).toEqual(expected);
    store.close();
  });

  it('rolls back a program that throws, and the insert trigger is on again afterwards', async () => {
    const store = await createTestStore();
    const writer = deps();
    await expect(
      runWriterProgram(store, { agentIds: ['a'] }, function* (target) {
        yield* createMemoriesProgram(target, writer, [memory('a', 'zebra tea')], 0);
        throw new MemoryError('CONFLICT', 'the program failed');
      }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    store.write((sql) =>
      sql.run(
        raw(`INSERT INTO memories (id, agent_id, type, content, normalized_content, content_hash, created_at, updated_at)
             VALUES ('r1', 'a', 'fact', 'okapi garden', 'okapi garden', 'hr1', 0, 0)`),
      ),
    );
    const { actual, expected } = checkMemoryTextIndex(store.database);
    expect(expected.scopes).toEqual({ a: '1 docs, 2 tokens' });
    expect(actual).toEqual(expected);
    store.close();
  });

  it('refuses a call that names no scopes', async () => {
    const store = await createTestStore();
    const call = () =>
      // @ts-expect-error: the scopes are required, so a caller decides which lock keys it holds.
      runWriterProgram(store, undefined, function* () {
        yield* runStatement(portable('DELETE FROM memories'));
      });
    await expect(call()).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    store.close();
  });
});

describe('isSqliteStore', () => {
  it('is true only for a store from openStore', async () => {
    const sqlite = await createTestStore();
    try {
      expect(isSqliteStore(sqlite)).toBe(true);
      const { dialect, db, clock, ids, logger, guard, closed } = sqlite;
      // A portable store of the SQLite dialect that is not a store from openStore (no executor).
      const impostor: PortableStore = { dialect, db, clock, ids, logger, guard, closed };
      expect(isSqliteStore(impostor)).toBe(false);
      expect(isSqliteStore({ ...impostor, dialect: 'postgres' })).toBe(false);
      await expect(runWriterProgram(impostor, { agentIds: [] }, function* () {})).rejects.toMatchObject({
        code: 'INVALID_INPUT',
      });
    } finally {
      sqlite.close();
    }
  });
});
