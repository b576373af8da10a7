import {
  contentHash,
  createManualClock,
  type GenerateRequest,
  type GenerateResult,
  type LlmProvider,
  normalizeForHash,
  resolveConfig,
} from '@memory/core';
import {
  completeTranscript,
  insertEntity,
  insertHints,
  type MemoryType,
  type Store,
  upsertTranscript,
} from '@memory/store';
import { raw, type SqlExecutor } from '@memory/store/sql';
import { createTestStore, insertMemory } from '@memory/store/testing';
import { describe, expect, it } from 'vitest';
import { readMemoryHead, runDreamingPass } from '../src/index.js';
import { writeMemoryHead } from '../src/memory-head.js';

const NOW = Date.UTC(2026, 0, 1);
const CHAT = 'user: Dana leads support and prefers short status emails.\nassistant: Noted.';
const config = resolveConfig({ dreaming: { enabled: true } });

async function world(): Promise<Store> {
  const store = await createTestStore();
  store.write((sql) => {
    for (const [agent, key, content] of [
      ['a', 'chat-1', CHAT],
      ['a', 'spam', 'user: test test test'],
      ['b', 'chat-b', 'user: Dana from agent b is someone else'],
    ] as const) {
      upsertTranscript(sql, { agentId: agent, sessionKey: key, harness: null, project: null, now: NOW });
      completeTranscript(sql, {
        agentId: agent,
        sessionKey: key,
        content,
        contentHash: contentHash(content),
        now: NOW,
      });
      sql.run(
        raw(
          "INSERT INTO session_transcript_turns (agent_id, session_key, turn_key, role, content, created_at) VALUES (?, ?, 't1', 'user', ?, ?)",
          agent,
          key,
          content.replace(/^user: /, ''),
          NOW,
        ),
      );
    }
    insertEntity(sql, { id: 'dana', agentId: 'a', name: 'Dana', now: NOW });
  });
  return store;
}

/** A model that calls the given tools in order, then summarizes; it records every tool result it saw. */
function caller(steps: Array<[string, unknown]>) {
  const seen: string[] = [];
  let i = 0;
  const llm: LlmProvider = {
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const last = request.messages.at(-1);
      if (last?.role === 'tool') seen.push(last.content);
      const step = steps[i++];
      return step
        ? { text: '', toolCalls: [{ id: `s${i}`, name: step[0], arguments: JSON.stringify(step[1]) }] }
        : { text: 'done' };
    },
  };
  return { llm, seen };
}

describe('pass tools', () => {
  it('search, validate (dry run), runbook notes, exclusions and MEMORY.md, all scoped to the agent', async () => {
    const store = await world();
    const quote = { sourceRef: 'transcript:chat-1', quote: 'Dana leads support and prefers short status emails' };
    const { llm, seen } = caller([
      ['search_evidence', { query: 'Dana status emails' }],
      [
        'validate_operations',
        {
          operations: [
            { operation: 'create_entity', payload: { name: 'it' }, evidence: [quote] },
            { operation: 'create_entity', payload: { name: 'dana' }, evidence: [quote] },
          ],
        },
      ],
      ['write_runbook', { notes: 'Dana is a person; support is her team.' }],
      ['read_runbook', {}],
      ['exclude_evidence', { sourceRef: 'transcript:spam', reason: 'test chatter' }],
      ['exclude_evidence', { sourceRef: 'transcript:chat-b', reason: 'not mine' }],
      ['read_memory_head', {}],
      [
        'write_memory_head',
        {
          entries: [{ text: 'Dana leads support; keep status emails short.', evidence: [quote] }],
          expectedRevision: 0,
          expectedHash: '',
        },
      ],
      ['walk_links', { entityId: 'dana' }],
      ['list_contradictions', {}],
      ['review_evidence', { sourceRef: 'transcript:chat-1', verdict: 'consolidated', notes: 'Dana captured' }],
      ['review_evidence', { sourceRef: 'transcript:chat-b', verdict: 'consolidated' }],
    ]);
    const result = await runDreamingPass(
      { store, config, llm, clock: createManualClock(NOW) },
      { agentId: 'a', mode: 'incremental-content' },
    );
    expect(result.status).toBe('completed');
    const [
      search,
      validate,
      ,
      runbook,
      excluded,
      foreign,
      head,
      written,
      links,
      contradictions,
      reviewed,
      reviewedForeign,
    ] = seen.map((s) => JSON.parse(s) as unknown);
    expect(reviewed).toEqual({ recorded: true });
    expect(reviewedForeign).toEqual({ error: "transcript:chat-b is not this agent's evidence" });
    expect(store.read((sql) => sql.all(raw('SELECT source_ref AS s, verdict FROM dreaming_evidence_reviews')))).toEqual(
      [{ s: 'transcript:chat-1', verdict: 'consolidated' }],
    );
    expect(search).toEqual([
      {
        sourceRef: 'transcript:chat-1',
        text: 'Dana leads support and prefers short status emails.\nassistant: Noted.',
      },
    ]);
    expect(validate).toMatchObject({
      decisions: [
        { index: 0, status: 'apply' },
        { index: 1, status: 'rejected' },
      ],
      warnings: [{ index: 0, warning: expect.stringMatching(/weak name/) }],
    });
    expect(runbook).toEqual({ notes: 'Dana is a person; support is her team.' });
    expect(excluded).toEqual({ excluded: 'transcript:spam' });
    expect(foreign).toEqual({ error: 'transcript:chat-b: not_found' });
    expect(head).toEqual({ revision: 0, contentHash: '', content: '' });
    expect(written).toEqual({ ok: true, revision: 1 });
    expect(links).toEqual([]);
    expect(contradictions).toEqual([]);
    // The dry run wrote nothing; the head is there; spam is no longer delivered.
    expect(store.read((sql) => sql.get(raw("SELECT count(*) AS n FROM entities WHERE agent_id = 'a'")))).toEqual({
      n: 1,
    });
    expect(store.read((sql) => readMemoryHead(sql, 'a'))?.content).toBe(
      '# MEMORY\n\n- Dana leads support; keep status emails short.',
    );
    expect(store.read((sql) => sql.all(raw('SELECT source_ref AS s FROM dreaming_evidence_exclusions')))).toEqual([
      { s: 'transcript:spam' },
    ]);
  });
});

describe('search_evidence', () => {
  it('finds memories through the one recall path (words or hints, any age; no chunks, no other scope, no access counted)', async () => {
    const store = await world();
    const memory = (tx: SqlExecutor, id: string, agentId: string, content: string, type: MemoryType, at = NOW) =>
      insertMemory(tx, {
        id,
        agent_id: agentId,
        type,
        content,
        normalized_content: normalizeForHash(content),
        content_hash: contentHash(content),
        confidence: 1,
        importance: 0.5,
        tags: '[]',
        linked_entities: '[]',
        pinned: 0,
        created_at: at,
        updated_at: at,
      });
    store.write((tx) => {
      memory(tx, 'm-old', 'a', 'Dana asked for weekly status emails', 'fact', NOW - 400 * 86_400_000);
      memory(tx, 'm-hint', 'a', 'Quarterly numbers go to the board', 'fact');
      insertHints(tx, 'a', 'm-hint', ['who receives the status emails'], NOW);
      memory(tx, 'm-chunk', 'a', 'Dana status emails, from the handbook', 'document_chunk');
      memory(tx, 'm-b', 'b', 'Dana status emails in agent b', 'fact');
    });
    const { llm, seen } = caller([['search_evidence', { query: 'Dana status emails' }]]);
    const result = await runDreamingPass(
      { store, config, llm, clock: createManualClock(NOW) },
      { agentId: 'a', mode: 'incremental-content' },
    );
    expect(result.status).toBe('completed');
    const found = JSON.parse(seen[0] ?? '[]') as Array<{ sourceRef: string; text: string }>;
    expect(found.map((f) => f.sourceRef)).toEqual(['transcript:chat-1', 'memory:m-old', 'memory:m-hint']);
    expect(found[1]).toEqual({ sourceRef: 'memory:m-old', text: 'Dana asked for weekly status emails' });
    // The pass's searches are not host use: no access is recorded.
    expect(store.read((tx) => tx.all(raw('SELECT sum(access_count) AS n FROM memories')))).toEqual([{ n: 0 }]);
  });
});

describe('MEMORY.md head', () => {
  it('needs exact quotes, stays short, and never overwrites a head it did not read (compare-and-swap)', async () => {
    const store = await world();
    const quote = { sourceRef: 'transcript:chat-1', quote: 'prefers short status emails' };
    const write = (
      expectedRevision: number,
      expectedHash: string,
      entries = [{ text: 'Short status emails for Dana.', evidence: [quote] }],
    ) =>
      store.write((sql) =>
        writeMemoryHead(sql, { agentId: 'a', passId: 'p', entries, expectedRevision, expectedHash, now: NOW }),
      );
    expect(write(0, '')).toEqual({ ok: true, revision: 1 });
    const head = store.read((sql) => readMemoryHead(sql, 'a'));
    expect(write(0, '')).toEqual({ ok: false, reason: expect.stringMatching(/changed since it was read/) });
    expect(write(1, 'stale-hash')).toEqual({ ok: false, reason: expect.stringMatching(/changed since it was read/) });
    expect(
      write(1, head?.contentHash ?? '', [
        { text: 'x', evidence: [{ sourceRef: 'transcript:chat-1', quote: 'likes brief emails' }] },
      ]),
    ).toEqual({ ok: false, reason: expect.stringMatching(/word for word/) });
    expect(
      write(
        1,
        head?.contentHash ?? '',
        Array.from({ length: 40 }, (_, i) => ({ text: `${'long entry '.repeat(10)}${i}`, evidence: [quote] })),
      ),
    ).toEqual({ ok: false, reason: expect.stringMatching(/keep it under 4000/) });
    expect(write(1, head?.contentHash ?? '')).toEqual({ ok: true, revision: 2 });
    expect(store.read((sql) => readMemoryHead(sql, 'b'))).toBeUndefined();
  });
});
