import { describe, expect, it } from 'vitest';
import {
  countOpenAttention,
  declineAttention,
  findDreamingState,
  findMemoryHead,
  findOpenAttentionId,
  findRunbookNotes,
  graphRowSnapshot,
  insertAspect,
  insertClaim,
  insertDependency,
  insertEntity,
  insertFirstMemoryHead,
  latestActiveClaim,
  mergeEntities,
  openAttention,
  recordPassOutcome,
  replaceMemoryHead,
  resolveAttentionAbout,
  saveRunbookNotes,
  supersedeClaim,
  upsertDeliveredOffset,
} from '../src/index.js';
import { createTestStore } from '../src/testing.js';

// The Dreaming seam's end-to-end behaviour is tested in @memory/dreaming; these pin the rules the
// store functions themselves carry (conflict handling, compare-and-swap, monotonic offsets).
describe('Dreaming repositories', () => {
  it('keeps one open attention record per kind and subject, and resolves or declines it once', async () => {
    const store = await createTestStore();
    const open = (id: string) =>
      store.write((sql) =>
        openAttention(sql, {
          id,
          agentId: 'a',
          kind: 'hygiene',
          subjectRef: 'entity:e1',
          priority: 50,
          details: '',
          createdBy: 'engine',
          now: 1,
        }),
      );
    expect(open('at-1')).toBe(1);
    expect(open('at-2')).toBe(0);
    expect(store.read((sql) => findOpenAttentionId(sql, 'a', 'hygiene', 'entity:e1'))).toBe('at-1');
    expect(store.write((sql) => resolveAttentionAbout(sql, 'a', 'entity:e1', 'p1', 2))).toBe(1);
    expect(store.read((sql) => countOpenAttention(sql, 'a'))).toBe(0);
    expect(open('at-3')).toBe(1);
    expect(store.write((sql) => declineAttention(sql, 'at-3', null, 3))).toBe(1);
    expect(store.write((sql) => declineAttention(sql, 'at-3', null, 4))).toBe(0);
  });

  it('replaces the MEMORY.md head only from the revision and hash that were read', async () => {
    const store = await createTestStore();
    const head = { agentId: 'a', content: '# MEMORY', entriesJson: '[]', passId: null, now: 1 };
    expect(store.write((sql) => insertFirstMemoryHead(sql, { ...head, revision: 1, contentHash: 'h1' }))).toBe(1);
    expect(store.write((sql) => insertFirstMemoryHead(sql, { ...head, revision: 1, contentHash: 'hx' }))).toBe(0);
    const next = { ...head, revision: 2, contentHash: 'h2' };
    expect(store.write((sql) => replaceMemoryHead(sql, next, { revision: 1, contentHash: 'stale' }))).toBe(0);
    expect(store.write((sql) => replaceMemoryHead(sql, next, { revision: 1, contentHash: 'h1' }))).toBe(1);
    expect(store.read((sql) => findMemoryHead(sql, 'a'))).toEqual({
      revision: 2,
      content: '# MEMORY',
      contentHash: 'h2',
      updatedAt: 1,
    });
  });

  it('counts a failure streak, resets it on success, and keeps runbook notes apart', async () => {
    const store = await createTestStore();
    store.write((sql) => saveRunbookNotes(sql, 'a', 'notes', 1));
    store.write((sql) => recordPassOutcome(sql, { agentId: 'a', failed: true, mode: 'incremental', now: 2 }));
    store.write((sql) => recordPassOutcome(sql, { agentId: 'a', failed: true, mode: 'compact', now: 3 }));
    expect(store.read((sql) => findDreamingState(sql, 'a'))).toEqual({
      consecutive_failures: 2,
      last_failure_at: 3,
      last_pass_at: null,
      last_mode: 'compact',
    });
    store.write((sql) => recordPassOutcome(sql, { agentId: 'a', failed: false, mode: 'incremental', now: 4 }));
    expect(store.read((sql) => findDreamingState(sql, 'a'))).toMatchObject({
      consecutive_failures: 0,
      last_failure_at: 3,
      last_pass_at: 4,
    });
    expect(store.read((sql) => findRunbookNotes(sql, 'a'))).toBe('notes');
    expect(store.read((sql) => findRunbookNotes(sql, 'nobody'))).toBe('');
  });

  it('never moves a delivered offset back', async () => {
    const store = await createTestStore();
    const offset = (deliveredChars: number) =>
      store.write((sql) =>
        upsertDeliveredOffset(sql, {
          agentId: 'a',
          sourceRef: 'transcript:s',
          deliveredChars,
          totalChars: 100,
          now: 1,
        }),
      );
    offset(60);
    offset(20);
    const row = store.database
      .prepare('SELECT delivered_chars AS n FROM dreaming_evidence_offsets WHERE source_ref = ?')
      .get('transcript:s') as { n: number };
    expect(row.n).toBe(60);
  });

  it('merges an entity into another: aspects fold, links re-point, a self-link is archived, the name stays an alias', async () => {
    const store = await createTestStore();
    store.write((sql) => {
      insertEntity(sql, { id: 'from', agentId: 'a', name: 'Dana W', now: 0 });
      insertEntity(sql, { id: 'to', agentId: 'a', name: 'Dana Whitfield', now: 0 });
      insertAspect(sql, { id: 'as-from', agentId: 'a', entityId: 'from', name: 'Role', now: 0 });
      insertAspect(sql, { id: 'as-to', agentId: 'a', entityId: 'to', name: 'role', now: 0 });
      insertClaim(sql, {
        id: 'c1',
        agentId: 'a',
        entityId: 'from',
        aspectId: 'as-from',
        claimKey: 'title',
        content: 'CTO',
        now: 0,
      });
      insertDependency(sql, {
        id: 'l1',
        agentId: 'a',
        sourceEntityId: 'from',
        targetEntityId: 'to',
        type: 'same',
        now: 0,
      });
      mergeEntities(sql, { agentId: 'a', fromId: 'from', toId: 'to', now: 5 });
    });
    expect(store.read((sql) => graphRowSnapshot(sql, 'entity', 'from'))).toMatchObject({ status: 'archived' });
    expect(store.read((sql) => graphRowSnapshot(sql, 'aspect', 'as-from'))).toMatchObject({ status: 'archived' });
    expect(store.read((sql) => graphRowSnapshot(sql, 'claim', 'c1'))).toMatchObject({
      entity_id: 'to',
      aspect_id: 'as-to',
    });
    expect(store.read((sql) => graphRowSnapshot(sql, 'link', 'l1'))).toMatchObject({
      source_entity_id: 'to',
      target_entity_id: 'to',
      status: 'archived',
    });
    const aliases = store.database.prepare('SELECT alias FROM entity_aliases WHERE entity_id = ?').all('to') as Array<{
      alias: string;
    }>;
    expect(aliases.map((a) => a.alias)).toEqual(['Dana W']);
  });

  it('supersedes a claim without deleting it, ending its validity where the new one starts', async () => {
    const store = await createTestStore();
    store.write((sql) => {
      insertEntity(sql, { id: 'e', agentId: 'a', name: 'Acme', now: 0 });
      insertAspect(sql, { id: 'as', agentId: 'a', entityId: 'e', name: 'office', now: 0 });
      const claim = { agentId: 'a', entityId: 'e', aspectId: 'as', claimKey: 'city' };
      insertClaim(sql, { ...claim, id: 'old', content: 'Berlin', now: 0 });
      insertClaim(sql, { ...claim, id: 'new', content: 'Paris', confidence: 0.8, occurredAt: 50, now: 10 });
      supersedeClaim(sql, { oldId: 'old', newId: 'new', newValidFrom: 100, now: 10 });
    });
    expect(store.read((sql) => latestActiveClaim(sql, 'as', 'city'))).toEqual({ id: 'new', content: 'Paris' });
    expect(store.read((sql) => graphRowSnapshot(sql, 'claim', 'old'))).toMatchObject({
      status: 'superseded',
      superseded_by: 'new',
      superseded_at: 10,
      valid_until: 100,
    });
    expect(store.read((sql) => graphRowSnapshot(sql, 'claim', 'new'))).toMatchObject({
      confidence: 0.8,
      occurred_at: 50,
      time_precision: null,
    });
  });
});
