import { describe, expect, it } from 'vitest';
import { createTestEngine } from './helpers.js';

// Transcript turns are searched in the asking agent's scope, and "completed" is the completion of
// that agent's session, never of another agent's session under the same key. A second test of the
// turn scope, independent of the one in transcripts.test.ts (which completes the first agent's
// session and looks from the second's side).

describe('transcript turn search scope', () => {
  it('another agent completing a session under the same key does not make this agent’s open session citable', async () => {
    const { engine } = await createTestEngine();
    await engine.transcripts.append({
      agentId: 'b',
      sessionKey: 'standup',
      turns: [{ role: 'user', content: 'b: the release train leaves Friday' }],
    });
    await engine.transcripts.complete({ agentId: 'b', sessionKey: 'standup' });
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 'standup',
      turns: [{ role: 'user', content: 'a: the release train is late again' }],
    });
    expect(await engine.transcripts.search({ agentId: 'a', query: 'release train' })).toEqual([]);
    expect(
      (await engine.transcripts.search({ agentId: 'a', query: 'release train', completedOnly: false })).map(
        (h) => h.content,
      ),
    ).toEqual(['a: the release train is late again']);
    expect((await engine.transcripts.search({ agentId: 'b', query: 'release train' })).map((h) => h.content)).toEqual([
      'b: the release train leaves Friday',
    ]);
    await engine.transcripts.complete({ agentId: 'a', sessionKey: 'standup' });
    expect((await engine.transcripts.search({ agentId: 'a', query: 'release train' })).map((h) => h.content)).toEqual([
      'a: the release train is late again',
    ]);
  });

  it('another agent’s many better-matching turns never take this agent’s places under the limit', async () => {
    const { engine } = await createTestEngine();
    for (let i = 0; i < 30; i++) {
      await engine.transcripts.append({
        agentId: 'b',
        sessionKey: `b-${i}`,
        turns: [{ role: 'assistant', content: `invoice invoice invoice ${i}` }],
      });
      await engine.transcripts.complete({ agentId: 'b', sessionKey: `b-${i}` });
    }
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 'billing',
      turns: [{ role: 'user', content: 'Please resend the March invoice to the finance team, with the PO number.' }],
    });
    await engine.transcripts.complete({ agentId: 'a', sessionKey: 'billing' });
    const hits = await engine.transcripts.search({ agentId: 'a', query: 'invoice', limit: 1 });
    expect(hits.map((h) => [h.sessionKey, h.role])).toEqual([['billing', 'user']]);
  });
});
