import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';
import type { MentionRow } from '../schema/graph.js';

export interface EntityMatch {
  readonly entityId: string;
  readonly canonicalName: string;
}

// One statement for any number of names (json_each), so the statement cache is not churned.
const MATCH_ENTITIES = `
  SELECT e.id AS entityId, n.value AS canonicalName
  FROM json_each(?) AS n
  JOIN entities AS e ON e.agent_id = ? AND e.canonical_name = n.value AND e.status = 'active'
  UNION
  SELECT a.entity_id AS entityId, n.value AS canonicalName
  FROM json_each(?) AS n
  JOIN entity_aliases AS a ON a.agent_id = ? AND a.canonical_alias = n.value
  JOIN entities AS e ON e.id = a.entity_id AND e.status = 'active'`;

/** Active entities of `agentId` whose canonical name or alias is one of `canonicalNames`. */
export function matchEntitiesByName(
  sql: SqlExecutor,
  agentId: string,
  canonicalNames: readonly string[],
): EntityMatch[] {
  if (canonicalNames.length === 0) return [];
  const names = JSON.stringify(canonicalNames);
  return sql.all<EntityMatch>(raw(MATCH_ENTITIES, names, agentId, names, agentId));
}

/** True when the agent has at least one active entity (lets writers skip linking cheaply). */
export function agentHasEntities(sql: SqlExecutor, agentId: string): boolean {
  return (
    sql.get(raw("SELECT 1 AS x FROM entities WHERE agent_id = ? AND status = 'active' LIMIT 1", agentId)) !== undefined
  );
}

/** Records that a memory mentions an entity; bumps the entity's mention count when the link is new. */
export function insertMention(
  sql: SqlExecutor,
  mention: {
    memoryId: string;
    entityId: string;
    agentId: string;
    mentionText: string;
    confidence: number;
    now: number;
  },
): boolean {
  const inserted = sql.run(
    raw(
      `INSERT OR IGNORE INTO memory_entity_mentions (memory_id, entity_id, agent_id, mention_text, confidence, created_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
      mention.memoryId,
      mention.entityId,
      mention.agentId,
      mention.mentionText,
      mention.confidence,
      mention.now,
    ),
  ).changes;
  if (inserted > 0) sql.run(raw('UPDATE entities SET mentions = mentions + 1 WHERE id = ?', mention.entityId));
  return inserted > 0;
}

/** Mentions of a memory in `agentId`'s scope. */
export function listMentions(sql: SqlExecutor, agentId: string, memoryId: string): MentionRow[] {
  return sql.all(
    queryBuilder
      .selectFrom('memory_entity_mentions')
      .selectAll()
      .where('memory_id', '=', memoryId)
      .where('agent_id', '=', agentId)
      .orderBy('entity_id')
      .compile(),
  );
}

/** Removes a memory's entity mentions and lowers each entity's mention count. Returns how many went. */
export function deleteMentionsOfMemory(sql: SqlExecutor, agentId: string, memoryId: string): number {
  const entities = sql.all<{ entity_id: string }>(
    raw('SELECT entity_id FROM memory_entity_mentions WHERE memory_id = ? AND agent_id = ?', memoryId, agentId),
  );
  if (entities.length === 0) return 0;
  sql.run(raw('DELETE FROM memory_entity_mentions WHERE memory_id = ? AND agent_id = ?', memoryId, agentId));
  for (const { entity_id } of entities) {
    sql.run(raw('UPDATE entities SET mentions = max(mentions - 1, 0) WHERE id = ?', entity_id));
  }
  return entities.length;
}
