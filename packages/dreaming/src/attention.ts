import type { MemoryConfig } from '@memory/core';
import { raw, type SqlExecutor } from '@memory/store';

/** Most records each detector opens per run. */
const PER_DETECTOR = 500;

interface Finding {
  readonly kind: 'hygiene' | 'review_due';
  readonly subjectRef: string;
  readonly priority: number;
  readonly details: string;
}

const DETECTORS: ReadonlyArray<
  (
    agentId: string,
    policy: MemoryConfig['dreaming'],
    now: number,
  ) => { sql: string; params: unknown[]; toFinding(row: Record<string, unknown>): Finding }
> = [
  // An entity whose name is another active entity's alias: the same thing under two entries.
  (agentId) => ({
    sql: `SELECT e.id AS id, e.name AS name, o.id AS other, o.name AS otherName
          FROM entities AS e
          JOIN entity_aliases AS a ON a.agent_id = e.agent_id AND a.canonical_alias = e.canonical_name AND a.entity_id <> e.id
          JOIN entities AS o ON o.id = a.entity_id AND o.status = 'active'
          WHERE e.agent_id = ? AND e.status = 'active' LIMIT ${PER_DETECTOR}`,
    params: [agentId],
    toFinding: (r) => ({
      kind: 'hygiene',
      subjectRef: `entity:${String(r['id'])}`,
      priority: 80,
      details: `"${String(r['name'])}" is also an alias of ${String(r['other'])} ("${String(r['otherName'])}"): merge them`,
    }),
  }),
  // An entity with no active aspect and no active claim says nothing.
  (agentId) => ({
    sql: `SELECT e.id AS id, e.name AS name FROM entities AS e
          WHERE e.agent_id = ? AND e.status = 'active'
            AND NOT EXISTS (SELECT 1 FROM entity_aspects AS a WHERE a.entity_id = e.id AND a.status = 'active')
            AND NOT EXISTS (SELECT 1 FROM entity_attributes AS c WHERE c.entity_id = e.id AND c.status = 'active')
          LIMIT ${PER_DETECTOR}`,
    params: [agentId],
    toFinding: (r) => ({
      kind: 'hygiene',
      subjectRef: `entity:${String(r['id'])}`,
      priority: 30,
      details: `"${String(r['name'])}" has no aspects or claims: describe it from evidence, merge it, or archive it`,
    }),
  }),
  (agentId, policy) => ({
    sql: `SELECT entity_id AS id, count(*) AS n FROM entity_aspects WHERE agent_id = ? AND status = 'active' GROUP BY entity_id HAVING count(*) > ? LIMIT ${PER_DETECTOR}`,
    params: [agentId, policy.maxAspectsPerEntity],
    toFinding: (r) => ({
      kind: 'hygiene',
      subjectRef: `entity:${String(r['id'])}`,
      priority: 60,
      details: `${String(r['n'])} active aspects, over the cap of ${policy.maxAspectsPerEntity}: merge or archive some`,
    }),
  }),
  (agentId, policy) => ({
    sql: `SELECT aspect_id AS id, count(*) AS n FROM entity_attributes WHERE agent_id = ? AND status = 'active' GROUP BY aspect_id HAVING count(*) > ? LIMIT ${PER_DETECTOR}`,
    params: [agentId, policy.maxClaimsPerAspect],
    toFinding: (r) => ({
      kind: 'hygiene',
      subjectRef: `aspect:${String(r['id'])}`,
      priority: 60,
      details: `${String(r['n'])} active claims, over the cap of ${policy.maxClaimsPerAspect}: supersede or archive some`,
    }),
  }),
  // A claim whose validity ended is still marked active: review it.
  (agentId, _policy, now) => ({
    sql: `SELECT id, content FROM entity_attributes WHERE agent_id = ? AND status = 'active' AND valid_until IS NOT NULL AND valid_until <= ? LIMIT ${PER_DETECTOR}`,
    params: [agentId, now],
    toFinding: (r) => ({
      kind: 'review_due',
      subjectRef: `claim:${String(r['id'])}`,
      priority: 50,
      details: `"${String(r['content']).slice(0, 120)}" is past its validity: supersede or archive it`,
    }),
  }),
];

/** Open attention records of one agent. */
export function openAttentionCount(sql: SqlExecutor, agentId: string): number {
  return (
    sql.get<{ n: number }>(
      raw('SELECT count(*) AS n FROM dreaming_attention WHERE agent_id = ? AND resolved_at IS NULL', agentId),
    )?.n ?? 0
  );
}

/**
 * Deterministic hygiene detection for one agent: duplicate entities (a name that is another
 * entity's alias), entities with no active aspects or claims, over-cap aspects and claims, and
 * active claims past their validity. Opens one attention record per finding (an open record for
 * the same kind and subject is kept, not duplicated). Returns how many were opened.
 */
export function detectAttention(
  sql: SqlExecutor,
  agentId: string,
  policy: MemoryConfig['dreaming'],
  now: number,
  nextId: () => string,
): number {
  let opened = 0;
  for (const detector of DETECTORS) {
    const { sql: query, params, toFinding } = detector(agentId, policy, now);
    for (const row of sql.all<Record<string, unknown>>(raw(query, ...params))) {
      const f = toFinding(row);
      opened += sql.run(
        raw(
          `INSERT INTO dreaming_attention (id, agent_id, kind, subject_ref, priority, details, created_by, created_at)
           VALUES (?, ?, ?, ?, ?, ?, 'engine', ?) ON CONFLICT DO NOTHING`,
          nextId(),
          agentId,
          f.kind,
          f.subjectRef,
          f.priority,
          f.details,
          now,
        ),
      ).changes;
    }
  }
  return opened;
}
