import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isMemoryError } from '../src/index.js';
import { createTestEngine, snapshotCounts } from './helpers.js';

// Issue 11, item 11: one set of validators for content, agent ids, keys and times, used by every
// entry point.

const INVISIBLE = {
  NUL: '\u0000\u0000\u0000',
  'zero-width': '\u200b\u200c\u200d\u2060\ufeff',
  bidi: '\u202e\u2066\u2069\u200f',
  'Hangul filler': '\u3164',
  punctuation: ' ?!. … -- ',
};

const rejectsInvalid = (promise: Promise<unknown>) =>
  expect(promise).rejects.toSatisfy((e) => isMemoryError(e, 'INVALID_INPUT'));

async function engineWithDb() {
  const db = new Database(':memory:');
  const { engine, clock } = await createTestEngine({ database: { database: db } });
  const { id } = await engine.remember({ agentId: 'a', content: 'The kettle is in the left cupboard' });
  return { engine, db, clock, id };
}

describe('content made only of invisible characters or punctuation', () => {
  it.each(Object.entries(INVISIBLE))(
    '%s content is refused by remember, rememberMany, modify and documents.add',
    async (_n, content) => {
      const { engine, db, id } = await engineWithDb();
      const before = snapshotCounts(db);
      await rejectsInvalid(engine.remember({ agentId: 'a', content }));
      await rejectsInvalid(engine.rememberMany({ agentId: 'a', memories: [{ content: 'fine text' }, { content }] }));
      await rejectsInvalid(engine.modify({ agentId: 'a', id, reason: 'edit', content }));
      await rejectsInvalid(engine.documents.add({ agentId: 'a', content }));
      expect(snapshotCounts(db)).toEqual(before);
      expect((await engine.getMemory({ agentId: 'a', id }))?.content).toBe('The kettle is in the left cupboard');
    },
  );

  it('drops transcript turns that show nothing, like empty ones', async () => {
    const { engine } = await engineWithDb();
    const result = await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 's-1',
      turns: [
        { role: 'user', content: '\u200b\u200b' },
        { role: 'user', content: '\u0000' },
        { role: 'assistant', content: 'A real answer' },
      ],
    });
    expect(result).toMatchObject({ appended: 1, dropped: 2 });
  });

  it('skips document chunks that hold only punctuation instead of failing the document', async () => {
    const db = new Database(':memory:');
    const { engine } = await createTestEngine({
      database: { database: db },
      config: { documents: { chunkSize: 100, chunkOverlap: 0 } },
    });
    const content = `The first section talks about kettles.\n\n${'-'.repeat(400)}\n\nThe last section talks about cupboards.`;
    const { id } = await engine.documents.add({ agentId: 'a', content });
    await engine.runDue();
    const doc = await engine.documents.get({ agentId: 'a', id });
    expect(doc).toMatchObject({ status: 'done', error: null });
    expect(doc?.memoryCount).toBeLessThan(doc?.chunkCount ?? 0);
    const stored = db.prepare("SELECT content FROM memories WHERE type = 'document_chunk'").all() as Array<{
      content: string;
    }>;
    expect(stored.map((m) => m.content).join(' ')).toMatch(/kettles.*cupboards/s);
    expect(stored.every((m) => /\p{L}/u.test(m.content))).toBe(true);
  });
});

describe('agent ids', () => {
  it.each([
    ['a lone high surrogate', 'bot\uD800'],
    ['a lone low surrogate', '\uDC00bot'],
    ['a bidi override', 'admin\u202e'],
  ])('with %s are refused, never stored lossily', async (_name, agentId) => {
    const { engine, db } = await engineWithDb();
    const before = snapshotCounts(db);
    await rejectsInvalid(engine.remember({ agentId, content: 'hello there' }));
    await rejectsInvalid(engine.rememberMany({ agentId, memories: [{ content: 'hello there' }] }));
    await rejectsInvalid(engine.recall({ agentId, query: 'hello' }));
    await rejectsInvalid(
      engine.transcripts.append({ agentId, sessionKey: 'k', turns: [{ role: 'user', content: 'hi' }] }),
    );
    await rejectsInvalid(engine.documents.add({ agentId, content: 'some text' }));
    expect(snapshotCounts(db)).toEqual(before);
    expect(
      db.prepare("SELECT count(*) AS n FROM memories WHERE agent_id LIKE 'bot%' OR agent_id LIKE '%bot'").get(),
    ).toEqual({ n: 0 });
  });
});

describe('times', () => {
  it.each([1e300, -1e300, 8.64e15, 'March 7'])('%s is refused wherever a time is taken', async (time) => {
    const { engine, db } = await engineWithDb();
    const before = snapshotCounts(db);
    await rejectsInvalid(engine.remember({ agentId: 'a', content: 'when was this', createdAt: time }));
    await rejectsInvalid(engine.remember({ agentId: 'a', content: 'until when', expiresAt: time }));
    await rejectsInvalid(
      engine.transcripts.append({ agentId: 'a', sessionKey: 'k', turns: [{ role: 'user', content: 'hi', at: time }] }),
    );
    await rejectsInvalid(engine.telemetry.purge({ agentId: 'a', before: time }));
    await rejectsInvalid(engine.dreaming.claimsAsOf({ agentId: 'a', entityId: 'e', asOf: time as never }));
    expect(snapshotCounts(db)).toEqual(before);
  });

  it('accepts the documented range, 0001-01-01 to 9999-12-31', async () => {
    const { engine } = await engineWithDb();
    const old = await engine.remember({ agentId: 'a', content: 'an old letter', createdAt: '0001-01-01T00:00:00Z' });
    expect((await engine.getMemory({ agentId: 'a', id: old.id }))?.createdAt).toBe(-62_135_596_800_000);
    await engine.remember({ agentId: 'a', content: 'a far plan', createdAt: '9999-12-31T23:59:59.999Z' });
  });
});

describe('errors never carry driver text', () => {
  const DRIVER = /sqlite|sql|constraint|bind|no such|datatype|statement/i;
  it.each([
    ['jobs.get({})', (e: Awaited<ReturnType<typeof engineWithDb>>['engine']) => e.jobs.get({} as never)],
    ['jobs.get(null)', (e: Awaited<ReturnType<typeof engineWithDb>>['engine']) => e.jobs.get(null as never)],
    ['jobs.get({ id: 5 })', (e: Awaited<ReturnType<typeof engineWithDb>>['engine']) => e.jobs.get({ id: 5 } as never)],
    [
      'jobs.get({ id: {} })',
      (e: Awaited<ReturnType<typeof engineWithDb>>['engine']) => e.jobs.get({ id: {} } as never),
    ],
  ])('%s is INVALID_INPUT with a message of ours', async (_name, call) => {
    const { engine } = await engineWithDb();
    const error = await call(engine).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isMemoryError(error, 'INVALID_INPUT')).toBe(true);
    expect((error as Error).message).not.toMatch(DRIVER);
    expect((error as Error).cause === undefined || !String((error as Error).cause).match(/sqlite/i)).toBe(true);
  });
});
