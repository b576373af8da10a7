import { raw, type SqlExecutor } from '../internal/sql.js';

// Knowledge-graph reads for a host or an operator looking at one agent's graph: entities with
// everything attached to them, and links around them. Scoped by agent, bounded, keyset-paged.

/** An entity row as the graph reads return it. */
export interface EntityView {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly description: string | null;
  readonly status: 'active' | 'archived';
  readonly mentions: number;
  readonly pinned: boolean;
  readonly communityId: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

const ENTITY_COLUMNS = `e.id, e.name, e.entity_type AS type, e.description, e.status, e.mentions, e.pinned,
  e.community_id AS communityId, e.created_at AS createdAt, e.updated_at AS updatedAt, e.canonical_name AS canonicalName`;

type EntityRowOut = Omit<EntityView, 'pinned'> & { pinned: number; canonicalName: string };

function entityView(row: EntityRowOut): EntityView & { canonicalName: string } {
  return { ...row, pinned: row.pinned === 1 };
}

/**
 * The agent's entities by canonical name, after the keyset `after` (canonical name, id): all, only
 * active or only archived; with `query`, those whose name or an alias contains it (canonically).
 */
export function listEntities(
  sql: SqlExecutor,
  agentId: string,
  filter: { status: 'active' | 'archived' | null; query: string | null },
  after: { canonicalName: string; id: string } | null,
  limit: number,
): Array<EntityView & { canonicalName: string }> {
  return sql
    .all<EntityRowOut>(
      raw(
        `SELECT ${ENTITY_COLUMNS} FROM entities AS e
         WHERE e.agent_id = ? AND (? IS NULL OR e.status = ?)
           AND (? IS NULL OR instr(e.canonical_name, ?) > 0 OR EXISTS (
                 SELECT 1 FROM entity_aliases AS a WHERE a.entity_id = e.id AND instr(a.canonical_alias, ?) > 0))
           AND (? IS NULL OR (e.canonical_name, e.id) > (?, ?))
         ORDER BY e.canonical_name, e.id LIMIT ?`,
        agentId,
        filter.status,
        filter.status,
        filter.query,
        filter.query,
        filter.query,
        after === null ? null : 1,
        after?.canonicalName ?? null,
        after?.id ?? null,
        limit,
      ),
    )
    .map(entityView);
}

/** Entities of the agent by id (any status), in no particular order. */
export function findEntitiesByIds(sql: SqlExecutor, agentId: string, ids: readonly string[]): EntityView[] {
  if (ids.length === 0) return [];
  return sql
    .all<EntityRowOut>(
      raw(
        `SELECT ${ENTITY_COLUMNS} FROM json_each(?) AS j CROSS JOIN entities AS e ON e.id = j.value WHERE e.agent_id = ?`,
        JSON.stringify(ids),
        agentId,
      ),
    )
    .map((row) => {
      const { canonicalName: _canonical, ...view } = entityView(row);
      return view;
    });
}

/** An entity's aliases, oldest first. */
export function listEntityAliases(
  sql: SqlExecutor,
  agentId: string,
  entityId: string,
  limit: number,
): Array<{ alias: string; createdAt: number }> {
  return sql.all(
    raw(
      'SELECT alias, created_at AS createdAt FROM entity_aliases WHERE entity_id = ? AND agent_id = ? ORDER BY created_at, canonical_alias LIMIT ?',
      entityId,
      agentId,
      limit,
    ),
  );
}

/** An aspect row as the graph reads return it. */
export interface AspectView {
  readonly id: string;
  readonly name: string;
  readonly weight: number;
  readonly status: 'active' | 'archived';
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** An entity's aspects (archived ones only when asked), by name. */
export function listEntityAspects(
  sql: SqlExecutor,
  agentId: string,
  entityId: string,
  includeArchived: boolean,
  limit: number,
): AspectView[] {
  return sql.all(
    raw(
      `SELECT id, name, weight, status, created_at AS createdAt, updated_at AS updatedAt FROM entity_aspects
       WHERE entity_id = ? AND agent_id = ? AND (? OR status = 'active') ORDER BY canonical_name, id LIMIT ?`,
      entityId,
      agentId,
      includeArchived ? 1 : 0,
      limit,
    ),
  );
}

/** A claim row with its event time (valid_*, occurred_at) and record time (created_at, superseded_at). */
export interface ClaimView {
  readonly id: string;
  readonly aspectId: string;
  readonly claimKey: string;
  readonly kind: 'attribute' | 'constraint';
  readonly content: string;
  readonly confidence: number;
  readonly importance: number;
  readonly status: 'active' | 'superseded' | 'archived';
  readonly supersededBy: string | null;
  readonly sourceMemoryId: string | null;
  readonly validFrom: number | null;
  readonly validUntil: number | null;
  readonly occurredAt: number | null;
  readonly timePrecision: string | null;
  readonly evidenceJson: string;
  readonly createdAt: number;
  readonly supersededAt: number | null;
}

/** An entity's claims with the given statuses, by aspect, key and record time, at most `limit`. */
export function listEntityClaims(
  sql: SqlExecutor,
  agentId: string,
  entityId: string,
  statuses: readonly string[],
  limit: number,
): ClaimView[] {
  return sql.all(
    raw(
      `SELECT id, aspect_id AS aspectId, claim_key AS claimKey, kind, content, confidence, importance, status,
              superseded_by AS supersededBy, source_memory_id AS sourceMemoryId, valid_from AS validFrom,
              valid_until AS validUntil, occurred_at AS occurredAt, time_precision AS timePrecision,
              evidence_json AS evidenceJson, created_at AS createdAt, superseded_at AS supersededAt
       FROM entity_attributes
       WHERE entity_id = ? AND agent_id = ? AND status IN (SELECT value FROM json_each(?))
       ORDER BY aspect_id, claim_key, created_at, id LIMIT ?`,
      entityId,
      agentId,
      JSON.stringify(statuses),
      limit,
    ),
  );
}

/** The live memories mentioning an entity, newest first (at most `limit`), and how many there are. */
export function listEntityMentions(
  sql: SqlExecutor,
  agentId: string,
  entityId: string,
  limit: number,
): {
  total: number;
  items: Array<{ memoryId: string; mentionText: string | null; confidence: number; createdAt: number }>;
} {
  const live = `FROM memory_entity_mentions AS mm JOIN memories AS m ON m.id = mm.memory_id AND m.is_deleted = 0
       WHERE mm.entity_id = ? AND mm.agent_id = ?`;
  const total = sql.get<{ n: number }>(raw(`SELECT count(*) AS n ${live}`, entityId, agentId))?.n ?? 0;
  const items = sql.all<{ memoryId: string; mentionText: string | null; confidence: number; createdAt: number }>(
    raw(
      `SELECT mm.memory_id AS memoryId, mm.mention_text AS mentionText, mm.confidence, mm.created_at AS createdAt ${live}
       ORDER BY mm.created_at DESC, mm.memory_id LIMIT ?`,
      entityId,
      agentId,
      limit,
    ),
  );
  return { total, items };
}

/** A link with both ends named. */
export interface LinkView {
  readonly id: string;
  readonly type: string;
  readonly strength: number;
  readonly confidence: number;
  readonly reason: string | null;
  readonly status: 'active' | 'archived';
  readonly sourceId: string;
  readonly sourceName: string;
  readonly targetId: string;
  readonly targetName: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

const LINK_SELECT = `SELECT d.id, d.dependency_type AS type, d.strength, d.confidence, d.reason, d.status,
    d.source_entity_id AS sourceId, s.name AS sourceName, d.target_entity_id AS targetId, t.name AS targetName,
    d.created_at AS createdAt, d.updated_at AS updatedAt
  FROM entity_dependencies AS d JOIN entities AS s ON s.id = d.source_entity_id JOIN entities AS t ON t.id = d.target_entity_id`;

/** Links from and to an entity (archived ones only when asked), strongest first. */
export function listEntityLinks(
  sql: SqlExecutor,
  agentId: string,
  entityId: string,
  includeArchived: boolean,
  limit: number,
): LinkView[] {
  return sql.all(
    raw(
      `${LINK_SELECT} WHERE d.agent_id = ? AND (d.source_entity_id = ? OR d.target_entity_id = ?) AND (? OR d.status = 'active')
       ORDER BY d.status, d.strength DESC, d.id LIMIT ?`,
      agentId,
      entityId,
      entityId,
      includeArchived ? 1 : 0,
      limit,
    ),
  );
}

/**
 * Active links between active entities that touch any of `entityIds`, strongest first, at most
 * `limit`: one breadth-first step of a neighbourhood.
 */
export function activeLinksAround(
  sql: SqlExecutor,
  agentId: string,
  entityIds: readonly string[],
  limit: number,
): LinkView[] {
  if (entityIds.length === 0) return [];
  return sql.all(
    raw(
      `${LINK_SELECT} WHERE d.agent_id = ? AND d.status = 'active' AND s.status = 'active' AND t.status = 'active'
         AND (d.source_entity_id IN (SELECT value FROM json_each(?)) OR d.target_entity_id IN (SELECT value FROM json_each(?)))
       ORDER BY d.strength * d.confidence DESC, d.id LIMIT ?`,
      agentId,
      JSON.stringify(entityIds),
      JSON.stringify(entityIds),
      limit,
    ),
  );
}
