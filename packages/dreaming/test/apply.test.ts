import { contentHash, defaultConfig, type MemoryConfig, normalizeForHash, resolveConfig } from '@memory/core';
import {
  claimsAsOf,
  completeTranscript,
  insertAspect,
  insertClaim,
  insertEntity,
  type Store,
  upsertTranscript,
} from '@memory/store';
import { raw } from '@memory/store/sql';
import { createTestStore, insertMemory } from '@memory/store/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyDreamingOperations } from '../src/index.js';

const NOW = Date.UTC(2026, 0, 1);
const QUOTE = 'we moved the Atlas launch to March';
const cite = [{ sourceRef: 'transcript:chat-1', quote: QUOTE }];
const ctx = { agentId: 'a', passId: 'pass-1' };

async function world() {
  const store = await createTestStore();
  store.write((sql) => {
    const content = `user: ${QUOTE}\nassistant: noted, the launch review is on Friday`;
    upsertTranscript(sql, { agentId: 'a', sessionKey: 'chat-1', harness: null, project: null, now: NOW });
    completeTranscript(sql, {
      agentId: 'a',
      sessionKey: 'chat-1',
      content,
      contentHash: contentHash(content),
      now: NOW,
    });
    insertEntity(sql, { id: 'atlas', agentId: 'a', name: 'Atlas', now: NOW });
    insertEntity(sql, { id: 'atlas-dup', agentId: 'a', name: 'Project Atlas', now: NOW });
    insertAspect(sql, { id: 'schedule', agentId: 'a', entityId: 'atlas', name: 'schedule', now: NOW });
    insertClaim(sql, {
      id: 'feb',
      agentId: 'a',
      entityId: 'atlas',
      aspectId: 'schedule',
      claimKey: 'launch',
      content: 'launch in February',
      validFrom: Date.UTC(2025, 11, 1),
      now: NOW,
    });
    const m = 'Never ship Atlas on a Friday.';
    insertMemory(sql, {
      id: 'mem-pinned',
      agent_id: 'a',
      type: 'constraint',
      content: m,
      normalized_content: normalizeForHash(m),
      content_hash: contentHash(m),
      confidence: 1,
      importance: 0.9,
      tags: '[]',
      linked_entities: '[]',
      pinned: 1,
      created_at: NOW,
      updated_at: NOW,
    });
    sql.run(
      raw(
        "INSERT INTO dreaming_attention (id, agent_id, kind, subject_ref, created_by, created_at) VALUES ('att-dup', 'a', 'hygiene', 'entity:atlas-dup', 'engine', ?)",
        NOW,
      ),
    );
  });
  return store;
}

const config = (dreaming: Partial<MemoryConfig['dreaming']> = {}): MemoryConfig => resolveConfig({ dreaming });
const count = (store: Store, table: string) =>
  store.read((sql) => sql.get<{ n: number }>(raw(`SELECT count(*) AS n FROM ${table}`))?.n ?? 0);
const WRITE_TABLES = [
  'entities',
  'entity_aspects',
  'entity_attributes',
  'entity_dependencies',
  'memories',
  'memory_history',
  'dreaming_attention',
  'ontology_proposals',
  'dreaming_provenance',
];
const counts = (store: Store) => Object.fromEntries(WRITE_TABLES.map((t) => [t, count(store, t)]));

describe('the apply seam', () => {
  it('writes valid operations with provenance to their evidence, and history for memories', async () => {
    const store = await world();
    const result = applyDreamingOperations(store, defaultConfig, ctx, [
      {
        operation: 'create_entity',
        payload: { name: 'Launch Review', entityType: 'event' },
        evidence: cite,
        confidence: 0.9,
      },
      {
        operation: 'supersede_claim',
        payload: {
          claimId: 'feb',
          content: 'The Atlas launch is in March.',
          validFrom: Date.UTC(2026, 2, 1),
          timePrecision: 'month',
        },
        evidence: cite,
      },
      { operation: 'remember_memory', payload: { content: 'Atlas launches in March.', type: 'fact' }, evidence: cite },
    ]);
    expect(result.rejected).toEqual([]);
    expect(result.applied.map((a) => [a.index, a.operation, a.targetType])).toEqual([
      [0, 'create_entity', 'entity'],
      [1, 'supersede_claim', 'claim'],
      [2, 'remember_memory', 'memory'],
    ]);
    const provenance = store.read((sql) =>
      sql.all<{ operation: string; target_id: string; pass_id: string; evidence_json: string }>(
        raw('SELECT operation, target_id, pass_id, evidence_json FROM dreaming_provenance ORDER BY seq'),
      ),
    );
    expect(provenance.map((p) => [p.operation, p.target_id, p.pass_id])).toEqual(
      result.applied.map((a) => [a.operation, a.targetId, 'pass-1']),
    );
    expect(JSON.parse(provenance[0]?.evidence_json ?? '[]')).toEqual(cite);
    const memoryId = result.applied[2]?.targetId ?? '';
    const history = store.read((sql) =>
      sql.all<{ event: string; changed_by: string; metadata: string }>(
        raw('SELECT event, changed_by, metadata FROM memory_history WHERE memory_id = ?', memoryId),
      ),
    );
    expect(history).toEqual([{ event: 'created', changed_by: 'dreaming', metadata: expect.stringContaining(QUOTE) }]);
  });

  it('supersedes without deleting: both claims remain, with record time and the link between them', async () => {
    const store = await world();
    const result = applyDreamingOperations(store, defaultConfig, ctx, [
      {
        operation: 'supersede_claim',
        payload: { claimId: 'feb', content: 'launch in March', validFrom: Date.UTC(2026, 2, 1) },
        evidence: cite,
      },
    ]);
    const march = result.applied[0]?.targetId;
    const rows = store.read((sql) =>
      sql.all<{ id: string; status: string; superseded_by: string | null; superseded_at: number | null }>(
        raw(
          "SELECT id, status, superseded_by, superseded_at FROM entity_attributes WHERE claim_key = 'launch' ORDER BY created_at, id",
        ),
      ),
    );
    expect(rows).toEqual(
      expect.arrayContaining([
        { id: 'feb', status: 'superseded', superseded_by: march, superseded_at: NOW },
        { id: march, status: 'active', superseded_by: null, superseded_at: null },
      ]),
    );
    // As of a date, the claim that was true then.
    const asOf = (at: number) => store.read((sql) => claimsAsOf(sql, 'a', 'atlas', at)).map((c) => c.content);
    expect(asOf(Date.UTC(2026, 0, 15))).toEqual(['launch in February']);
    expect(asOf(Date.UTC(2026, 3, 1))).toEqual(['launch in March']);
    expect(asOf(Date.UTC(2025, 0, 1))).toEqual([]);
    expect(store.read((sql) => claimsAsOf(sql, 'b', 'atlas', Date.UTC(2026, 3, 1)))).toEqual([]);
  });

  it('writes nothing for an invalid batch member and returns each reason; the valid ones still apply', async () => {
    const store = await world();
    const before = counts(store);
    const result = applyDreamingOperations(store, defaultConfig, ctx, [
      {
        operation: 'create_entity',
        payload: { name: 'Zephyr' },
        evidence: [{ sourceRef: 'transcript:chat-1', quote: 'we postponed the launch' }],
      },
      { operation: 'archive_entity', payload: { entityId: 'atlas' } },
      { operation: 'add_claim', payload: { aspectId: 'ghost', claimKey: 'k', content: 'x' }, evidence: cite },
      { operation: 'explode', payload: {} },
    ]);
    expect(result.applied).toEqual([]);
    expect(result.rejected.map((r) => r.index)).toEqual([0, 1, 2, 3]);
    expect(counts(store)).toEqual(before);
  });

  it('routes an add that contradicts an active claim with the same key to review, recording the contradiction', async () => {
    const store = await world();
    const result = applyDreamingOperations(store, defaultConfig, ctx, [
      {
        operation: 'add_claim',
        payload: { aspectId: 'schedule', claimKey: 'launch', content: 'launch in March' },
        evidence: cite,
      },
      {
        operation: 'add_claim',
        payload: { aspectId: 'schedule', claimKey: 'launch', content: 'Launch in February ' },
        evidence: cite,
      },
    ]);
    expect(result.proposals).toEqual([{ index: 0, id: expect.any(String), route: 'contradiction' }]);
    // Restating the same content is not a contradiction.
    expect(result.applied.map((a) => a.index)).toEqual([1]);
    expect(store.read((sql) => sql.get(raw('SELECT claim_id AS claim, status FROM ontology_contradictions')))).toEqual({
      claim: 'feb',
      status: 'open',
    });
    expect(store.read((sql) => sql.get(raw("SELECT content FROM entity_attributes WHERE id = 'feb'")))).toEqual({
      content: 'launch in February',
    });
  });

  it('hygiene resolves the attention it acted on', async () => {
    const store = await world();
    // Both entities have a "schedule" aspect: the merge folds the duplicate's claims into the survivor's.
    store.write((sql) => {
      insertAspect(sql, { id: 'dup-schedule', agentId: 'a', entityId: 'atlas-dup', name: 'Schedule', now: NOW });
      insertClaim(sql, {
        id: 'dup-claim',
        agentId: 'a',
        entityId: 'atlas-dup',
        aspectId: 'dup-schedule',
        claimKey: 'review',
        content: 'review on Friday',
        now: NOW,
      });
    });
    const result = applyDreamingOperations(store, defaultConfig, ctx, [
      {
        operation: 'merge_entities',
        payload: { sourceEntityId: 'atlas-dup', targetEntityId: 'atlas' },
        evidence: [{ sourceRef: 'attention:att-dup', quote: '' }],
      },
    ]);
    expect(result.applied).toHaveLength(1);
    const attention = store.read((sql) =>
      sql.get(raw("SELECT resolution, resolved_by_pass_id AS pass FROM dreaming_attention WHERE id = 'att-dup'")),
    );
    expect(attention).toEqual({ resolution: 'resolved', pass: 'pass-1' });
    expect(store.read((sql) => sql.get(raw("SELECT status FROM entities WHERE id = 'atlas-dup'")))).toEqual({
      status: 'archived',
    });
    expect(
      store.read((sql) =>
        sql.get(raw("SELECT aspect_id AS aspect, entity_id AS entity FROM entity_attributes WHERE id = 'dup-claim'")),
      ),
    ).toEqual({ aspect: 'schedule', entity: 'atlas' });
    expect(store.read((sql) => sql.get(raw("SELECT status FROM entity_aspects WHERE id = 'dup-schedule'")))).toEqual({
      status: 'archived',
    });
    // A rename keeps the previous row with its provenance, and the old name as an alias.
    const renamed = applyDreamingOperations(store, defaultConfig, ctx, [
      { operation: 'rename_entity', payload: { entityId: 'atlas', name: 'Atlas Billing' }, evidence: cite },
    ]);
    expect(renamed.applied).toHaveLength(1);
    const previous =
      store.read((sql) =>
        sql.get<{ p: string }>(
          raw("SELECT previous_json AS p FROM dreaming_provenance WHERE operation = 'rename_entity'"),
        ),
      )?.p ?? '{}';
    expect(JSON.parse(previous)).toMatchObject({ id: 'atlas', name: 'Atlas', status: 'active' });
    // The old name now resolves to the survivor.
    expect(
      store.read((sql) => sql.get(raw("SELECT entity_id FROM entity_aliases WHERE canonical_alias = 'project atlas'"))),
    ).toEqual({ entity_id: 'atlas' });
  });

  it('in shadow mode records proposals and writes nothing else; frozen refuses everything', async () => {
    const store = await world();
    const before = counts(store);
    const ops = [{ operation: 'create_entity', payload: { name: 'Zephyr' }, evidence: cite }];
    const shadow = applyDreamingOperations(store, config({ shadowMode: true }), ctx, ops);
    expect(shadow).toMatchObject({ applied: [], rejected: [], proposals: [{ index: 0, route: 'shadow' }] });
    expect(counts(store)).toEqual({ ...before, ontology_proposals: 1 });
    const frozen = applyDreamingOperations(store, config({ mutationsFrozen: true }), ctx, ops);
    expect(frozen).toEqual({
      applied: [],
      rejected: [{ index: 0, reason: expect.stringMatching(/mutationsFrozen/) }],
      proposals: [],
    });
    expect(counts(store)).toEqual({ ...before, ontology_proposals: 1 });
  });

  it('archives a memory only with the policy on, to the cold table first, with history', async () => {
    const store = await world();
    store.write((sql) =>
      sql.run(
        raw(
          "INSERT INTO dreaming_attention (id, agent_id, kind, subject_ref, created_by, created_at) VALUES ('att-pin', 'a', 'hygiene', 'memory:mem-pinned', 'engine', ?)",
          NOW,
        ),
      ),
    );
    const op = {
      operation: 'archive_memory',
      payload: { memoryId: 'mem-pinned', force: true },
      evidence: [{ sourceRef: 'attention:att-pin', quote: '' }],
    };
    expect(applyDreamingOperations(store, defaultConfig, ctx, [op]).rejected[0]?.reason).toMatch(/allowUpdateDelete/);
    const result = applyDreamingOperations(store, config({ allowUpdateDelete: true }), ctx, [op]);
    expect(result.applied).toHaveLength(1);
    expect(store.read((sql) => sql.get(raw("SELECT is_deleted FROM memories WHERE id = 'mem-pinned'")))).toEqual({
      is_deleted: 1,
    });
    expect(count(store, 'memories_cold')).toBe(1);
    expect(
      store.read((sql) => sql.all(raw("SELECT event FROM memory_history WHERE memory_id = 'mem-pinned'"))),
    ).toEqual([{ event: 'deleted' }]);
  });

  it('stops at a failure part-way, reports retryFrom, and a retry from there completes exactly once', async () => {
    const store = await world();
    const ops = [
      { operation: 'create_entity', payload: { name: 'One' }, evidence: cite },
      { operation: 'create_entity', payload: { name: 'Two' }, evidence: cite },
      { operation: 'create_entity', payload: { name: 'Three' }, evidence: cite },
    ];
    // Another writer takes the name "Two" after the batch was decided: its insert fails at write time.
    store.write((sql) =>
      sql.run(
        raw(
          "CREATE TRIGGER fail_two BEFORE INSERT ON entities WHEN new.name = 'Two' BEGIN SELECT RAISE(ABORT, 'disk hiccup'); END",
        ),
      ),
    );
    const first = applyDreamingOperations(store, config({ operationsPerTransaction: 2 }), ctx, ops);
    expect(first.applied.map((a) => a.index)).toEqual([0]);
    expect(first.retryFrom).toBe(1);
    store.write((sql) => sql.run(raw('DROP TRIGGER fail_two')));
    const retry = applyDreamingOperations(store, defaultConfig, ctx, ops.slice(first.retryFrom));
    expect(retry.rejected).toEqual([]);
    const names = store.read((sql) =>
      sql.all<{ name: string }>(raw("SELECT name FROM entities WHERE name IN ('One', 'Two', 'Three') ORDER BY name")),
    );
    expect(names.map((n) => n.name)).toEqual(['One', 'Three', 'Two']);
  });

  it('refuses a malformed batch or context with INVALID_INPUT', async () => {
    const store = await world();
    expect(() => applyDreamingOperations(store, defaultConfig, ctx, { not: 'an array' })).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
    expect(() => applyDreamingOperations(store, defaultConfig, { agentId: '' }, [])).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
  });

  it('leaves no graph row without provenance to evidence in its own scope (property)', async () => {
    const pool = [
      { operation: 'create_entity', payload: { name: 'Good' }, evidence: cite },
      {
        operation: 'create_entity',
        payload: { name: 'Paraphrased' },
        evidence: [{ sourceRef: 'transcript:chat-1', quote: 'the launch moved to March' }],
      },
      {
        operation: 'create_entity',
        payload: { name: 'Foreign' },
        evidence: [{ sourceRef: 'transcript:chat-b', quote: 'private words of agent b' }],
      },
      { operation: 'create_aspect', payload: { entityId: 'atlas', name: 'budget' }, evidence: cite },
      { operation: 'create_aspect', payload: { entityId: 'borealis', name: 'budget' }, evidence: cite },
      {
        operation: 'add_claim',
        payload: { aspectId: 'schedule', claimKey: 'review', content: 'review on Friday' },
        evidence: [{ sourceRef: 'transcript:chat-1', quote: 'the launch review is on Friday' }],
      },
      {
        operation: 'add_claim',
        payload: { aspectId: 'schedule', claimKey: 'x', content: 'invented' },
        evidence: [{ sourceRef: 'memory:nope', quote: 'invented quote here' }],
      },
      {
        operation: 'archive_entity',
        payload: { entityId: 'atlas-dup' },
        evidence: [{ sourceRef: 'attention:att-dup', quote: '' }],
      },
      { operation: 'archive_entity', payload: { entityId: 'atlas' } },
      { operation: 'remember_memory', payload: { content: 'Atlas launch in March', type: 'fact' }, evidence: cite },
    ];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...pool), { maxLength: 15 }), async (ops) => {
        const store = await world();
        store.write((sql) => {
          upsertTranscript(sql, { agentId: 'b', sessionKey: 'chat-b', harness: null, project: null, now: NOW });
          completeTranscript(sql, {
            agentId: 'b',
            sessionKey: 'chat-b',
            content: 'user: private words of agent b',
            contentHash: 'h',
            now: NOW,
          });
          insertEntity(sql, { id: 'borealis', agentId: 'b', name: 'Borealis', now: NOW });
        });
        applyDreamingOperations(store, defaultConfig, ctx, ops);
        store.read((sql) => {
          // Every row the seam created has provenance whose evidence is agent a's chat-1, an a-scoped memory, or a's attention.
          const created = sql.all<{ id: string }>(
            raw(
              "SELECT id FROM entities WHERE created_at = ? AND id NOT IN ('atlas', 'atlas-dup', 'borealis') UNION ALL SELECT id FROM entity_aspects WHERE id <> 'schedule' UNION ALL SELECT id FROM entity_attributes WHERE id <> 'feb' UNION ALL SELECT id FROM memories WHERE id <> 'mem-pinned'",
              NOW,
            ),
          );
          for (const { id } of created) {
            const prov = sql.all<{ evidence_json: string; agent_id: string }>(
              raw('SELECT evidence_json, agent_id FROM dreaming_provenance WHERE target_id = ?', id),
            );
            expect(prov.length).toBeGreaterThan(0);
            for (const p of prov) {
              expect(p.agent_id).toBe('a');
              for (const c of JSON.parse(p.evidence_json) as Array<{ sourceRef: string }>)
                expect(['transcript:chat-1', 'attention:att-dup']).toContain(c.sourceRef);
            }
          }
          expect(sql.get(raw("SELECT count(*) AS n FROM entity_aspects WHERE entity_id = 'borealis'"))).toEqual({
            n: 0,
          });
        });
        store.close();
      }),
      { numRuns: 40 },
    );
  });
});
