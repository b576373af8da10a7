import { createManualClock, createSequentialIds, createTimerScheduler } from '@memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createMemoryEngine, type MemoryEngineOptions, type ResolverKind } from '../src/index.js';
import { snapshotCounts, T0 } from './helpers.js';
import { hostResolvers, recordingLogger } from './steward-helpers.js';

async function open(overrides: Partial<MemoryEngineOptions> = {}) {
  const clock = createManualClock(T0);
  const log = recordingLogger();
  const database = new Database(':memory:');
  const engine = await createMemoryEngine({
    database: { database },
    clock,
    ids: createSequentialIds('id'),
    logger: log.logger,
    ...overrides,
  });
  return { engine, clock, log, database };
}

describe('steward resolvers', () => {
  it("run in the seed's confidence order whatever the registration order, and only when they have input", async () => {
    const { engine } = await open();
    const ran: string[] = [];
    const kinds: ResolverKind[] = ['embedding', 'keywords', 'names', 'reminder', 'thread', 'sender'];
    for (const kind of kinds)
      engine.steward.registerResolver({
        name: `r-${kind}`,
        kind,
        resolve: () => {
          ran.push(kind);
          return [];
        },
      });
    await engine.steward.resolve({
      agentId: 'a',
      text: 'Please move the call with Alice Chen',
      sender: { email: 'x@y.test' },
      threadId: 't-1',
      reminderId: 'r-9',
    });
    expect(ran).toEqual(['sender', 'thread', 'reminder', 'names', 'keywords', 'embedding']);
    ran.length = 0;
    // No sender, thread or reminder; no capitalized names: only keywords and the fallback run.
    await engine.steward.resolve({ agentId: 'a', text: 'move the call please' });
    expect(ran).toEqual(['keywords', 'embedding']);
    await engine.close();
  });

  it('deduplicates by (type, refId): the first finding keeps its place and via, confidence rises, labels fill in', async () => {
    const { engine } = await open();
    engine.steward.registerResolver({
      name: 'names',
      kind: 'names',
      resolve: () => [{ type: 'contact', refId: '42', confidence: 0.95 }],
    });
    engine.steward.registerResolver({
      name: 'sender',
      kind: 'sender',
      resolve: () => [{ type: 'contact', refId: '42', confidence: 0.8 }],
    });
    engine.steward.registerResolver({
      name: 'kw',
      kind: 'keywords',
      resolve: () => [
        { type: 'contact', refId: '42', label: 'Alice Chen' },
        { type: 'project', refId: 7 as unknown as string },
      ],
    });
    const { entities } = await engine.steward.resolve({
      agentId: 'a',
      text: 'Alice asked about it',
      sender: { email: 'alice@acme.test' },
    });
    expect(entities).toEqual([
      { type: 'contact', refId: '42', label: 'Alice Chen', confidence: 0.95, via: 'sender:sender' },
      { type: 'project', refId: '7', confidence: 0.6, via: 'keywords:kw' },
    ]);
    await engine.close();
  });

  it('passes capitalized names, and what earlier resolvers found, to later ones; the fallback runs only below two results', async () => {
    const { engine } = await open();
    let namesSeen: readonly string[] = [];
    let fallbackRuns = 0;
    for (const r of hostResolvers()) engine.steward.registerResolver(r);
    engine.steward.registerResolver({
      name: 'spy',
      kind: 'names',
      resolve: ({ names, found }) => {
        namesSeen = names;
        expect(found.map((f) => f.refId)).toEqual(['43', '42']);
        return [];
      },
    });
    engine.steward.registerResolver({
      name: 'semantic-contacts',
      kind: 'embedding',
      resolve: () => {
        fallbackRuns++;
        return [{ type: 'contact', refId: '99', label: 'Carol' }];
      },
    });
    const two = await engine.steward.resolve({
      agentId: 'a',
      text: 'Hello! Can Alice Chen join the Monday call about the Acme renewal?',
      sender: { email: 'bob@globex.test' },
    });
    expect(namesSeen).toEqual(expect.arrayContaining(['Alice Chen', 'Alice', 'Chen', 'Acme']));
    expect(namesSeen).not.toContain('Hello');
    expect(namesSeen).not.toContain('Monday');
    expect(two.entities.map((e) => `${e.type}:${e.refId}:${e.via}`)).toEqual([
      'contact:43:sender:crm-sender',
      'contact:42:names:crm-names',
      'project:7:keywords:projects',
    ]);
    expect(fallbackRuns).toBe(0);
    const one = await engine.steward.resolve({
      agentId: 'a',
      text: 'the renewal quote',
      sender: { email: 'nobody@x.test' },
    });
    expect(fallbackRuns).toBe(1);
    expect(one.entities.map((e) => [e.refId, e.confidence])).toEqual([
      ['7', 0.6],
      ['99', 0.4],
    ]);
    await engine.close();
  });

  it('caps the number of host objects at steward.maxEntities, keeping the most confident', async () => {
    const { engine } = await open({ config: { steward: { maxEntities: 3 } } });
    engine.steward.registerResolver({
      name: 'many',
      kind: 'keywords',
      resolve: () => Array.from({ length: 8 }, (_, i) => ({ type: 'project', refId: `p${i}` })),
    });
    engine.steward.registerResolver({
      name: 'sender',
      kind: 'sender',
      resolve: () => [{ type: 'contact', refId: '42' }],
    });
    const { entities } = await engine.steward.resolve({ agentId: 'a', text: 'x', sender: { name: 'Alice' } });
    expect(entities.map((e) => e.refId)).toEqual(['42', 'p0', 'p1']);
    await engine.close();
  });

  it('logs and skips a resolver that throws, answers garbage, hangs or blocks past its time', async () => {
    const { engine, log } = await open({
      scheduler: createTimerScheduler(),
      config: { steward: { resolverTimeoutMs: 30 } },
    });
    let aborted = false;
    engine.steward.registerResolver({
      name: 'broken',
      kind: 'sender',
      resolve: () => {
        throw new Error('CRM is down');
      },
    });
    engine.steward.registerResolver({
      name: 'hangs',
      kind: 'thread',
      resolve: ({ signal }) =>
        new Promise(() => {
          signal.addEventListener('abort', () => {
            aborted = true;
          });
        }),
    });
    engine.steward.registerResolver({
      name: 'garbage',
      kind: 'reminder',
      resolve: () => [{ type: '', refId: 'x' }, 'nope', { type: 'reminder', refId: 'r-1' }] as never,
    });
    engine.steward.registerResolver({ name: 'not-a-list', kind: 'keywords', resolve: () => 'x' as never });
    engine.steward.registerResolver({
      name: 'fine',
      kind: 'names',
      resolve: () => [{ type: 'contact', refId: '42' }],
    });
    const started = Date.now();
    const { entities, warnings } = await engine.steward.resolve({
      agentId: 'a',
      text: 'Alice called',
      sender: { email: 'a@b.test' },
      threadId: 't',
      reminderId: 'r-1',
    });
    // The hanging resolver never settles: only its 30 ms timeout ends the call (20 s absorbs a loaded machine).
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(aborted).toBe(true);
    expect(entities.map((e) => `${e.type}:${e.refId}`)).toEqual(['reminder:r-1', 'contact:42']);
    expect(warnings).toEqual([
      'resolver broken skipped: CRM is down',
      'resolver hangs skipped: timed out after 30 ms',
      'resolver garbage returned an invalid reference (ignored)',
      'resolver garbage returned an invalid reference (ignored)',
      'resolver not-a-list skipped: did not return an array',
    ]);
    expect(log.warnings()).toContain('steward resolver failed');
    await engine.close();
  });

  it('skips a resolver that blocked past its limit by the clock, and everything after the budget is spent', async () => {
    const { engine, clock } = await open({ config: { steward: { resolverTimeoutMs: 100, resolveBudgetMs: 150 } } });
    const ran: string[] = [];
    const slow = (name: string, kind: ResolverKind, ms: number) =>
      engine.steward.registerResolver({
        name,
        kind,
        resolve: () => {
          ran.push(name);
          clock.advance(ms);
          return [{ type: 'contact', refId: name }];
        },
      });
    slow('quick', 'sender', 10);
    slow('blocking', 'thread', 150);
    slow('late', 'keywords', 1);
    const { entities, warnings } = await engine.steward.resolve({
      agentId: 'a',
      text: 'anything',
      sender: { email: 'a@b.test' },
      threadId: 't',
    });
    expect(ran).toEqual(['quick', 'blocking']);
    expect(entities.map((e) => e.refId)).toEqual(['quick']);
    expect(warnings).toEqual([
      'resolver blocking skipped: took 150 ms (limit 100 ms)',
      'resolver late skipped: the resolve budget (150 ms) is spent',
    ]);
    await engine.close();
  });

  it('is read-only, and rejects bad registrations and bad task context', async () => {
    const { engine, database } = await open();
    for (const r of hostResolvers()) engine.steward.registerResolver(r);
    await engine.remember({ agentId: 'a', content: 'Alice Chen prefers email', type: 'preference' });
    const before = snapshotCounts(database);
    await engine.steward.resolve({ agentId: 'a', text: 'Alice Chen wrote about the Acme renewal' });
    await engine.steward.recall({ agentId: 'a', text: 'Alice Chen wrote about the Acme renewal' });
    expect(snapshotCounts(database)).toEqual(before);
    expect(() => engine.steward.registerResolver(hostResolvers()[0] as never)).toThrow(
      expect.objectContaining({ code: 'CONFLICT' }),
    );
    expect(() =>
      engine.steward.registerResolver({ name: 'x', kind: 'psychic' as ResolverKind, resolve: () => [] }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    expect(() => engine.steward.registerResolver({ name: 'y', kind: 'names' } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
    await expect(engine.steward.resolve({ agentId: '', text: 'x' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(engine.steward.recall({ agentId: 'a', text: 'x', extra: 1 } as never)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await engine.close();
    expect(() => engine.steward.registerResolver({ name: 'z', kind: 'names', resolve: () => [] })).toThrow(
      expect.objectContaining({ code: 'ENGINE_CLOSED' }),
    );
  });
});
