import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { canonicalEntityName } from './entities.js';

// Knowledge-graph reads for traversal and dampening. All scoped by agent; all bounded by a LIMIT.

/** An active claim as traversal reads it. */
export interface ActiveClaimRow {
  readonly claimId: string;
  readonly entityId: string;
  readonly aspect: string;
  readonly content: string;
  readonly importance: number;
  readonly memoryId: string | null;
  readonly validFrom: number | null;
  readonly createdAt: number;
}

const ACTIVE_CLAIMS = `SELECT c.id AS claimId, c.entity_id AS entityId, a.name AS aspect, c.content, c.importance,
              c.source_memory_id AS memoryId, c.valid_from AS validFrom, c.created_at AS createdAt
       FROM json_each(?) AS e
       CROSS JOIN entity_attributes AS c ON c.entity_id = e.value AND c.agent_id = ? AND c.status = 'active'
       JOIN entity_aspects AS a ON a.id = c.aspect_id AND a.status = 'active'
       WHERE (? IS NULL OR ((c.valid_from IS NULL OR c.valid_from <= ?) AND (c.valid_until IS NULL OR c.valid_until > ?)))
       ORDER BY a.weight DESC, c.importance DESC, c.created_at DESC, c.id
       LIMIT ?`;
// Text order by code point (COLLATE "C"), as SQLite's binary collation orders it.
const ACTIVE_CLAIMS_POSTGRES = `SELECT c.id AS "claimId", c.entity_id AS "entityId", a.name AS aspect, c.content, c.importance,
              c.source_memory_id AS "memoryId", c.valid_from AS "validFrom", c.created_at AS "createdAt"
       FROM entity_attributes AS c
       JOIN entity_aspects AS a ON a.id = c.aspect_id AND a.status = 'active'
       WHERE c.entity_id = ANY($1::text[]) AND c.agent_id = $2 AND c.status = 'active'
         AND ($3::bigint IS NULL OR ((c.valid_from IS NULL OR c.valid_from <= $3) AND (c.valid_until IS NULL OR c.valid_until > $3)))
       ORDER BY a.weight DESC, c.importance DESC, c.created_at DESC, c.id COLLATE "C"
       LIMIT $4`;

/**
 * Active claims on active aspects of the given entities, with the memory each claim came from:
 * heaviest aspect, most important, newest first (then by id, so both dialects agree on ties).
 */
export function activeClaimsForEntities(
  sql: SqlExecutor,
  agentId: string,
  entityIds: readonly string[],
  limit: number,
  asOf?: number,
): ActiveClaimRow[] {
  return runSqliteProgram(sql, activeClaimsForEntitiesProgram(agentId, entityIds, limit, asOf));
}

/** {@link activeClaimsForEntities} as a program (both dialects). */
export function* activeClaimsForEntitiesProgram(
  agentId: string,
  entityIds: readonly string[],
  limit: number,
  asOf?: number,
): Program<ActiveClaimRow[]> {
  if (entityIds.length === 0) return [];
  const at = asOf ?? null;
  return yield* all<ActiveClaimRow>(
    perDialect(
      { sql: ACTIVE_CLAIMS, parameters: [JSON.stringify(entityIds), agentId, at, at, at, limit] },
      { sql: ACTIVE_CLAIMS_POSTGRES, parameters: [[...entityIds], agentId, at, limit] },
    ),
  );
}

const DEPENDENCY_NEIGHBOURS = `WITH edges AS (
         SELECT d.source_entity_id AS fromId, d.target_entity_id AS toId, d.dependency_type AS type, d.strength * d.confidence AS strength
         FROM json_each(?) AS e CROSS JOIN entity_dependencies AS d ON d.source_entity_id = e.value
         WHERE d.agent_id = ? AND d.status = 'active'
         UNION ALL
         SELECT d.target_entity_id, d.source_entity_id, d.dependency_type, d.strength * d.confidence
         FROM json_each(?) AS e CROSS JOIN entity_dependencies AS d ON d.target_entity_id = e.value
         WHERE d.agent_id = ? AND d.status = 'active'
       ),
       ranked AS (
         SELECT edges.*, row_number() OVER (PARTITION BY fromId ORDER BY strength DESC, toId) AS n
         FROM edges JOIN entities AS t ON t.id = edges.toId AND t.status = 'active'
       )
       SELECT fromId, toId, type, strength FROM ranked WHERE n <= ? ORDER BY fromId, n`;
const DEPENDENCY_NEIGHBOURS_POSTGRES = `WITH edges AS (
         SELECT d.source_entity_id AS "fromId", d.target_entity_id AS "toId", d.dependency_type AS type, d.strength * d.confidence AS strength
         FROM entity_dependencies AS d
         WHERE d.source_entity_id = ANY($1::text[]) AND d.agent_id = $2 AND d.status = 'active'
         UNION ALL
         SELECT d.target_entity_id, d.source_entity_id, d.dependency_type, d.strength * d.confidence
         FROM entity_dependencies AS d
         WHERE d.target_entity_id = ANY($1::text[]) AND d.agent_id = $2 AND d.status = 'active'
       ),
       ranked AS (
         SELECT edges.*, row_number() OVER (PARTITION BY "fromId" ORDER BY strength DESC, "toId" COLLATE "C") AS n
         FROM edges JOIN entities AS t ON t.id = edges."toId" AND t.status = 'active'
       )
       SELECT "fromId", "toId", type, strength FROM ranked WHERE n <= $3 ORDER BY "fromId" COLLATE "C", n`;

/** Active dependency links from or to the given entities, strongest first, at most `perEntity` each. */
export function dependencyNeighbors(
  sql: SqlExecutor,
  agentId: string,
  entityIds: readonly string[],
  perEntity: number,
): Array<{ fromId: string; toId: string; type: string; strength: number }> {
  return runSqliteProgram(sql, dependencyNeighborsProgram(agentId, entityIds, perEntity));
}

/** {@link dependencyNeighbors} as a program (both dialects). */
export function* dependencyNeighborsProgram(
  agentId: string,
  entityIds: readonly string[],
  perEntity: number,
): Program<Array<{ fromId: string; toId: string; type: string; strength: number }>> {
  if (entityIds.length === 0) return [];
  const ids = JSON.stringify(entityIds);
  return yield* all<{ fromId: string; toId: string; type: string; strength: number }>(
    perDialect(
      { sql: DEPENDENCY_NEIGHBOURS, parameters: [ids, agentId, ids, agentId, perEntity] },
      { sql: DEPENDENCY_NEIGHBOURS_POSTGRES, parameters: [[...entityIds], agentId, perEntity] },
    ),
  );
}

const MENTIONING = `SELECT mm.memory_id AS memoryId, mm.entity_id AS entityId
       FROM json_each(?) AS e
       CROSS JOIN memory_entity_mentions AS mm ON mm.entity_id = e.value AND mm.agent_id = ?
       ORDER BY mm.created_at DESC, mm.memory_id, mm.entity_id
       LIMIT ?`;
const MENTIONING_POSTGRES = `SELECT mm.memory_id AS "memoryId", mm.entity_id AS "entityId"
       FROM memory_entity_mentions AS mm
       WHERE mm.entity_id = ANY($1::text[]) AND mm.agent_id = $2
       ORDER BY mm.created_at DESC, mm.memory_id COLLATE "C", mm.entity_id COLLATE "C"
       LIMIT $3`;

/** Memories that mention the given entities (most recent first, then by id), at most `limit`. */
export function memoriesMentioning(
  sql: SqlExecutor,
  agentId: string,
  entityIds: readonly string[],
  limit: number,
): Array<{ memoryId: string; entityId: string }> {
  return runSqliteProgram(sql, memoriesMentioningProgram(agentId, entityIds, limit));
}

/** {@link memoriesMentioning} as a program (both dialects). */
export function* memoriesMentioningProgram(
  agentId: string,
  entityIds: readonly string[],
  limit: number,
): Program<Array<{ memoryId: string; entityId: string }>> {
  if (entityIds.length === 0) return [];
  return yield* all<{ memoryId: string; entityId: string }>(
    perDialect(
      { sql: MENTIONING, parameters: [JSON.stringify(entityIds), agentId, limit] },
      { sql: MENTIONING_POSTGRES, parameters: [[...entityIds], agentId, limit] },
    ),
  );
}

const ENTITIES_OF_MEMORIES = `SELECT mm.memory_id AS memoryId, e.id AS entityId, e.name AS name, e.mentions AS degree
       FROM json_each(?) AS m
       CROSS JOIN memory_entity_mentions AS mm ON mm.memory_id = m.value AND mm.agent_id = ?
       JOIN entities AS e ON e.id = mm.entity_id AND e.status = 'active'`;
const ENTITIES_OF_MEMORIES_POSTGRES = `SELECT mm.memory_id AS "memoryId", e.id AS "entityId", e.name AS name, e.mentions AS degree
       FROM memory_entity_mentions AS mm
       JOIN entities AS e ON e.id = mm.entity_id AND e.status = 'active'
       WHERE mm.memory_id = ANY($1::text[]) AND mm.agent_id = $2`;

/** Entities each memory mentions, with the entity's degree (the memories mentioning it). */
export function entitiesOfMemories(
  sql: SqlExecutor,
  agentId: string,
  memoryIds: readonly string[],
): Array<{ memoryId: string; entityId: string; name: string; degree: number }> {
  return runSqliteProgram(sql, entitiesOfMemoriesProgram(agentId, memoryIds));
}

/** {@link entitiesOfMemories} as a program (both dialects). */
export function* entitiesOfMemoriesProgram(
  agentId: string,
  memoryIds: readonly string[],
): Program<Array<{ memoryId: string; entityId: string; name: string; degree: number }>> {
  if (memoryIds.length === 0) return [];
  return yield* all<{ memoryId: string; entityId: string; name: string; degree: number }>(
    perDialect(
      { sql: ENTITIES_OF_MEMORIES, parameters: [JSON.stringify(memoryIds), agentId] },
      { sql: ENTITIES_OF_MEMORIES_POSTGRES, parameters: [[...memoryIds], agentId] },
    ),
  );
}

/** The agent's entity degree at the given percentile (0..1), by mentions; undefined without entities. */
export function entityDegreePercentile(sql: SqlExecutor, agentId: string, percentile: number): number | undefined {
  return runSqliteProgram(sql, entityDegreePercentileProgram(agentId, percentile));
}

/** {@link entityDegreePercentile} as a program (both dialects). */
export function* entityDegreePercentileProgram(agentId: string, percentile: number): Program<number | undefined> {
  const count =
    (yield* get<{ n: number }>(
      portable("SELECT count(*) AS n FROM entities WHERE agent_id = ? AND status = 'active'", agentId),
    ))?.n ?? 0;
  if (count === 0) return undefined;
  const offset = Math.min(count - 1, Math.floor(count * (1 - percentile)));
  return (yield* get<{ mentions: number }>(
    portable(
      "SELECT mentions FROM entities WHERE agent_id = ? AND status = 'active' ORDER BY mentions DESC LIMIT 1 OFFSET ?",
      agentId,
      offset,
    ),
  ))?.mentions;
}

/** A graph row's scope and state, for the Dreaming seam's checks. */
export interface GraphRowState {
  readonly agentId: string;
  readonly status: string;
}

// The Dreaming seam's reads below have program forms (`...Program`) for either dialect.
const GRAPH_ROW: Record<'entity' | 'aspect' | 'claim' | 'link', string> = {
  entity: 'SELECT agent_id AS "agentId", status FROM entities WHERE id = ?',
  aspect: 'SELECT agent_id AS "agentId", status FROM entity_aspects WHERE id = ?',
  claim: 'SELECT agent_id AS "agentId", status FROM entity_attributes WHERE id = ?',
  link: 'SELECT agent_id AS "agentId", status FROM entity_dependencies WHERE id = ?',
};

/** A graph row wherever it lives (the caller compares the scope), or undefined. */
export function graphRowState(sql: SqlExecutor, kind: keyof typeof GRAPH_ROW, id: string): GraphRowState | undefined {
  return runSqliteProgram(sql, graphRowStateProgram(kind, id));
}

/** {@link graphRowState} as a program (both dialects). */
export function* graphRowStateProgram(kind: keyof typeof GRAPH_ROW, id: string): Program<GraphRowState | undefined> {
  return yield* get<GraphRowState>(portable(GRAPH_ROW[kind], id));
}

const GRAPH_ROW_SNAPSHOT: Record<keyof typeof GRAPH_ROW, string> = {
  entity: 'SELECT * FROM entities WHERE id = ?',
  aspect: 'SELECT * FROM entity_aspects WHERE id = ?',
  claim: 'SELECT * FROM entity_attributes WHERE id = ?',
  link: 'SELECT * FROM entity_dependencies WHERE id = ?',
};

/** A graph row with all its columns (kept with the provenance before the row changes), or undefined. */
export function graphRowSnapshot(
  sql: SqlExecutor,
  kind: keyof typeof GRAPH_ROW,
  id: string,
): Readonly<Record<string, unknown>> | undefined {
  return runSqliteProgram(sql, graphRowSnapshotProgram(kind, id));
}

/** {@link graphRowSnapshot} as a program (both dialects: the tables mirror each other column for column). */
export function* graphRowSnapshotProgram(
  kind: keyof typeof GRAPH_ROW,
  id: string,
): Program<Readonly<Record<string, unknown>> | undefined> {
  return yield* get<Record<string, unknown>>(portable(GRAPH_ROW_SNAPSHOT[kind], id));
}

/** The entity an aspect belongs to (in any state), or undefined. */
export function aspectEntityId(sql: SqlExecutor, aspectId: string): string | undefined {
  return runSqliteProgram(sql, aspectEntityIdProgram(aspectId));
}

/** {@link aspectEntityId} as a program (both dialects). */
export function* aspectEntityIdProgram(aspectId: string): Program<string | undefined> {
  return (yield* get(queryBuilder.selectFrom('entity_aspects').select('entity_id').where('id', '=', aspectId)))
    ?.entity_id;
}

/** The active aspect of an entity with this name (compared canonically), if any. */
export function activeAspectByName(sql: SqlExecutor, entityId: string, name: string): string | undefined {
  return runSqliteProgram(sql, activeAspectByNameProgram(entityId, name));
}

/** {@link activeAspectByName} as a program (both dialects). */
export function* activeAspectByNameProgram(entityId: string, name: string): Program<string | undefined> {
  const row = yield* get<{ id: string }>(
    portable(
      "SELECT id FROM entity_aspects WHERE entity_id = ? AND canonical_name = ? AND status = 'active'",
      entityId,
      canonicalEntityName(name),
    ),
  );
  return row?.id;
}

/** The newest active claim of an aspect under this key, if any. */
export function latestActiveClaim(
  sql: SqlExecutor,
  aspectId: string,
  claimKey: string,
): { id: string; content: string } | undefined {
  return runSqliteProgram(sql, latestActiveClaimProgram(aspectId, claimKey));
}

/** {@link latestActiveClaim} as a program (both dialects). */
export function* latestActiveClaimProgram(
  aspectId: string,
  claimKey: string,
): Program<{ id: string; content: string } | undefined> {
  return yield* get<{ id: string; content: string }>(
    portable(
      "SELECT id, content FROM entity_attributes WHERE aspect_id = ? AND claim_key = ? AND status = 'active' ORDER BY created_at DESC LIMIT 1",
      aspectId,
      claimKey,
    ),
  );
}

/** What a superseding claim inherits from the claim it replaces. */
export interface ClaimBasis {
  entity_id: string;
  aspect_id: string;
  claim_key: string;
  kind: 'attribute' | 'constraint';
  importance: number;
}

/** What a superseding claim inherits from the claim it replaces, or undefined. */
export function findClaimBasis(sql: SqlExecutor, claimId: string): ClaimBasis | undefined {
  return runSqliteProgram(sql, findClaimBasisProgram(claimId));
}

/** {@link findClaimBasis} as a program (both dialects). */
export function* findClaimBasisProgram(claimId: string): Program<ClaimBasis | undefined> {
  return (yield* get(
    queryBuilder
      .selectFrom('entity_attributes')
      .select(['entity_id', 'aspect_id', 'claim_key', 'kind', 'importance'])
      .where('id', '=', claimId),
  )) as ClaimBasis | undefined;
}

/** Active aspects of an entity. */
export function countActiveAspects(sql: SqlExecutor, entityId: string): number {
  return runSqliteProgram(sql, countActiveAspectsProgram(entityId));
}

/** {@link countActiveAspects} as a program (both dialects). */
export function* countActiveAspectsProgram(entityId: string): Program<number> {
  const row = yield* get<{ n: number }>(
    portable("SELECT count(*) AS n FROM entity_aspects WHERE entity_id = ? AND status = 'active'", entityId),
  );
  return row?.n ?? 0;
}

/** Active claims of an aspect. */
export function countActiveClaims(sql: SqlExecutor, aspectId: string): number {
  return runSqliteProgram(sql, countActiveClaimsProgram(aspectId));
}

/** {@link countActiveClaims} as a program (both dialects). */
export function* countActiveClaimsProgram(aspectId: string): Program<number> {
  const row = yield* get<{ n: number }>(
    portable("SELECT count(*) AS n FROM entity_attributes WHERE aspect_id = ? AND status = 'active'", aspectId),
  );
  return row?.n ?? 0;
}

/** The active entity of `agentId` with this canonical name, if any. */
export function activeEntityByCanonicalName(
  sql: SqlExecutor,
  agentId: string,
  canonicalName: string,
): string | undefined {
  return runSqliteProgram(sql, activeEntityByCanonicalNameProgram(agentId, canonicalName));
}

/** {@link activeEntityByCanonicalName} as a program (both dialects). */
export function* activeEntityByCanonicalNameProgram(
  agentId: string,
  canonicalName: string,
): Program<string | undefined> {
  const row = yield* get<{ id: string }>(
    portable(
      "SELECT id FROM entities WHERE agent_id = ? AND canonical_name = ? AND status = 'active'",
      agentId,
      canonicalName,
    ),
  );
  return row?.id;
}

/** A claim as the as-of query returns it. */
export interface ClaimAsOf {
  readonly id: string;
  readonly aspectId: string;
  readonly claimKey: string;
  readonly content: string;
  readonly status: string;
  readonly validFrom: number | null;
  readonly validUntil: number | null;
  readonly createdAt: number;
  readonly supersededAt: number | null;
}

/**
 * The claims of an entity that were true at `at` (event time): active or superseded (never
 * archived), valid_from ≤ at < valid_until, and per aspect and claim key the one that started
 * latest (then the newest record). Superseding never deletes, so past states stay queryable.
 */
export function claimsAsOf(sql: SqlExecutor, agentId: string, entityId: string, at: number): ClaimAsOf[] {
  return runSqliteProgram(sql, claimsAsOfProgram(agentId, entityId, at));
}

/** {@link claimsAsOf} as a program (both dialects; ids and keys ordered bytewise on both). */
export function* claimsAsOfProgram(agentId: string, entityId: string, at: number): Program<ClaimAsOf[]> {
  const ranked = (
    order: string,
  ) => `SELECT id, "aspectId", "claimKey", content, status, "validFrom", "validUntil", "createdAt", "supersededAt" FROM (
         SELECT c.id, c.aspect_id AS "aspectId", c.claim_key AS "claimKey", c.content, c.status,
                c.valid_from AS "validFrom", c.valid_until AS "validUntil", c.created_at AS "createdAt", c.superseded_at AS "supersededAt",
                row_number() OVER (PARTITION BY c.aspect_id, c.claim_key ORDER BY coalesce(c.valid_from, 0) DESC, c.created_at DESC, c.id DESC) AS n
         FROM entity_attributes AS c
         WHERE c.agent_id = ? AND c.entity_id = ? AND c.status IN ('active', 'superseded')
           AND (c.valid_from IS NULL OR c.valid_from <= ?) AND (c.valid_until IS NULL OR c.valid_until > ?)) AS ranked
       WHERE n = 1
       ORDER BY ${order}`;
  const statement = portable(ranked('"aspectId", "claimKey"'), agentId, entityId, at, at);
  const postgres = portable(
    ranked('"aspectId" COLLATE "C", "claimKey" COLLATE "C"'),
    agentId,
    entityId,
    at,
    at,
  ).postgres;
  return yield* all<ClaimAsOf>(perDialect(statement.sqlite ?? statement.postgres, postgres));
}
