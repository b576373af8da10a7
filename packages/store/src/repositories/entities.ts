import { type SqlExecutor, queryBuilder } from '../internal/sql.js';

/** The lookup form of an entity name or alias: NFC, lower-cased, whitespace collapsed. */
export function canonicalEntityName(name: string): string {
  return name.normalize('NFC').replace(/\s+/gu, ' ').trim().toLowerCase();
}

/**
 * Inserts an entity (and its aliases). Only audited writers call this: the Dreaming apply seam, and
 * tests. Inline linking at remember time never creates entities.
 */
export function insertEntity(
  sql: SqlExecutor,
  entity: { id: string; agentId: string; name: string; entityType?: string; aliases?: readonly string[]; now: number },
): void {
  sql.run(
    queryBuilder
      .insertInto('entities')
      .values({
        id: entity.id,
        agent_id: entity.agentId,
        name: entity.name,
        canonical_name: canonicalEntityName(entity.name),
        entity_type: entity.entityType ?? 'unknown',
        description: null,
        mentions: 0,
        status: 'active',
        pinned: 0,
        community_id: null,
        created_at: entity.now,
        updated_at: entity.now,
      })
      .compile(),
  );
  for (const alias of entity.aliases ?? []) {
    sql.run(
      queryBuilder
        .insertInto('entity_aliases')
        .values({ entity_id: entity.id, agent_id: entity.agentId, alias, canonical_alias: canonicalEntityName(alias), created_at: entity.now })
        .onConflict((oc) => oc.doNothing())
        .compile(),
    );
  }
}

