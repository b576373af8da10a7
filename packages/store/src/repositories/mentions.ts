import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
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
const MATCH_ENTITIES_PG = `
  SELECT e.id AS "entityId", n.value AS "canonicalName"
  FROM unnest($1::text[]) AS n(value)
  JOIN entities AS e ON e.agent_id = $2 AND e.canonical_name = n.value AND e.status = 'active'
  UNION
  SELECT a.entity_id AS "entityId", n.value AS "canonicalName"
  FROM unnest($1::text[]) AS n(value)
  JOIN entity_aliases AS a ON a.agent_id = $2 AND a.canonical_alias = n.value
  JOIN entities AS e ON e.id = a.entity_id AND e.status = 'active'`;

/** Active entities of `agentId` whose canonical name or alias is one of `canonicalNames`. */
export function matchEntitiesByName(
  sql: SqlExecutor,
  agentId: string,
  canonicalNames: readonly string[],
): EntityMatch[] {
  return runSqliteProgram(sql, matchEntitiesByNameProgram(agentId, canonicalNames));
}

/** {@link matchEntitiesByName} as a program (both dialects). */
export function* matchEntitiesByNameProgram(
  agentId: string,
  canonicalNames: readonly string[],
): Program<EntityMatch[]> {
  if (canonicalNames.length === 0) return [];
  const names = JSON.stringify(canonicalNames);
  return yield* all<EntityMatch>(
    perDialect(
      { sql: MATCH_ENTITIES, parameters: [names, agentId, names, agentId] },
      { sql: MATCH_ENTITIES_PG, parameters: [[...canonicalNames], agentId] },
    ),
  );
}

/** True when the agent has at least one active entity (lets writers skip linking cheaply). */
export function agentHasEntities(sql: SqlExecutor, agentId: string): boolean {
  return runSqliteProgram(sql, agentHasEntitiesProgram(agentId));
}

/** {@link agentHasEntities} as a program (both dialects). */
export function* agentHasEntitiesProgram(agentId: string): Program<boolean> {
  return (
    (yield* get(portable("SELECT 1 AS x FROM entities WHERE agent_id = ? AND status = 'active' LIMIT 1", agentId))) !==
    undefined
  );
}

/** A mention to record. */
export interface NewMention {
  readonly memoryId: string;
  readonly entityId: string;
  readonly agentId: string;
  readonly mentionText: string;
  readonly confidence: number;
  readonly now: number;
}

const INSERT_MENTION = `INSERT OR IGNORE INTO memory_entity_mentions (memory_id, entity_id, agent_id, mention_text, confidence, created_at)
       VALUES (?, ?, ?, ?, ?, ?)`;
const INSERT_MENTION_PG = `${portable(INSERT_MENTION.replace('INSERT OR IGNORE', 'INSERT')).postgres.sql} ON CONFLICT DO NOTHING`;

/** Records that a memory mentions an entity; bumps the entity's mention count when the link is new. */
export function insertMention(sql: SqlExecutor, mention: NewMention): boolean {
  return runSqliteProgram(sql, insertMentionProgram(mention));
}

/** {@link insertMention} as a program (both dialects). */
export function* insertMentionProgram(mention: NewMention): Program<boolean> {
  const parameters = [
    mention.memoryId,
    mention.entityId,
    mention.agentId,
    mention.mentionText,
    mention.confidence,
    mention.now,
  ];
  const inserted = (yield* run(perDialect({ sql: INSERT_MENTION, parameters }, { sql: INSERT_MENTION_PG, parameters })))
    .changes;
  if (inserted > 0) yield* run(portable('UPDATE entities SET mentions = mentions + 1 WHERE id = ?', mention.entityId));
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
  return runSqliteProgram(sql, deleteMentionsOfMemoryProgram(agentId, memoryId));
}

const LOWER_MENTIONS = {
  sqlite: 'UPDATE entities SET mentions = max(mentions - 1, 0) WHERE id = ?',
  postgres: 'UPDATE entities SET mentions = greatest(mentions - 1, 0) WHERE id = $1',
};

/** {@link deleteMentionsOfMemory} as a program (both dialects). */
export function* deleteMentionsOfMemoryProgram(agentId: string, memoryId: string): Program<number> {
  const entities = yield* all<{ entity_id: string }>(
    portable('SELECT entity_id FROM memory_entity_mentions WHERE memory_id = ? AND agent_id = ?', memoryId, agentId),
  );
  if (entities.length === 0) return 0;
  yield* run(portable('DELETE FROM memory_entity_mentions WHERE memory_id = ? AND agent_id = ?', memoryId, agentId));
  for (const { entity_id } of entities) {
    const parameters = [entity_id];
    yield* run(perDialect({ sql: LOWER_MENTIONS.sqlite, parameters }, { sql: LOWER_MENTIONS.postgres, parameters }));
  }
  return entities.length;
}
