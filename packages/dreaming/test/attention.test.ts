import { resolveConfig } from '@memory/core';
import { insertAspect, insertClaim, insertEntity } from '@memory/store';
import { raw } from '@memory/store/sql';
import { createTestStore } from '@memory/store/testing';
import { describe, expect, it } from 'vitest';
import { detectAttention } from '../src/attention.js';

const NOW = Date.UTC(2026, 0, 1);
const policy = resolveConfig({ dreaming: { maxAspectsPerEntity: 2, maxClaimsPerAspect: 2 } }).dreaming;

describe('deterministic attention', () => {
  it('opens one record per duplicate, empty entity, over-cap aspect set or claim set, and expired claim — once', async () => {
    const store = await createTestStore();
    let n = 0;
    const ids = () => `att-${++n}`;
    store.write((sql) => {
      insertEntity(sql, { id: 'atlas', agentId: 'a', name: 'Project Atlas', aliases: ['Atlas'], now: NOW });
      insertEntity(sql, { id: 'atlas-2', agentId: 'a', name: 'Atlas', now: NOW });
      insertEntity(sql, { id: 'b-empty', agentId: 'b', name: 'Nothing', now: NOW });
      for (const i of [1, 2, 3])
        insertAspect(sql, { id: `asp-${i}`, agentId: 'a', entityId: 'atlas', name: `aspect ${i}`, now: NOW });
      for (const i of [1, 2, 3])
        insertClaim(sql, {
          id: `c-${i}`,
          agentId: 'a',
          entityId: 'atlas',
          aspectId: 'asp-1',
          claimKey: `k${i}`,
          content: `claim ${i}`,
          now: NOW,
        });
      insertClaim(sql, {
        id: 'old',
        agentId: 'a',
        entityId: 'atlas',
        aspectId: 'asp-2',
        claimKey: 'x',
        content: 'valid until last year',
        validUntil: NOW - 1,
        now: NOW,
      });
    });
    const opened = store.write((sql) => detectAttention(sql, 'a', policy, NOW, ids));
    const rows = store.read((sql) =>
      sql.all<{ kind: string; subject: string }>(
        raw(
          "SELECT kind, subject_ref AS subject FROM dreaming_attention WHERE agent_id = 'a' ORDER BY subject_ref, kind",
        ),
      ),
    );
    expect(rows).toEqual([
      { kind: 'hygiene', subject: 'aspect:asp-1' },
      { kind: 'review_due', subject: 'claim:old' },
      { kind: 'hygiene', subject: 'entity:atlas' },
      { kind: 'hygiene', subject: 'entity:atlas-2' },
    ]);
    expect(opened).toBe(4);
    // Running again opens nothing new; another agent's empty entity is not this agent's business.
    expect(store.write((sql) => detectAttention(sql, 'a', policy, NOW, ids))).toBe(0);
    expect(
      store.read((sql) => sql.get(raw("SELECT count(*) AS n FROM dreaming_attention WHERE agent_id = 'b'"))),
    ).toEqual({ n: 0 });
  });
});
