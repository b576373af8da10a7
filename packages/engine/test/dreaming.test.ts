import { describe, expect, it } from 'vitest';
import { createTestEngine, T0 } from './helpers.js';

describe('engine.dreaming', () => {
  it('applies audited operations whose claims recall then reaches through the graph', async () => {
    const { engine } = await createTestEngine();
    const note = await engine.remember({
      agentId: 'a',
      content: 'Standup notes: the launch slipped to March after the vendor delay',
    });
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 'chat-1',
      turns: [{ role: 'user', content: 'Project Atlas is our billing rewrite; the launch slipped to March.' }],
    });
    await engine.transcripts.complete({ agentId: 'a', sessionKey: 'chat-1' });

    const first = await engine.dreaming.apply({
      agentId: 'a',
      passId: 'p1',
      operations: [
        {
          operation: 'create_entity',
          payload: { name: 'Project Atlas', aliases: ['Atlas'] },
          evidence: [{ sourceRef: 'transcript:chat-1', quote: 'Project Atlas is our billing rewrite' }],
        },
      ],
    });
    const atlas = first.applied[0]?.targetId ?? '';
    const second = await engine.dreaming.apply({
      agentId: 'a',
      passId: 'p1',
      operations: [
        {
          operation: 'create_aspect',
          payload: { entityId: atlas, name: 'schedule' },
          evidence: [{ sourceRef: 'transcript:chat-1', quote: 'the launch slipped to March' }],
        },
      ],
    });
    const aspect = second.applied[0]?.targetId ?? '';
    const third = await engine.dreaming.apply({
      agentId: 'a',
      passId: 'p1',
      operations: [
        {
          operation: 'add_claim',
          payload: { aspectId: aspect, claimKey: 'launch', content: 'The launch is in March.', validFrom: T0 },
          evidence: [{ sourceRef: `memory:${note.id}`, quote: 'the launch slipped to March' }],
        },
        {
          operation: 'add_claim',
          payload: { aspectId: aspect, claimKey: 'owner', content: 'Dana owns it.' },
          evidence: [{ sourceRef: 'transcript:chat-1', quote: 'Dana owns the rewrite' }],
        },
      ],
    });
    expect(third.applied).toHaveLength(1);
    expect(third.rejected).toEqual([{ index: 1, reason: expect.stringMatching(/word for word/) }]);

    const response = await engine.recall({ agentId: 'a', query: 'how is Atlas doing?', explain: true });
    expect(response.results[0]).toMatchObject({ id: note.id, tier: 'linked', explanation: { path: { hops: 0 } } });
    expect(await engine.dreaming.claimsAsOf({ agentId: 'a', entityId: atlas, asOf: T0 + 1 })).toEqual([
      expect.objectContaining({ content: 'The launch is in March.' }),
    ]);
    // Another agent sees nothing of it.
    expect(await engine.dreaming.claimsAsOf({ agentId: 'b', entityId: atlas, asOf: T0 + 1 })).toEqual([]);
    await expect(engine.dreaming.apply({ agentId: 'a', operations: 'not a batch' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    // Passes need a model.
    await expect(engine.dreaming.runPass({ agentId: 'a' })).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
  });

  it('runs a pass through the engine with the host’s model, under the provider guard', async () => {
    let turn = 0;
    const { engine } = await createTestEngine({
      llm: {
        async generate() {
          turn++;
          if (turn === 1) return { text: '', toolCalls: [{ id: 't1', name: 'next_evidence', arguments: '{}' }] };
          if (turn === 2)
            return {
              text: '',
              toolCalls: [
                {
                  id: 't2',
                  name: 'apply_operations',
                  arguments: JSON.stringify({
                    operations: [
                      {
                        operation: 'create_entity',
                        payload: { name: 'Dana' },
                        evidence: [{ sourceRef: 'transcript:s1', quote: 'Dana runs the support team' }],
                      },
                    ],
                  }),
                },
              ],
            };
          return { text: 'Created Dana.' };
        },
      },
      config: { hints: { enabled: false } },
    });
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 's1',
      turns: [{ role: 'user', content: 'Dana runs the support team.' }],
    });
    await engine.transcripts.complete({ agentId: 'a', sessionKey: 's1' });
    const result = await engine.dreaming.runPass({ agentId: 'a' });
    expect(result).toMatchObject({
      status: 'completed',
      summary: 'Created Dana.',
      mutations: { applied: 1, rejected: 0 },
    });
    expect(await engine.memoryHead({ agentId: 'a' })).toBeUndefined();
    // The evidence was read; the next pass turns to hygiene (the new entity has no aspects yet).
    expect(await engine.dreaming.runPass({ agentId: 'a' })).toMatchObject({ mode: 'incremental-hygiene' });
  });
});

describe('scheduled Dreaming', () => {
  it('runs a pass when an agent has new evidence, on the engine schedule, and not again without new work', async () => {
    const { createManualClock, createManualScheduler } = await import('@memory/core');
    const Database = (await import('better-sqlite3')).default;
    const clock = createManualClock(T0);
    const scheduler = createManualScheduler(clock);
    const db = new Database(':memory:');
    let turns = 0;
    const { engine } = await createTestEngine({
      database: { database: db },
      clock,
      scheduler,
      llm: {
        async generate(request) {
          turns++;
          const last = request.messages.at(-1);
          return last?.role === 'tool'
            ? { text: 'Read the new evidence; nothing settled yet.' }
            : { text: '', toolCalls: [{ id: `n${turns}`, name: 'next_evidence', arguments: '{}' }] };
        },
      },
      // Registry auto-linking would be one more model call per completed session: this counts Dreaming's.
      config: {
        dreaming: { enabled: true, checkIntervalMs: 60_000 },
        hints: { enabled: false },
        registry: { autoLinkOnCreate: false },
      },
    });
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 's1',
      turns: [{ role: 'user', content: 'We ship on Fridays only after the checklist.' }],
    });
    await engine.transcripts.complete({ agentId: 'a', sessionKey: 's1' });
    await engine.start();
    await scheduler.advance(60_000);
    const passes = () =>
      db.prepare("SELECT trigger, status FROM dreaming_passes WHERE agent_id = 'a' ORDER BY started_at").all();
    expect(passes()).toEqual([{ trigger: 'first_run', status: 'completed' }]);
    await scheduler.advance(60_000);
    expect(passes()).toHaveLength(1);
    expect(turns).toBe(2);
    await engine.close();
  });
});

describe('memories Dreaming writes', () => {
  it('get vectors after the seam commits, so the semantic channel finds them', async () => {
    const { createBagOfWordsEmbedder } = await import('./helpers.js');
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(':memory:');
    const { engine } = await createTestEngine({ database: { database: db }, embedder: createBagOfWordsEmbedder(64) });
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 's1',
      turns: [{ role: 'user', content: 'The quarterly budget review moved to Thursday.' }],
    });
    await engine.transcripts.complete({ agentId: 'a', sessionKey: 's1' });
    const result = await engine.dreaming.apply({
      agentId: 'a',
      operations: [
        {
          operation: 'remember_memory',
          payload: { content: 'Quarterly budget review is on Thursday.', type: 'fact' },
          evidence: [{ sourceRef: 'transcript:s1', quote: 'budget review moved to Thursday' }],
        },
      ],
    });
    const id = result.applied[0]?.targetId;
    expect(
      db.prepare("SELECT count(*) AS n FROM embeddings WHERE source_type = 'memory' AND source_id = ?").get(id),
    ).toEqual({ n: 1 });
    const response = await engine.recall({ agentId: 'a', query: 'quarterly budget thursday' });
    expect(response.results[0]).toMatchObject({ id, channels: { semantic: expect.any(Number) } });
  });
});

describe('explicit passes and the LLM limit', () => {
  it('queue behind the shared limit: two agents’ passes never call the model at once with llmConcurrency 1', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const { engine } = await createTestEngine({
      llm: {
        async generate() {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await new Promise((resolve) => setTimeout(resolve, 10));
          inFlight--;
          return { text: 'nothing to do' };
        },
      },
      config: { queue: { llmConcurrency: 1 }, hints: { enabled: false } },
    });
    for (const agentId of ['a', 'b']) {
      await engine.transcripts.append({
        agentId,
        sessionKey: 's',
        turns: [{ role: 'user', content: `notes for ${agentId}` }],
      });
      await engine.transcripts.complete({ agentId, sessionKey: 's' });
    }
    const passes = await Promise.all([
      engine.dreaming.runPass({ agentId: 'a' }),
      engine.dreaming.runPass({ agentId: 'b' }),
    ]);
    expect(passes.map((p) => p.status)).toEqual(['completed', 'completed']);
    expect(maxInFlight).toBe(1);
  });
});
