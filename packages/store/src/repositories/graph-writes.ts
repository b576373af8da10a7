import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { canonicalEntityName } from './entities.js';

// Changes to the knowledge graph made by its one audited writer, the Dreaming apply seam: renames,
// status changes, merges, claim supersession and link updates (inserts are in entities.ts). Each
// runs inside the caller's savepoint. Each has a program form (`...Program`) for either dialect.

export type GraphKind = 'entity' | 'aspect' | 'claim' | 'link';

// Claims have no updated_at: their record time is created_at / superseded_at.
const SET_STATUS: Readonly<Record<GraphKind, string>> = {
  entity: 'UPDATE entities SET status = ?, updated_at = ? WHERE id = ?',
  aspect: 'UPDATE entity_aspects SET status = ?, updated_at = ? WHERE id = ?',
  claim: 'UPDATE entity_attributes SET status = ? WHERE id = ?',
  link: 'UPDATE entity_dependencies SET status = ?, updated_at = ? WHERE id = ?',
};

/** Sets a graph row's status (`archived`, or `active`), stamping updated_at where the table has it. */
export function setGraphRowStatus(sql: SqlExecutor, kind: GraphKind, id: string, status: string, now: number): void {
  runSqliteProgram(sql, setGraphRowStatusProgram(kind, id, status, now));
}

/** {@link setGraphRowStatus} as a program (both dialects). */
export function* setGraphRowStatusProgram(kind: GraphKind, id: string, status: string, now: number): Program<void> {
  yield* run(kind === 'claim' ? portable(SET_STATUS.claim, status, id) : portable(SET_STATUS[kind], status, now, id));
}

/** An alias to add to an entity. */
export interface NewEntityAlias {
  entityId: string;
  agentId: string;
  alias: string;
  now: number;
}

/** Adds an alias to an entity (an alias it already has is ignored). */
export function addEntityAlias(sql: SqlExecutor, alias: NewEntityAlias): void {
  runSqliteProgram(sql, addEntityAliasProgram(alias));
}

/** {@link addEntityAlias} as a program (both dialects). */
export function* addEntityAliasProgram(alias: NewEntityAlias): Program<void> {
  const params = [alias.entityId, alias.agentId, alias.alias, canonicalEntityName(alias.alias), alias.now];
  yield* run(
    perDialect(
      raw(
        'INSERT OR IGNORE INTO entity_aliases (entity_id, agent_id, alias, canonical_alias, created_at) VALUES (?, ?, ?, ?, ?)',
        ...params,
      ),
      raw(
        'INSERT INTO entity_aliases (entity_id, agent_id, alias, canonical_alias, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
        ...params,
      ),
    ),
  );
}

/** Renames an entity (its canonical name follows). */
export function renameEntity(sql: SqlExecutor, entityId: string, name: string, now: number): void {
  runSqliteProgram(sql, renameEntityProgram(entityId, name, now));
}

/** {@link renameEntity} as a program (both dialects). */
export function* renameEntityProgram(entityId: string, name: string, now: number): Program<void> {
  yield* run(
    queryBuilder
      .updateTable('entities')
      .set({ name, canonical_name: canonicalEntityName(name), updated_at: now })
      .where('id', '=', entityId),
  );
}

/** Renames an aspect (its canonical name follows). */
export function renameAspect(sql: SqlExecutor, aspectId: string, name: string, now: number): void {
  runSqliteProgram(sql, renameAspectProgram(aspectId, name, now));
}

/** {@link renameAspect} as a program (both dialects). */
export function* renameAspectProgram(aspectId: string, name: string, now: number): Program<void> {
  yield* run(
    queryBuilder
      .updateTable('entity_aspects')
      .set({ name, canonical_name: canonicalEntityName(name), updated_at: now })
      .where('id', '=', aspectId),
  );
}

/** An entity folded into another. */
export interface EntityMerge {
  agentId: string;
  fromId: string;
  toId: string;
  now: number;
}

/**
 * Folds entity `fromId` into `toId`: aspects both have (same name) merge their claims into the
 * target's aspect, the rest of the source's aspects, claims, mentions, links and aliases move over
 * (a link that would join the target to itself is archived), the source's name becomes an alias of
 * the target (recorded in `agentId`'s scope), the target's mention count is recounted, and the
 * source is archived.
 */
export function mergeEntities(sql: SqlExecutor, merge: EntityMerge): void {
  runSqliteProgram(sql, mergeEntitiesProgram(merge));
}

/** {@link mergeEntities} as a program (both dialects). */
export function* mergeEntitiesProgram(merge: EntityMerge): Program<void> {
  const { agentId, fromId: from, toId: to, now } = merge;
  const source = yield* get<{ name: string }>(portable('SELECT name FROM entities WHERE id = ?', from));
  const shared = yield* all<{ fromAspect: string; toAspect: string }>(
    portable(
      `SELECT s.id AS "fromAspect", t.id AS "toAspect" FROM entity_aspects AS s
       JOIN entity_aspects AS t ON t.entity_id = ? AND t.canonical_name = s.canonical_name AND t.status = 'active'
       WHERE s.entity_id = ? AND s.status = 'active'`,
      to,
      from,
    ),
  );
  for (const { fromAspect, toAspect } of shared) {
    yield* run(portable('UPDATE entity_attributes SET aspect_id = ? WHERE aspect_id = ?', toAspect, fromAspect));
    yield* setGraphRowStatusProgram('aspect', fromAspect, 'archived', now);
  }
  yield* run(
    portable(
      "UPDATE entity_aspects SET entity_id = ?, updated_at = ? WHERE entity_id = ? AND status = 'active'",
      to,
      now,
      from,
    ),
  );
  yield* run(portable('UPDATE entity_attributes SET entity_id = ? WHERE entity_id = ?', to, from));
  yield* run(
    perDialect(
      raw(
        `INSERT OR IGNORE INTO memory_entity_mentions (memory_id, entity_id, agent_id, mention_text, confidence, created_at)
         SELECT memory_id, ?, agent_id, mention_text, confidence, created_at FROM memory_entity_mentions WHERE entity_id = ?`,
        to,
        from,
      ),
      raw(
        `INSERT INTO memory_entity_mentions (memory_id, entity_id, agent_id, mention_text, confidence, created_at)
         SELECT memory_id, $1, agent_id, mention_text, confidence, created_at FROM memory_entity_mentions WHERE entity_id = $2
         ON CONFLICT DO NOTHING`,
        to,
        from,
      ),
    ),
  );
  yield* run(portable('DELETE FROM memory_entity_mentions WHERE entity_id = ?', from));
  yield* run(
    portable(
      'UPDATE entity_dependencies SET source_entity_id = ?, updated_at = ? WHERE source_entity_id = ?',
      to,
      now,
      from,
    ),
  );
  yield* run(
    portable(
      'UPDATE entity_dependencies SET target_entity_id = ?, updated_at = ? WHERE target_entity_id = ?',
      to,
      now,
      from,
    ),
  );
  yield* run(
    portable(
      "UPDATE entity_dependencies SET status = 'archived' WHERE source_entity_id = ? AND target_entity_id = ?",
      to,
      to,
    ),
  );
  // An alias the target already has stays with the source (UPDATE OR IGNORE skips the clash; on
  // PostgreSQL the same rows are left out by the NOT EXISTS).
  yield* run(
    perDialect(
      raw('UPDATE OR IGNORE entity_aliases SET entity_id = ? WHERE entity_id = ?', to, from),
      raw(
        `UPDATE entity_aliases AS a SET entity_id = $1 WHERE a.entity_id = $2
           AND NOT EXISTS (SELECT 1 FROM entity_aliases AS b WHERE b.entity_id = $1 AND b.canonical_alias = a.canonical_alias)`,
        to,
        from,
      ),
    ),
  );
  if (source) yield* addEntityAliasProgram({ entityId: to, agentId, alias: source.name, now });
  yield* run(
    portable(
      'UPDATE entities SET mentions = (SELECT count(*) FROM memory_entity_mentions WHERE entity_id = ?), updated_at = ? WHERE id = ?',
      to,
      now,
      to,
    ),
  );
  yield* setGraphRowStatusProgram('entity', from, 'archived', now);
}

/** Moves every claim of aspect `fromId` to aspect `toId` (and its entity), then archives `fromId`. */
export function mergeAspects(sql: SqlExecutor, merge: { fromId: string; toId: string; now: number }): void {
  runSqliteProgram(sql, mergeAspectsProgram(merge));
}

/** {@link mergeAspects} as a program (both dialects). */
export function* mergeAspectsProgram(merge: { fromId: string; toId: string; now: number }): Program<void> {
  yield* run(
    portable(
      'UPDATE entity_attributes SET aspect_id = ?, entity_id = (SELECT entity_id FROM entity_aspects WHERE id = ?) WHERE aspect_id = ?',
      merge.toId,
      merge.toId,
      merge.fromId,
    ),
  );
  yield* setGraphRowStatusProgram('aspect', merge.fromId, 'archived', merge.now);
}

/** A claim replaced by another. */
export interface ClaimSupersession {
  oldId: string;
  newId: string;
  newValidFrom: number | null;
  now: number;
}

/**
 * Marks a claim superseded by another: record time moves on, nothing is deleted. When the new claim
 * says when it became true (`newValidFrom`), the old one's event time ends there unless it already ended.
 */
export function supersedeClaim(sql: SqlExecutor, change: ClaimSupersession): void {
  runSqliteProgram(sql, supersedeClaimProgram(change));
}

/** {@link supersedeClaim} as a program (both dialects). */
export function* supersedeClaimProgram(change: ClaimSupersession): Program<void> {
  yield* run(
    portable(
      "UPDATE entity_attributes SET status = 'superseded', superseded_by = ?, superseded_at = ?, valid_until = coalesce(valid_until, ?) WHERE id = ?",
      change.newId,
      change.now,
      change.newValidFrom,
      change.oldId,
    ),
  );
}

/** A link's fields to change (null keeps the value). */
export interface DependencyPatch {
  type: string | null;
  strength: number | null;
  reason: string | null;
}

/** Updates a link's type, strength or reason (a null field keeps its value). */
export function updateDependency(sql: SqlExecutor, linkId: string, patch: DependencyPatch, now: number): void {
  runSqliteProgram(sql, updateDependencyProgram(linkId, patch, now));
}

/** {@link updateDependency} as a program (both dialects). */
export function* updateDependencyProgram(linkId: string, patch: DependencyPatch, now: number): Program<void> {
  yield* run(
    portable(
      'UPDATE entity_dependencies SET dependency_type = coalesce(?, dependency_type), strength = coalesce(?, strength), reason = coalesce(?, reason), updated_at = ? WHERE id = ?',
      patch.type,
      patch.strength,
      patch.reason,
      now,
      linkId,
    ),
  );
}
