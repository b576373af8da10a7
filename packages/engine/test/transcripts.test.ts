import { createManualClock, createManualScheduler } from '@memory/core';
import { settle } from '@memory/queue/testing';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createTestEngine, T0 } from './helpers.js';

const turns = [
  { role: 'user' as const, content: 'Can you book the Lisbon offsite for   March?\n\nBudget is 4k.', at: T0 },
  { role: 'thinking' as const, content: 'The user wants a booking...' },
  { role: 'tool_call' as const, content: '{"name":"search_venues"}' },
  { role: 'tool_result' as const, content: '[{"venue":"LX Factory"}]' },
  { role: 'assistant' as const, content: 'Booked LX Factory for March 12–14.', at: T0 + 1000 },
  { role: 'system' as const, content: 'You are a helpful assistant.' },
];

describe('session transcripts', () => {
  it('keeps user and assistant turns exactly, drops tool, system and reasoning turns', async () => {
    const { engine } = await createTestEngine();
    const result = await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 's1',
      harness: 'claude-code',
      project: 'offsite',
      turns,
    });
    expect(result).toEqual({ sessionKey: 's1', appended: 2, duplicates: 0, dropped: 4 });
    const t = await engine.transcripts.get({ agentId: 'a', sessionKey: 's1' });
    expect(t).toMatchObject({ harness: 'claude-code', project: 'offsite', turnCount: 2, completedAt: null });
    expect(t?.turns.map((x) => [x.role, x.content, x.at])).toEqual([
      ['user', 'Can you book the Lisbon offsite for   March?\n\nBudget is 4k.', T0],
      ['assistant', 'Booked LX Factory for March 12–14.', T0 + 1000],
    ]);
    expect(t?.content).toBe(
      'user: Can you book the Lisbon offsite for   March?\n\nBudget is 4k.\n\nassistant: Booked LX Factory for March 12–14.',
    );
  });

  it('is idempotent per turn: by id, or by role, content and time', async () => {
    const { engine } = await createTestEngine();
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 's',
      turns: [
        { role: 'user', content: 'ok', id: 't1' },
        { role: 'assistant', content: 'Done.', at: T0 },
      ],
    });
    const again = await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 's',
      turns: [
        { role: 'user', content: 'ok', id: 't1' },
        { role: 'assistant', content: 'Done.', at: T0 },
        { role: 'user', content: 'ok', id: 't2' },
      ],
    });
    expect(again).toEqual({ sessionKey: 's', appended: 1, duplicates: 2, dropped: 0 });
    expect((await engine.transcripts.get({ agentId: 'a', sessionKey: 's' }))?.turns.map((t) => t.content)).toEqual([
      'ok',
      'Done.',
      'ok',
    ]);
  });

  it('completes explicitly: content and hash are fixed, further appends are refused', async () => {
    const { engine } = await createTestEngine();
    await engine.transcripts.append({ agentId: 'a', sessionKey: 's', turns: [{ role: 'user', content: 'hello' }] });
    expect(await engine.transcripts.complete({ agentId: 'a', sessionKey: 's' })).toEqual({ completed: true });
    expect(await engine.transcripts.complete({ agentId: 'a', sessionKey: 's' })).toEqual({ completed: false });
    const t = await engine.transcripts.get({ agentId: 'a', sessionKey: 's' });
    expect(t).toMatchObject({
      content: 'user: hello',
      contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      completedAt: T0,
    });
    await expect(
      engine.transcripts.append({ agentId: 'a', sessionKey: 's', turns: [{ role: 'user', content: 'more' }] }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(engine.transcripts.complete({ agentId: 'a', sessionKey: 'missing' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('completes abandoned sessions after the idle TTL on the engine schedule', async () => {
    const clock = createManualClock(T0);
    const scheduler = createManualScheduler(clock);
    const { engine } = await createTestEngine({
      clock,
      scheduler,
      config: { transcripts: { idleCompleteMs: 3_600_000, sweepIntervalMs: 600_000 } },
    });
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 'old',
      turns: [{ role: 'user', content: 'left hanging' }],
    });
    clock.advance(1_800_000);
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 'fresh',
      turns: [{ role: 'user', content: 'still here' }],
    });
    await engine.start();
    await scheduler.advance(2_400_000); // sweeps at +10, +20, +30, +40 min after start
    await settle();
    expect((await engine.transcripts.get({ agentId: 'a', sessionKey: 'old' }))?.completedAt).not.toBeNull();
    expect((await engine.transcripts.get({ agentId: 'a', sessionKey: 'fresh' }))?.completedAt).toBeNull();
    await engine.close();
  });

  it('is agent-scoped in get, list, complete, append and search', async () => {
    const { engine } = await createTestEngine();
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 'shared-key',
      turns: [{ role: 'user', content: 'alpha secret plans' }],
    });
    await engine.transcripts.append({
      agentId: 'b',
      sessionKey: 'shared-key',
      turns: [{ role: 'user', content: 'beta secret plans' }],
    });
    await engine.transcripts.complete({ agentId: 'a', sessionKey: 'shared-key' });
    expect(await engine.transcripts.get({ agentId: 'c', sessionKey: 'shared-key' })).toBeUndefined();
    expect((await engine.transcripts.get({ agentId: 'b', sessionKey: 'shared-key' }))?.completedAt).toBeNull();
    expect(
      (await engine.transcripts.get({ agentId: 'b', sessionKey: 'shared-key' }))?.turns.map((t) => t.content),
    ).toEqual(['beta secret plans']);
    expect((await engine.transcripts.list({ agentId: 'a' })).map((s) => s.sessionKey)).toEqual(['shared-key']);
    expect(await engine.transcripts.list({ agentId: 'c' })).toEqual([]);
    expect((await engine.transcripts.search({ agentId: 'a', query: 'secret plans' })).map((h) => h.content)).toEqual([
      'alpha secret plans',
    ]);
    expect(await engine.transcripts.search({ agentId: 'b', query: 'secret plans' })).toEqual([]); // b's session is not completed
    expect(
      (await engine.transcripts.search({ agentId: 'b', query: 'secret', completedOnly: false })).map((h) => h.content),
    ).toEqual(['beta secret plans']);
  });

  it('searches with the same query rules as recall: stop words dropped, stems matched', async () => {
    const { engine } = await createTestEngine();
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 's',
      turns: [
        { role: 'user', content: 'What is it that you want from the team?' },
        { role: 'assistant', content: 'The launch plans are in the shared folder.' },
      ],
    });
    await engine.transcripts.complete({ agentId: 'a', sessionKey: 's' });
    const hits = await engine.transcripts.search({ agentId: 'a', query: 'what is the plan?' });
    expect(hits.map((h) => h.content)).toEqual(['The launch plans are in the shared folder.']);
  });

  it('lists most recent first with filters and paging', async () => {
    const { engine, clock } = await createTestEngine();
    for (const [i, key] of ['s1', 's2', 's3'].entries()) {
      clock.advance(1000);
      await engine.transcripts.append({
        agentId: 'a',
        sessionKey: key,
        project: i === 1 ? 'p' : 'q',
        turns: [{ role: 'user', content: key }],
      });
    }
    await engine.transcripts.complete({ agentId: 'a', sessionKey: 's1' });
    const all = await engine.transcripts.list({ agentId: 'a' });
    expect(all.map((s) => s.sessionKey)).toEqual(['s1', 's3', 's2']);
    expect((await engine.transcripts.list({ agentId: 'a', project: 'p' })).map((s) => s.sessionKey)).toEqual(['s2']);
    expect((await engine.transcripts.list({ agentId: 'a', completed: false })).map((s) => s.sessionKey)).toEqual([
      's3',
      's2',
    ]);
    // s1 and s3 share updated_at (s1 was completed at s3's time): paging must not skip either.
    const page = await engine.transcripts.list({ agentId: 'a', limit: 1 });
    const last = page[0];
    expect(last?.sessionKey).toBe('s1');
    const next = await engine.transcripts.list({
      agentId: 'a',
      after: { updatedAt: last?.updatedAt ?? 0, sessionKey: last?.sessionKey ?? '' },
    });
    expect(next.map((s) => s.sessionKey)).toEqual(['s3', 's2']);
  });

  it('rejects bad input without writing', async () => {
    const db = new Database(':memory:');
    const { engine } = await createTestEngine({
      database: { database: db },
      config: { transcripts: { maxTurnBytes: 10 } },
    });
    const bad = [
      { agentId: 'a', sessionKey: 's', turns: [] },
      { agentId: 'a', sessionKey: 's', turns: [{ role: 'narrator', content: 'x' }] },
      { agentId: 'a', sessionKey: 's', turns: [{ role: 'user', content: 'x'.repeat(11) }] },
      { agentId: 'a', sessionKey: '', turns: [{ role: 'user', content: 'x' }] },
      { agentId: 'a', sessionKey: 's', turns: [{ role: 'user', content: 'x', at: 'not a time' }] },
    ];
    for (const input of bad)
      await expect(engine.transcripts.append(input as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(db.prepare('SELECT count(*) AS n FROM session_transcripts').get()).toEqual({ n: 0 });
  });
});
