import { raw, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

// Knowledge-graph reads for a host or an operator looking at one agent's graph: entities with
// everything attached to them, and links around them. Scoped by agent, bounded, keyset-paged. Each
// has a program form (`...Program`) for either dialect; text orders are bytewise on both (COLLATE
// "C" on PostgreSQL, SQLite's BINARY), so pages and keysets agree.

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
  e.community_id AS "communityId", e.created_at AS "createdAt", e.updated_at AS "updatedAt", e.canonical_name AS "canonicalName"`;

type EntityRowOut = Omit<EntityView, 'pinned'> & { pinned: number; canonicalName: string };

function entityView(row: EntityRowOut): EntityView & { canonicalName: string } {
  return { ...row, pinned: row.pinned === 1 };
}

/** Filters of {@link listEntities}. */
export interface EntityFilter {
  status: 'active' | 'archived' | null;
  query: string | null;
}

/**
 * The agent's entities by canonical name, after the keyset `after` (canonical name, id): all, only
 * active or only archived; with `query`, those whose name or an alias contains it (canonically).
 */
export function listEntities(
  sql: SqlExecutor,
  agentId: string,
  filter: EntityFilter,
  after: { canonicalName: string; id: string } | null,
  limit: number,
): Array<EntityView & { canonicalName: string }> {
  return runSqliteProgram(sql, listEntitiesProgram(agentId, filter, after, limit));
}

/** {@link listEntities} as a program (both dialects). */
export function* listEntitiesProgram(
  agentId: string,
  filter: EntityFilter,
  after: { canonicalName: string; id: string } | null,
  limit: number,
): Program<Array<EntityView & { canonicalName: string }>> {
  const params = [
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
  ];
  const rows = yield* all<EntityRowOut>(
    perDialect(
      raw(
        `SELECT ${ENTITY_COLUMNS} FROM entities AS e
         WHERE e.agent_id = ? AND (? IS NULL OR e.status = ?)
           AND (? IS NULL OR instr(e.canonical_name, ?) > 0 OR EXISTS (
                 SELECT 1 FROM entity_aliases AS a WHERE a.entity_id = e.id AND instr(a.canonical_alias, ?) > 0))
           AND (? IS NULL OR (e.canonical_name, e.id) > (?, ?))
         ORDER BY e.canonical_name, e.id LIMIT ?`,
        ...params,
      ),
      raw(
        `SELECT ${ENTITY_COLUMNS} FROM entities AS e
         WHERE e.agent_id = $1 AND ($2::text IS NULL OR e.status = $3)
           AND ($4::text IS NULL OR strpos(e.canonical_name, $5) > 0 OR EXISTS (
                 SELECT 1 FROM entity_aliases AS a WHERE a.entity_id = e.id AND strpos(a.canonical_alias, $6) > 0))
           AND ($7::integer IS NULL OR (e.canonical_name COLLATE "C", e.id COLLATE "C") > ($8::text, $9::text))
         ORDER BY e.canonical_name COLLATE "C", e.id COLLATE "C" LIMIT $10`,
        ...params,
      ),
    ),
  );
  return rows.map(entityView);
}

/** Entities of the agent by id (any status), in no particular order. */
export function findEntitiesByIds(sql: SqlExecutor, agentId: string, ids: readonly string[]): EntityView[] {
  return runSqliteProgram(sql, findEntitiesByIdsProgram(agentId, ids));
}

/** {@link findEntitiesByIds} as a program (both dialects). */
export function* findEntitiesByIdsProgram(agentId: string, ids: readonly string[]): Program<EntityView[]> {
  if (ids.length === 0) return [];
  const json = JSON.stringify(ids);
  const rows = yield* all<EntityRowOut>(
    perDialect(
      raw(
        `SELECT ${ENTITY_COLUMNS} FROM json_each(?) AS j CROSS JOIN entities AS e ON e.id = j.value WHERE e.agent_id = ?`,
        json,
        agentId,
      ),
      raw(
        `SELECT ${ENTITY_COLUMNS} FROM entities AS e WHERE e.id IN (SELECT jsonb_array_elements_text($1::jsonb)) AND e.agent_id = $2`,
        json,
        agentId,
      ),
    ),
  );
  return rows.map((row) => {
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
  return runSqliteProgram(sql, listEntityAliasesProgram(agentId, entityId, limit));
}

/** {@link listEntityAliases} as a program (both dialects). */
export function* listEntityAliasesProgram(
  agentId: string,
  entityId: string,
  limit: number,
): Program<Array<{ alias: string; createdAt: number }>> {
  const where = 'SELECT alias, created_at AS "createdAt" FROM entity_aliases WHERE entity_id = ? AND agent_id = ?';
  return yield* all<{ alias: string; createdAt: number }>(
    perDialect(
      raw(`${where} ORDER BY created_at, canonical_alias LIMIT ?`, entityId, agentId, limit),
      raw(
        `${where.replace('entity_id = ? AND agent_id = ?', 'entity_id = $1 AND agent_id = $2')} ORDER BY created_at, canonical_alias COLLATE "C" LIMIT $3`,
        entityId,
        agentId,
        limit,
      ),
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
  return runSqliteProgram(sql, listEntityAspectsProgram(agentId, entityId, includeArchived, limit));
}

/** {@link listEntityAspects} as a program (both dialects). */
export function* listEntityAspectsProgram(
  agentId: string,
  entityId: string,
  includeArchived: boolean,
  limit: number,
): Program<AspectView[]> {
  const params = [entityId, agentId, includeArchived ? 1 : 0, limit];
  return yield* all<AspectView>(
    perDialect(
      raw(
        `SELECT id, name, weight, status, created_at AS createdAt, updated_at AS updatedAt FROM entity_aspects
       WHERE entity_id = ? AND agent_id = ? AND (? OR status = 'active') ORDER BY canonical_name, id LIMIT ?`,
        ...params,
      ),
      raw(
        `SELECT id, name, weight, status, created_at AS "createdAt", updated_at AS "updatedAt" FROM entity_aspects
       WHERE entity_id = $1 AND agent_id = $2 AND ($3::integer = 1 OR status = 'active')
       ORDER BY canonical_name COLLATE "C", id COLLATE "C" LIMIT $4`,
        ...params,
      ),
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

const CLAIM_COLUMNS = `SELECT id, aspect_id AS "aspectId", claim_key AS "claimKey", kind, content, confidence, importance, status,
              superseded_by AS "supersededBy", source_memory_id AS "sourceMemoryId", valid_from AS "validFrom",
              valid_until AS "validUntil", occurred_at AS "occurredAt", time_precision AS "timePrecision",
              evidence_json AS "evidenceJson", created_at AS "createdAt", superseded_at AS "supersededAt"
       FROM entity_attributes`;

/** An entity's claims with the given statuses, by aspect, key and record time, at most `limit`. */
export function listEntityClaims(
  sql: SqlExecutor,
  agentId: string,
  entityId: string,
  statuses: readonly string[],
  limit: number,
): ClaimView[] {
  return runSqliteProgram(sql, listEntityClaimsProgram(agentId, entityId, statuses, limit));
}

/** {@link listEntityClaims} as a program (both dialects). */
export function* listEntityClaimsProgram(
  agentId: string,
  entityId: string,
  statuses: readonly string[],
  limit: number,
): Program<ClaimView[]> {
  const params = [entityId, agentId, JSON.stringify(statuses), limit];
  return yield* all<ClaimView>(
    perDialect(
      raw(
        `${CLAIM_COLUMNS}
       WHERE entity_id = ? AND agent_id = ? AND status IN (SELECT value FROM json_each(?))
       ORDER BY aspect_id, claim_key, created_at, id LIMIT ?`,
        ...params,
      ),
      raw(
        `${CLAIM_COLUMNS}
       WHERE entity_id = $1 AND agent_id = $2 AND status IN (SELECT jsonb_array_elements_text($3::jsonb))
       ORDER BY aspect_id COLLATE "C", claim_key COLLATE "C", created_at, id COLLATE "C" LIMIT $4`,
        ...params,
      ),
    ),
  );
}

/** A live memory mentioning an entity. */
export interface EntityMentionView {
  memoryId: string;
  mentionText: string | null;
  confidence: number;
  createdAt: number;
}

/** The live memories mentioning an entity, newest first (at most `limit`), and how many there are. */
export function listEntityMentions(
  sql: SqlExecutor,
  agentId: string,
  entityId: string,
  limit: number,
): { total: number; items: EntityMentionView[] } {
  return runSqliteProgram(sql, listEntityMentionsProgram(agentId, entityId, limit));
}

/** {@link listEntityMentions} as a program (both dialects). */
export function* listEntityMentionsProgram(
  agentId: string,
  entityId: string,
  limit: number,
): Program<{ total: number; items: EntityMentionView[] }> {
  const live = `FROM memory_entity_mentions AS mm JOIN memories AS m ON m.id = mm.memory_id AND m.is_deleted = 0
       WHERE mm.entity_id = ? AND mm.agent_id = ?`;
  const total = (yield* get<{ n: number }>(portable(`SELECT count(*) AS n ${live}`, entityId, agentId)))?.n ?? 0;
  const select = `SELECT mm.memory_id AS "memoryId", mm.mention_text AS "mentionText", mm.confidence, mm.created_at AS "createdAt" ${live}`;
  const items = yield* all<EntityMentionView>(
    perDialect(
      raw(`${select} ORDER BY mm.created_at DESC, mm.memory_id LIMIT ?`, entityId, agentId, limit),
      raw(
        `${select.replace('mm.entity_id = ? AND mm.agent_id = ?', 'mm.entity_id = $1 AND mm.agent_id = $2')} ORDER BY mm.created_at DESC, mm.memory_id COLLATE "C" LIMIT $3`,
        entityId,
        agentId,
        limit,
      ),
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
    d.source_entity_id AS "sourceId", s.name AS "sourceName", d.target_entity_id AS "targetId", t.name AS "targetName",
    d.created_at AS "createdAt", d.updated_at AS "updatedAt"
  FROM entity_dependencies AS d JOIN entities AS s ON s.id = d.source_entity_id JOIN entities AS t ON t.id = d.target_entity_id`;

/** Links from and to an entity (archived ones only when asked), strongest first. */
export function listEntityLinks(
  sql: SqlExecutor,
  agentId: string,
  entityId: string,
  includeArchived: boolean,
  limit: number,
): LinkView[] {
  return runSqliteProgram(sql, listEntityLinksProgram(agentId, entityId, includeArchived, limit));
}

/** {@link listEntityLinks} as a program (both dialects). */
export function* listEntityLinksProgram(
  agentId: string,
  entityId: string,
  includeArchived: boolean,
  limit: number,
): Program<LinkView[]> {
  const params = [agentId, entityId, entityId, includeArchived ? 1 : 0, limit];
  return yield* all<LinkView>(
    perDialect(
      raw(
        `${LINK_SELECT} WHERE d.agent_id = ? AND (d.source_entity_id = ? OR d.target_entity_id = ?) AND (? OR d.status = 'active')
       ORDER BY d.status, d.strength DESC, d.id LIMIT ?`,
        ...params,
      ),
      raw(
        `${LINK_SELECT} WHERE d.agent_id = $1 AND (d.source_entity_id = $2 OR d.target_entity_id = $3) AND ($4::integer = 1 OR d.status = 'active')
       ORDER BY d.status COLLATE "C", d.strength DESC, d.id COLLATE "C" LIMIT $5`,
        ...params,
      ),
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
  return runSqliteProgram(sql, activeLinksAroundProgram(agentId, entityIds, limit));
}

/** {@link activeLinksAround} as a program (both dialects). */
export function* activeLinksAroundProgram(
  agentId: string,
  entityIds: readonly string[],
  limit: number,
): Program<LinkView[]> {
  if (entityIds.length === 0) return [];
  const json = JSON.stringify(entityIds);
  return yield* all<LinkView>(
    perDialect(
      raw(
        `${LINK_SELECT} WHERE d.agent_id = ? AND d.status = 'active' AND s.status = 'active' AND t.status = 'active'
         AND (d.source_entity_id IN (SELECT value FROM json_each(?)) OR d.target_entity_id IN (SELECT value FROM json_each(?)))
       ORDER BY d.strength * d.confidence DESC, d.id LIMIT ?`,
        agentId,
        json,
        json,
        limit,
      ),
      raw(
        `${LINK_SELECT} WHERE d.agent_id = $1 AND d.status = 'active' AND s.status = 'active' AND t.status = 'active'
         AND (d.source_entity_id IN (SELECT jsonb_array_elements_text($2::jsonb)) OR d.target_entity_id IN (SELECT jsonb_array_elements_text($3::jsonb)))
       ORDER BY d.strength * d.confidence DESC, d.id COLLATE "C" LIMIT $4`,
        agentId,
        json,
        json,
        limit,
      ),
    ),
  );
}
