import {
  contentHash,
  createManualClock,
  type GenerateRequest,
  type GenerateResult,
  type LlmProvider,
  resolveConfig,
} from '@memory/core';
import { completeTranscript, type Store, upsertTranscript } from '@memory/store';
import { raw } from '@memory/store/sql';
import { createTestStore } from '@memory/store/testing';
import { describe, expect, it } from 'vitest';
import { runDreamingPass } from '../src/index.js';

const NOW = Date.UTC(2026, 0, 1);
const CHAT =
  'user: Project Atlas is our billing rewrite.\nassistant: Noted.\nuser: The Atlas launch moved to March because the vendor slipped.';
const config = resolveConfig({ dreaming: { enabled: true } });

function scripted(turns: Array<(request: GenerateRequest, i: number) => GenerateResult>) {
  let n = 0;
  const llm: LlmProvider & { calls: () => number } = {
    calls: () => n,
    async generate(request) {
      const turn = turns[Math.min(n, turns.length - 1)] as (r: GenerateRequest, i: number) => GenerateResult;
      n++;
      return turn(request, n - 1);
    },
  };
  return llm;
}

// Tool-call ids numbered in order: the same on every run.
let calls = 0;
const tool = (name: string, args: unknown, id = `c${++calls}`): GenerateResult => ({
  text: '<think>next step</think>',
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
  usage: { inputTokens: 100, outputTokens: 20 },
});

async function world(): Promise<Store> {
  const store = await createTestStore();
  store.write((sql) => {
    upsertTranscript(sql, { agentId: 'a', sessionKey: 'chat-1', harness: null, project: null, now: NOW });
    completeTranscript(sql, {
      agentId: 'a',
      sessionKey: 'chat-1',
      content: CHAT,
      contentHash: contentHash(CHAT),
      now: NOW,
    });
    upsertTranscript(sql, { agentId: 'b', sessionKey: 'chat-b', harness: null, project: null, now: NOW });
    completeTranscript(sql, {
      agentId: 'b',
      sessionKey: 'chat-b',
      content: 'user: b secrets',
      contentHash: 'h',
      now: NOW,
    });
  });
  return store;
}

describe('a Dreaming pass', () => {
  it('reads evidence, applies what quotes it exactly, is told why the rest was rejected, and records everything', async () => {
    const store = await world();
    const seen: string[] = [];
    const llm = scripted([
      () => tool('next_evidence', {}),
      (r) => {
        seen.push(String(r.messages.at(-1)?.content));
        return tool('apply_operations', {
          operations: [
            {
              operation: 'create_entity',
              payload: { name: 'Project Atlas', entityType: 'project', description: 'the billing rewrite' },
              evidence: [{ sourceRef: 'transcript:chat-1', quote: 'Project Atlas is our billing rewrite' }],
            },
            {
              operation: 'remember_memory',
              payload: { content: 'Atlas launches in March.', type: 'fact' },
              evidence: [{ sourceRef: 'transcript:chat-1', quote: 'Atlas launch was moved to March' }],
            },
            {
              operation: 'remember_memory',
              payload: { content: 'b secret', type: 'fact' },
              evidence: [{ sourceRef: 'transcript:chat-b', quote: 'b secrets' }],
            },
          ],
        });
      },
      (r) => {
        seen.push(String(r.messages.at(-1)?.content));
        return tool('apply_operations', {
          operations: [
            {
              operation: 'remember_memory',
              payload: { content: 'Atlas launches in March.', type: 'fact' },
              evidence: [{ sourceRef: 'transcript:chat-1', quote: 'The Atlas launch moved to March' }],
            },
          ],
        });
      },
      () => tool('next_evidence', {}),
      () => ({
        text: '<think>done</think>Created Project Atlas and one memory about the March launch.',
        usage: { inputTokens: 50, outputTokens: 10 },
      }),
    ]);
    const clock = createManualClock(NOW + 1000);
    const result = await runDreamingPass({ store, config, llm, clock }, { agentId: 'a' });
    expect(result).toMatchObject({
      status: 'completed',
      mode: 'incremental-content',
      summary: 'Created Project Atlas and one memory about the March launch.',
      toolCalls: 4,
      mutations: { applied: 2, rejected: 2 },
    });
    expect(seen[0]).toContain('Project Atlas is our billing rewrite');
    expect(seen[0]).not.toContain('b secrets');
    expect(seen[1]).toMatch(/word for word/);
    expect(seen[1]).toMatch(/is not evidence of this scope/);
    store.read((sql) => {
      expect(sql.get(raw('SELECT status, mode, trigger FROM dreaming_passes WHERE id = ?', result.passId))).toEqual({
        status: 'completed',
        mode: 'incremental-content',
        trigger: 'explicit',
      });
      expect(
        sql.all(
          raw('SELECT ordinal, tool, ok FROM dreaming_tool_calls WHERE pass_id = ? ORDER BY ordinal', result.passId),
        ),
      ).toEqual([
        { ordinal: 0, tool: 'next_evidence', ok: 1 },
        { ordinal: 1, tool: 'apply_operations', ok: 1 },
        { ordinal: 2, tool: 'apply_operations', ok: 1 },
        { ordinal: 3, tool: 'next_evidence', ok: 1 },
      ]);
      expect(
        sql.get(
          raw("SELECT count(*) AS n FROM dreaming_provenance WHERE pass_id = ? AND agent_id = 'a'", result.passId),
        ),
      ).toEqual({ n: 2 });
      expect(
        sql.get(raw("SELECT count(*) AS n FROM memories WHERE agent_id = 'a' AND source_type = 'dreaming'")),
      ).toEqual({ n: 1 });
      expect(
        sql.get(
          raw(
            "SELECT delivered_chars AS d, total_chars AS t FROM dreaming_evidence_offsets WHERE agent_id = 'a' AND source_ref = 'transcript:chat-1'",
          ),
        ),
      ).toEqual({ d: CHAT.length, t: CHAT.length });
      expect(
        sql.get(
          raw(
            "SELECT consecutive_failures AS f, last_pass_at AS at, last_mode AS mode FROM dreaming_state WHERE agent_id = 'a'",
          ),
        ),
      ).toEqual({ f: 0, at: NOW + 1000, mode: 'incremental-content' });
    });
    // The evidence is delivered, but the new entity has no aspects yet: the next pass is hygiene.
    const again = await runDreamingPass({ store, config, llm, clock }, { agentId: 'a' });
    expect(again).toMatchObject({ status: 'completed', mode: 'incremental-hygiene' });
    expect(
      store.read((sql) => sql.get(raw("SELECT subject_ref AS s FROM dreaming_attention WHERE agent_id = 'a'"))),
    ).toEqual({ s: expect.stringMatching(/^entity:/) });
  });

  it('skips without calling the model when there is no evidence and no attention', async () => {
    const store = await createTestStore();
    const llm = scripted([() => ({ text: 'should not be called' })]);
    const result = await runDreamingPass({ store, config, llm, clock: createManualClock(NOW) }, { agentId: 'a' });
    expect(result).toMatchObject({ status: 'skipped', mode: null });
    expect(llm.calls()).toBe(0);
    expect(store.read((sql) => sql.get(raw('SELECT status FROM dreaming_passes WHERE id = ?', result.passId)))).toEqual(
      { status: 'skipped' },
    );
  });

  it('stops a runaway agent at the tool-call cap, records it as failed with what it did, and re-delivers the evidence', async () => {
    const store = await world();
    const llm = scripted([() => tool('next_evidence', {})]);
    const result = await runDreamingPass(
      {
        store,
        config: resolveConfig({ dreaming: { enabled: true, maxToolCalls: 200, maxTurns: 1000 } }),
        llm,
        clock: createManualClock(NOW),
      },
      { agentId: 'a' },
    );
    expect(result).toMatchObject({ status: 'failed', error: 'stopped: tool_call_cap', toolCalls: 200 });
    store.read((sql) => {
      expect(sql.get(raw('SELECT count(*) AS n FROM dreaming_tool_calls WHERE pass_id = ?', result.passId))).toEqual({
        n: 200,
      });
      expect(
        sql.get(
          raw("SELECT consecutive_failures AS f, last_failure_at AS at FROM dreaming_state WHERE agent_id = 'a'"),
        ),
      ).toEqual({ f: 1, at: NOW });
      expect(sql.get(raw("SELECT count(*) AS n FROM dreaming_evidence_offsets WHERE agent_id = 'a'"))).toEqual({
        n: 0,
      });
    });
  });

  it('stops a pass at its 20-minute deadline on the injected clock and records it as failed', async () => {
    const store = await world();
    const clock = createManualClock(NOW);
    const llm = scripted([
      () => {
        clock.advance(21 * 60_000);
        return tool('next_evidence', {});
      },
    ]);
    const result = await runDreamingPass({ store, config, llm, clock }, { agentId: 'a' });
    expect(result).toMatchObject({ status: 'failed', error: 'stopped: deadline', toolCalls: 0 });
    expect(
      store.read((sql) =>
        sql.get(raw('SELECT status, runbook_json AS r FROM dreaming_passes WHERE id = ?', result.passId)),
      ),
    ).toEqual({ status: 'failed', r: expect.stringContaining('"stop":"deadline"') });
  });

  it('records a failed pass when the model errors, and counts consecutive failures', async () => {
    const store = await world();
    const llm: LlmProvider = {
      async generate() {
        throw new Error('503 from the model server');
      },
    };
    const clock = createManualClock(NOW);
    await runDreamingPass({ store, config, llm, clock }, { agentId: 'a' });
    const second = await runDreamingPass({ store, config, llm, clock }, { agentId: 'a' });
    expect(second).toMatchObject({ status: 'failed', error: expect.stringMatching(/503/) });
    expect(
      store.read((sql) => sql.get(raw("SELECT consecutive_failures AS f FROM dreaming_state WHERE agent_id = 'a'"))),
    ).toEqual({ f: 2 });
  });

  it('runs hygiene on attention without reading evidence, and refuses to run while frozen', async () => {
    const store = await world();
    store.write((sql) => {
      sql.run(
        raw(
          "INSERT INTO entities (id, agent_id, name, canonical_name, created_at, updated_at) VALUES ('dup', 'a', 'Atlas Project', 'atlas project', ?, ?)",
          NOW,
          NOW,
        ),
      );
      sql.run(
        raw(
          "INSERT INTO dreaming_attention (id, agent_id, kind, subject_ref, created_by, created_at) VALUES ('att-1', 'a', 'hygiene', 'entity:dup', 'engine', ?)",
          NOW,
        ),
      );
    });
    const llm = scripted([
      () => tool('list_attention', {}),
      () =>
        tool('apply_operations', {
          operations: [
            {
              operation: 'archive_entity',
              payload: { entityId: 'dup' },
              evidence: [{ sourceRef: 'attention:att-1', quote: '' }],
              reason: 'empty duplicate',
            },
          ],
        }),
      () => ({ text: 'Archived the empty duplicate.' }),
    ]);
    const result = await runDreamingPass(
      { store, config, llm, clock: createManualClock(NOW) },
      { agentId: 'a', mode: 'incremental-hygiene' },
    );
    expect(result).toMatchObject({ status: 'completed', mutations: { applied: 1 } });
    expect(store.read((sql) => sql.get(raw("SELECT resolution FROM dreaming_attention WHERE id = 'att-1'")))).toEqual({
      resolution: 'resolved',
    });
    await expect(
      runDreamingPass(
        { store, config: resolveConfig({ dreaming: { mutationsFrozen: true } }), llm, clock: createManualClock(NOW) },
        { agentId: 'a' },
      ),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
  });
});
