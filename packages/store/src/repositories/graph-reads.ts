import { type SqlExecutor, raw } from '../internal/sql.js';

// Knowledge-graph reads for traversal and dampening. All scoped by agent; all bounded by a LIMIT.

/** Active claims on active aspects of the given entities, with the memory each claim came from. */
export function activeClaimsForEntities(
  sql: SqlExecutor,
  agentId: string,
  entityIds: readonly string[],
  limit: number,
  asOf?: number,
): Array<{ claimId: string; entityId: string; aspect: string; content: string; importance: number; memoryId: string | null; validFrom: number | null; createdAt: number }> {
  if (entityIds.length === 0) return [];
  return sql.all(
    raw(
      `SELECT c.id AS claimId, c.entity_id AS entityId, a.name AS aspect, c.content, c.importance,
              c.source_memory_id AS memoryId, c.valid_from AS validFrom, c.created_at AS createdAt
       FROM json_each(?) AS e
       CROSS JOIN entity_attributes AS c ON c.entity_id = e.value AND c.agent_id = ? AND c.status = 'active'
       JOIN entity_aspects AS a ON a.id = c.aspect_id AND a.status = 'active'
       WHERE (? IS NULL OR ((c.valid_from IS NULL OR c.valid_from <= ?) AND (c.valid_until IS NULL OR c.valid_until > ?)))
       ORDER BY a.weight DESC, c.importance DESC, c.created_at DESC
       LIMIT ?`,
      JSON.stringify(entityIds),
      agentId,
      asOf ?? null,
      asOf ?? null,
      asOf ?? null,
      limit,
    ),
  );
}

/** Active dependency links from or to the given entities, strongest first, at most `perEntity` each. */
export function dependencyNeighbors(
  sql: SqlExecutor,
  agentId: string,
  entityIds: readonly string[],
  perEntity: number,
): Array<{ fromId: string; toId: string; type: string; strength: number }> {
  if (entityIds.length === 0) return [];
  return sql.all(
    raw(
      `WITH edges AS (
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
       SELECT fromId, toId, type, strength FROM ranked WHERE n <= ? ORDER BY fromId, n`,
      JSON.stringify(entityIds),
      agentId,
      JSON.stringify(entityIds),
      agentId,
      perEntity,
    ),
  );
}

/** Memories that mention the given entities (most recent first), at most `limit`. */
export function memoriesMentioning(sql: SqlExecutor, agentId: string, entityIds: readonly string[], limit: number): Array<{ memoryId: string; entityId: string }> {
  if (entityIds.length === 0) return [];
  return sql.all(
    raw(
      `SELECT mm.memory_id AS memoryId, mm.entity_id AS entityId
       FROM json_each(?) AS e
       CROSS JOIN memory_entity_mentions AS mm ON mm.entity_id = e.value AND mm.agent_id = ?
       ORDER BY mm.created_at DESC
       LIMIT ?`,
      JSON.stringify(entityIds),
      agentId,
      limit,
    ),
  );
}

/** Entities each memory mentions, with the entity's degree (the memories mentioning it). */
export function entitiesOfMemories(
  sql: SqlExecutor,
  agentId: string,
  memoryIds: readonly string[],
): Array<{ memoryId: string; entityId: string; name: string; degree: number }> {
  if (memoryIds.length === 0) return [];
  return sql.all(
    raw(
      `SELECT mm.memory_id AS memoryId, e.id AS entityId, e.name AS name, e.mentions AS degree
       FROM json_each(?) AS m
       CROSS JOIN memory_entity_mentions AS mm ON mm.memory_id = m.value AND mm.agent_id = ?
       JOIN entities AS e ON e.id = mm.entity_id AND e.status = 'active'`,
      JSON.stringify(memoryIds),
      agentId,
    ),
  );
}

/** The agent's entity degree at the given percentile (0..1), by mentions; undefined without entities. */
export function entityDegreePercentile(sql: SqlExecutor, agentId: string, percentile: number): number | undefined {
  const count = sql.get<{ n: number }>(raw("SELECT count(*) AS n FROM entities WHERE agent_id = ? AND status = 'active'", agentId))?.n ?? 0;
  if (count === 0) return undefined;
  const offset = Math.min(count - 1, Math.floor(count * (1 - percentile)));
  return sql.get<{ mentions: number }>(
    raw("SELECT mentions FROM entities WHERE agent_id = ? AND status = 'active' ORDER BY mentions DESC LIMIT 1 OFFSET ?", agentId, offset),
  )?.mentions;
}
