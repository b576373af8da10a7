import type { SqlExecutor } from '../internal/sql.js';
import { raw } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { canonicalEntityName } from './entities.js';

// Graph reads for Dreaming's agent tools: what the model browses before it proposes operations.
// All scoped to one agent and bounded; each has a program form (`...Program`) for either dialect.

/** An entity as the tools show it. */
export interface EntitySummary {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly description: string | null;
}

/** Active entities whose name or an alias contains `query` (compared canonically), most mentioned first. */
export function searchEntitiesByName(sql: SqlExecutor, agentId: string, query: string, limit: number): EntitySummary[] {
  return runSqliteProgram(sql, searchEntitiesByNameProgram(agentId, query, limit));
}

/** {@link searchEntitiesByName} as a program (both dialects; `instr` is `strpos` on PostgreSQL). */
export function* searchEntitiesByNameProgram(agentId: string, query: string, limit: number): Program<EntitySummary[]> {
  const key = canonicalEntityName(query);
  return yield* all<EntitySummary>(
    perDialect(
      raw(
        `SELECT DISTINCT e.id, e.name, e.entity_type AS type, e.description FROM entities AS e
       LEFT JOIN entity_aliases AS a ON a.entity_id = e.id
       WHERE e.agent_id = ? AND e.status = 'active' AND (instr(e.canonical_name, ?) > 0 OR instr(a.canonical_alias, ?) > 0)
       ORDER BY e.mentions DESC, e.id LIMIT ?`,
        agentId,
        key,
        key,
        limit,
      ),
      raw(
        `SELECT id, name, type, description FROM (
           SELECT DISTINCT e.id, e.name, e.entity_type AS type, e.description, e.mentions FROM entities AS e
           LEFT JOIN entity_aliases AS a ON a.entity_id = e.id
           WHERE e.agent_id = $1 AND e.status = 'active' AND (strpos(e.canonical_name, $2) > 0 OR strpos(a.canonical_alias, $2) > 0)) AS found
         ORDER BY mentions DESC, id COLLATE "C" LIMIT $3`,
        agentId,
        key,
        limit,
      ),
    ),
  );
}

/** An active entity of `agentId`, or undefined. */
export function findActiveEntity(sql: SqlExecutor, agentId: string, entityId: string): EntitySummary | undefined {
  return runSqliteProgram(sql, findActiveEntityProgram(agentId, entityId));
}

/** {@link findActiveEntity} as a program (both dialects). */
export function* findActiveEntityProgram(agentId: string, entityId: string): Program<EntitySummary | undefined> {
  return yield* get<EntitySummary>(
    portable(
      "SELECT id, name, entity_type AS type, description FROM entities WHERE id = ? AND agent_id = ? AND status = 'active'",
      entityId,
      agentId,
    ),
  );
}

/** One active aspect with one of its active claims (claim fields null for an aspect without claims). */
export interface AspectClaim {
  readonly aspectId: string;
  readonly aspect: string;
  readonly claimId: string | null;
  readonly claimKey: string | null;
  readonly content: string | null;
  readonly validFrom: number | null;
}

/** An entity's active aspects with their active claims, by aspect name and claim key. */
export function entityAspectClaims(sql: SqlExecutor, agentId: string, entityId: string, limit: number): AspectClaim[] {
  return runSqliteProgram(sql, entityAspectClaimsProgram(agentId, entityId, limit));
}

/** {@link entityAspectClaims} as a program (both dialects; names ordered bytewise on both). */
export function* entityAspectClaimsProgram(agentId: string, entityId: string, limit: number): Program<AspectClaim[]> {
  const select = `SELECT a.id AS "aspectId", a.name AS aspect, c.id AS "claimId", c.claim_key AS "claimKey", c.content, c.valid_from AS "validFrom"
       FROM entity_aspects AS a LEFT JOIN entity_attributes AS c ON c.aspect_id = a.id AND c.status = 'active'
       WHERE a.entity_id = ? AND a.agent_id = ? AND a.status = 'active'`;
  return yield* all<AspectClaim>(
    perDialect(
      raw(`${select} ORDER BY a.name, c.claim_key LIMIT ?`, entityId, agentId, limit),
      raw(
        `${select.replace('a.entity_id = ? AND a.agent_id = ?', 'a.entity_id = $1 AND a.agent_id = $2')} ORDER BY a.name COLLATE "C", c.claim_key COLLATE "C" NULLS FIRST LIMIT $3`,
        entityId,
        agentId,
        limit,
      ),
    ),
  );
}

/** An active link from or to an entity, with the names of both ends. */
export interface EntityLink {
  readonly linkId: string;
  readonly type: string;
  readonly strength: number;
  readonly sourceId: string;
  readonly source: string;
  readonly targetId: string;
  readonly target: string;
}

/** Active links from and to an entity. */
export function entityLinks(sql: SqlExecutor, agentId: string, entityId: string, limit: number): EntityLink[] {
  return runSqliteProgram(sql, entityLinksProgram(agentId, entityId, limit));
}

/** {@link entityLinks} as a program (both dialects). */
export function* entityLinksProgram(agentId: string, entityId: string, limit: number): Program<EntityLink[]> {
  return yield* all<EntityLink>(
    portable(
      `SELECT d.id AS "linkId", d.dependency_type AS type, d.strength, d.source_entity_id AS "sourceId", s.name AS source, d.target_entity_id AS "targetId", t.name AS target
       FROM entity_dependencies AS d JOIN entities AS s ON s.id = d.source_entity_id JOIN entities AS t ON t.id = d.target_entity_id
       WHERE d.agent_id = ? AND d.status = 'active' AND (d.source_entity_id = ? OR d.target_entity_id = ?) LIMIT ?`,
      agentId,
      entityId,
      entityId,
      limit,
    ),
  );
}
