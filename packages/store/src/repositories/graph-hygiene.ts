import type { SqlExecutor } from '../internal/sql.js';
import { all, type Program, portable } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

// Deterministic hygiene reads over one agent's graph, for Dreaming's attention detection. Each is
// bounded by `limit`, and has a program form (`...Program`) for either dialect.

/** Active entities whose name is an alias of another active entity: one thing under two entries. */
export function entitiesNamedLikeAnotherAlias(
  sql: SqlExecutor,
  agentId: string,
  limit: number,
): Array<{ id: string; name: string; other: string; otherName: string }> {
  return runSqliteProgram(sql, entitiesNamedLikeAnotherAliasProgram(agentId, limit));
}

/** {@link entitiesNamedLikeAnotherAlias} as a program (both dialects). */
export function* entitiesNamedLikeAnotherAliasProgram(
  agentId: string,
  limit: number,
): Program<Array<{ id: string; name: string; other: string; otherName: string }>> {
  return yield* all(
    portable(
      `SELECT e.id AS id, e.name AS name, o.id AS other, o.name AS "otherName"
       FROM entities AS e
       JOIN entity_aliases AS a ON a.agent_id = e.agent_id AND a.canonical_alias = e.canonical_name AND a.entity_id <> e.id
       JOIN entities AS o ON o.id = a.entity_id AND o.status = 'active'
       WHERE e.agent_id = ? AND e.status = 'active' LIMIT ?`,
      agentId,
      limit,
    ),
  );
}

/** Active entities with no active aspect and no active claim. */
export function entitiesWithoutContent(
  sql: SqlExecutor,
  agentId: string,
  limit: number,
): Array<{ id: string; name: string }> {
  return runSqliteProgram(sql, entitiesWithoutContentProgram(agentId, limit));
}

/** {@link entitiesWithoutContent} as a program (both dialects). */
export function* entitiesWithoutContentProgram(
  agentId: string,
  limit: number,
): Program<Array<{ id: string; name: string }>> {
  return yield* all(
    portable(
      `SELECT e.id AS id, e.name AS name FROM entities AS e
       WHERE e.agent_id = ? AND e.status = 'active'
         AND NOT EXISTS (SELECT 1 FROM entity_aspects AS a WHERE a.entity_id = e.id AND a.status = 'active')
         AND NOT EXISTS (SELECT 1 FROM entity_attributes AS c WHERE c.entity_id = e.id AND c.status = 'active')
       LIMIT ?`,
      agentId,
      limit,
    ),
  );
}

/** Entities with more than `cap` active aspects, with the count. */
export function entitiesOverAspectCap(
  sql: SqlExecutor,
  agentId: string,
  cap: number,
  limit: number,
): Array<{ id: string; n: number }> {
  return runSqliteProgram(sql, entitiesOverAspectCapProgram(agentId, cap, limit));
}

/** {@link entitiesOverAspectCap} as a program (both dialects). */
export function* entitiesOverAspectCapProgram(
  agentId: string,
  cap: number,
  limit: number,
): Program<Array<{ id: string; n: number }>> {
  return yield* all(
    portable(
      "SELECT entity_id AS id, count(*) AS n FROM entity_aspects WHERE agent_id = ? AND status = 'active' GROUP BY entity_id HAVING count(*) > ? LIMIT ?",
      agentId,
      cap,
      limit,
    ),
  );
}

/** Aspects with more than `cap` active claims, with the count. */
export function aspectsOverClaimCap(
  sql: SqlExecutor,
  agentId: string,
  cap: number,
  limit: number,
): Array<{ id: string; n: number }> {
  return runSqliteProgram(sql, aspectsOverClaimCapProgram(agentId, cap, limit));
}

/** {@link aspectsOverClaimCap} as a program (both dialects). */
export function* aspectsOverClaimCapProgram(
  agentId: string,
  cap: number,
  limit: number,
): Program<Array<{ id: string; n: number }>> {
  return yield* all(
    portable(
      "SELECT aspect_id AS id, count(*) AS n FROM entity_attributes WHERE agent_id = ? AND status = 'active' GROUP BY aspect_id HAVING count(*) > ? LIMIT ?",
      agentId,
      cap,
      limit,
    ),
  );
}

/** Active claims whose validity ended at or before `now`. */
export function activeClaimsPastValidity(
  sql: SqlExecutor,
  agentId: string,
  now: number,
  limit: number,
): Array<{ id: string; content: string }> {
  return runSqliteProgram(sql, activeClaimsPastValidityProgram(agentId, now, limit));
}

/** {@link activeClaimsPastValidity} as a program (both dialects). */
export function* activeClaimsPastValidityProgram(
  agentId: string,
  now: number,
  limit: number,
): Program<Array<{ id: string; content: string }>> {
  return yield* all(
    portable(
      "SELECT id, content FROM entity_attributes WHERE agent_id = ? AND status = 'active' AND valid_until IS NOT NULL AND valid_until <= ? LIMIT ?",
      agentId,
      now,
      limit,
    ),
  );
}
