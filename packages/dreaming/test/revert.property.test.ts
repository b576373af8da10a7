import { contentHash, resolveConfig } from '@memory/core';
import { completeTranscript, createMemories, prepareContent, type Store, upsertTranscript } from '@memory/store';
import { raw } from '@memory/store/sql';
import { createTestStore } from '@memory/store/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyDreamingOperations, revertPass } from '../src/index.js';

const NOW = Date.UTC(2026, 0, 1);
const QUOTE = 'the team discussed every project in detail';
const cite = [{ sourceRef: 'transcript:chat', quote: QUOTE }];
const config = resolveConfig({ dreaming: { allowUpdateDelete: true }, remember: { inlineEntityLinking: true } });
const NAMES = ['Atlas', 'Borealis', 'Cygnus', 'Draco', 'Eridanus', 'Fornax'];

/** A graph with entities, aspects, claims, links and memories that mention the entities. */
async function world(): Promise<Store> {
  const store = await createTestStore();
  const content = `user: ${QUOTE}. ${NAMES.join(', ')} all came up.`;
  store.write((sql) => {
    upsertTranscript(sql, { agentId: 'a', sessionKey: 'chat', harness: null, project: null, now: NOW });
    completeTranscript(sql, { agentId: 'a', sessionKey: 'chat', content, contentHash: contentHash(content), now: NOW });
  });
  const setup = (ops: unknown[]) => applyDreamingOperations(store, config, { agentId: 'a', passId: 'setup' }, ops);
  const entities = setup(
    NAMES.slice(0, 4).map((name) => ({
      operation: 'create_entity',
      payload: { name, aliases: [`${name} Project`] },
      evidence: cite,
    })),
  ).applied.map((a) => a.targetId);
  const aspects = setup(
    entities.map((entityId) => ({ operation: 'create_aspect', payload: { entityId, name: 'status' }, evidence: cite })),
  ).applied.map((a) => a.targetId);
  setup([
    ...aspects.map((aspectId, i) => ({
      operation: 'add_claim',
      payload: { aspectId, claimKey: 'phase', content: `phase ${i}`, validFrom: NOW - 1000 },
      evidence: cite,
    })),
    {
      operation: 'create_link',
      payload: { sourceEntityId: entities[0], targetEntityId: entities[1], type: 'uses' },
      evidence: cite,
    },
    {
      operation: 'create_link',
      payload: { sourceEntityId: entities[2], targetEntityId: entities[1], type: 'feeds' },
      evidence: cite,
    },
  ]);
  // Host memories naming the entities: inline linking writes their mentions.
  store.write((sql) =>
    createMemories(
      sql,
      { ids: store.ids, vectorAvailable: store.vector.available, inlineEntityLinking: true },
      NAMES.slice(0, 4).map((name, i) => ({
        agentId: 'a',
        content: prepareContent(`${name} and ${NAMES[(i + 1) % 4]} meet weekly (${i}).`),
        type: 'fact' as const,
        importance: 0.5,
        confidence: 1,
        source: { type: 'host', id: null },
        tags: [],
        audit: {},
      })),
      NOW,
    ),
  );
  return store;
}

function state(store: Store) {
  return store.read((sql) => {
    const all = (q: string) => sql.all(raw(q));
    return {
      entities: all('SELECT * FROM entities ORDER BY id'),
      aliases: all('SELECT * FROM entity_aliases ORDER BY entity_id, canonical_alias'),
      aspects: all('SELECT * FROM entity_aspects ORDER BY id'),
      claims: all('SELECT * FROM entity_attributes ORDER BY id'),
      links: all('SELECT * FROM entity_dependencies ORDER BY id'),
      mentions: all('SELECT * FROM memory_entity_mentions ORDER BY memory_id, entity_id'),
      attention: all("SELECT * FROM dreaming_attention WHERE created_by <> 'engine' ORDER BY id"),
      memories: all('SELECT id, content, is_deleted FROM memories WHERE is_deleted = 0 ORDER BY id'),
    };
  });
}

/** An operation chosen by kind and by indices into whatever is active when it runs. */
type Step = { kind: number; i: number; j: number; name: number };

function active(store: Store, table: string): string[] {
  return store.read((sql) =>
    sql
      .all<{ id: string }>(raw(`SELECT id FROM ${table} WHERE agent_id = 'a' AND status = 'active' ORDER BY id`))
      .map((r) => r.id),
  );
}

function operations(store: Store, step: Step): unknown[] {
  const entities = active(store, 'entities');
  const aspects = active(store, 'entity_aspects');
  const claims = active(store, 'entity_attributes');
  const links = active(store, 'entity_dependencies');
  const memories = store.read((sql) =>
    sql
      .all<{ id: string }>(raw("SELECT id FROM memories WHERE agent_id = 'a' AND is_deleted = 0 ORDER BY id"))
      .map((r) => r.id),
  );
  const pick = (xs: string[], k: number) => xs[k % Math.max(1, xs.length)];
  const e1 = pick(entities, step.i);
  const e2 = pick(entities, step.j);
  const hygiene = (subject: string, op: unknown) => [
    { operation: 'flag', payload: { kind: 'hygiene', subjectRef: subject, details: 'property test' } },
    op,
  ];
  switch (step.kind) {
    case 0:
      return [
        {
          operation: 'create_entity',
          payload: { name: `${NAMES[step.name % NAMES.length]} ${step.i}` },
          evidence: cite,
        },
      ];
    case 1:
      return [{ operation: 'create_aspect', payload: { entityId: e1, name: `aspect ${step.j}` }, evidence: cite }];
    case 2:
      return [
        {
          operation: 'set_claim',
          payload: { aspectId: pick(aspects, step.i), claimKey: 'phase', content: `phase v${step.j}` },
          evidence: cite,
        },
      ];
    case 3:
      return [
        {
          operation: 'supersede_claim',
          payload: { claimId: pick(claims, step.i), content: `superseded ${step.j}` },
          evidence: cite,
        },
      ];
    case 4:
      return [
        {
          operation: 'create_link',
          payload: { sourceEntityId: e1, targetEntityId: e2, type: `t${step.name}` },
          evidence: cite,
        },
      ];
    case 5:
      return [{ operation: 'update_link', payload: { linkId: pick(links, step.i), strength: 0.3 }, evidence: cite }];
    case 6:
      return [
        {
          operation: 'rename_entity',
          payload: { entityId: e1, name: `${NAMES[step.name % NAMES.length]} renamed ${step.j}` },
          evidence: cite,
        },
      ];
    case 7:
      return hygiene(`entity:${e1}`, {
        operation: 'merge_entities',
        payload: { sourceEntityId: e1, targetEntityId: e2 },
      });
    case 8:
      return hygiene(`entity:${e1}`, { operation: 'archive_entity', payload: { entityId: e1 } });
    case 9:
      return hygiene(`claim:${pick(claims, step.j)}`, {
        operation: 'archive_claim',
        payload: { claimId: pick(claims, step.j) },
      });
    case 10:
      return [
        {
          operation: 'remember_memory',
          payload: { content: `${NAMES[step.name % NAMES.length]} note ${step.i}`, type: 'fact' },
          evidence: cite,
        },
      ];
    case 11:
      return [
        {
          operation: 'supersede_memory',
          payload: {
            memoryId: pick(memories, step.i),
            content: `rewritten ${step.i} ${step.j} about ${NAMES[step.name % NAMES.length]}`,
          },
          evidence: cite,
        },
      ];
    default:
      return hygiene(`memory:${pick(memories, step.j)}`, {
        operation: 'archive_memory',
        payload: { memoryId: pick(memories, step.j) },
      });
  }
}

const stepArb = fc.record({
  kind: fc.integer({ min: 0, max: 12 }),
  i: fc.nat(20),
  j: fc.nat(20),
  name: fc.nat(5),
});

describe('reverting a pass (property)', () => {
  it('puts every graph row, attention record and live memory back as it was before the pass', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 15 }), async (steps) => {
        const store = await world();
        const before = state(store);
        let applied = 0;
        for (const step of steps) {
          const result = applyDreamingOperations(store, config, { agentId: 'a', passId: 'P' }, operations(store, step));
          applied += result.applied.length;
        }
        const preview = revertPass(store, config, { agentId: 'a', passId: 'P' });
        expect(preview.conflicts).toEqual([]);
        const result = revertPass(store, config, { agentId: 'a', passId: 'P', apply: true });
        expect(result.operations).toHaveLength(applied);
        expect(state(store)).toEqual(before);
        store.close();
      }),
      { numRuns: 50 },
    );
  }, 120_000);
});
