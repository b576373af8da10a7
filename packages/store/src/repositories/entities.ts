import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import { type Program, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

/** The lookup form of an entity name or alias: NFC, lower-cased, whitespace collapsed. */
export function canonicalEntityName(name: string): string {
  return name.normalize('NFC').replace(/\s+/gu, ' ').trim().toLowerCase();
}

/** The fields of {@link insertEntity}. */
export type NewEntity = {
  id: string;
  agentId: string;
  name: string;
  entityType?: string;
  description?: string;
  aliases?: readonly string[];
  now: number;
};

/**
 * Inserts an entity (and its aliases). Only audited writers call this: the Dreaming apply seam, and
 * tests. Inline linking at remember time never creates entities.
 */
export function insertEntity(sql: SqlExecutor, entity: NewEntity): void {
  runSqliteProgram(sql, insertEntityProgram(entity));
}

/** {@link insertEntity} as a program (both dialects). */
export function* insertEntityProgram(entity: NewEntity): Program<void> {
  yield* run(
    queryBuilder.insertInto('entities').values({
      id: entity.id,
      agent_id: entity.agentId,
      name: entity.name,
      canonical_name: canonicalEntityName(entity.name),
      entity_type: entity.entityType ?? 'unknown',
      description: entity.description ?? null,
      mentions: 0,
      status: 'active',
      pinned: 0,
      community_id: null,
      created_at: entity.now,
      updated_at: entity.now,
    }),
  );
  for (const alias of entity.aliases ?? []) {
    yield* run(
      queryBuilder
        .insertInto('entity_aliases')
        .values({
          entity_id: entity.id,
          agent_id: entity.agentId,
          alias,
          canonical_alias: canonicalEntityName(alias),
          created_at: entity.now,
        })
        .onConflict((oc) => oc.doNothing()),
    );
  }
}

/** The fields of {@link insertAspect}. */
export type NewAspect = { id: string; agentId: string; entityId: string; name: string; weight?: number; now: number };

/** Inserts an active aspect of an entity. Audited writers only (the Dreaming seam) and tests. */
export function insertAspect(sql: SqlExecutor, aspect: NewAspect): void {
  runSqliteProgram(sql, insertAspectProgram(aspect));
}

/** {@link insertAspect} as a program (both dialects). */
export function* insertAspectProgram(aspect: NewAspect): Program<void> {
  yield* run(
    queryBuilder.insertInto('entity_aspects').values({
      id: aspect.id,
      agent_id: aspect.agentId,
      entity_id: aspect.entityId,
      name: aspect.name,
      canonical_name: canonicalEntityName(aspect.name),
      weight: aspect.weight ?? 1,
      status: 'active',
      created_at: aspect.now,
      updated_at: aspect.now,
    }),
  );
}

/** The fields of {@link insertClaim}. */
export type NewClaim = {
  id: string;
  agentId: string;
  entityId: string;
  aspectId: string;
  claimKey: string;
  content: string;
  sourceMemoryId?: string;
  importance?: number;
  kind?: 'attribute' | 'constraint';
  /** @default 1 */
  confidence?: number;
  validFrom?: number;
  validUntil?: number;
  /** When the event happened, and how precisely that is known (instant | day | month | year | approximate). */
  occurredAt?: number;
  timePrecision?: string;
  evidence?: ReadonlyArray<{ sourceRef: string; quote: string }>;
  now: number;
};

/** Inserts an active claim on an aspect. Audited writers only (the Dreaming seam) and tests. */
export function insertClaim(sql: SqlExecutor, claim: NewClaim): void {
  runSqliteProgram(sql, insertClaimProgram(claim));
}

/** {@link insertClaim} as a program (both dialects). */
export function* insertClaimProgram(claim: NewClaim): Program<void> {
  yield* run(
    queryBuilder.insertInto('entity_attributes').values({
      id: claim.id,
      agent_id: claim.agentId,
      aspect_id: claim.aspectId,
      entity_id: claim.entityId,
      claim_key: claim.claimKey,
      kind: claim.kind ?? 'attribute',
      content: claim.content,
      confidence: claim.confidence ?? 1,
      importance: claim.importance ?? 0.5,
      status: 'active',
      superseded_by: null,
      source_memory_id: claim.sourceMemoryId ?? null,
      valid_from: claim.validFrom ?? null,
      valid_until: claim.validUntil ?? null,
      evidence_json: JSON.stringify(claim.evidence ?? []),
      created_at: claim.now,
      superseded_at: null,
      occurred_at: claim.occurredAt ?? null,
      time_precision: claim.timePrecision ?? null,
    }),
  );
}

/** The fields of {@link insertDependency}. */
export type NewDependency = {
  id: string;
  agentId: string;
  sourceEntityId: string;
  targetEntityId: string;
  type: string;
  strength?: number;
  /** @default 1 */
  confidence?: number;
  reason?: string;
  now: number;
};

/** Inserts an active dependency link between two entities. Audited writers only and tests. */
export function insertDependency(sql: SqlExecutor, link: NewDependency): void {
  runSqliteProgram(sql, insertDependencyProgram(link));
}

/** {@link insertDependency} as a program (both dialects). */
export function* insertDependencyProgram(link: NewDependency): Program<void> {
  yield* run(
    queryBuilder.insertInto('entity_dependencies').values({
      id: link.id,
      agent_id: link.agentId,
      source_entity_id: link.sourceEntityId,
      target_entity_id: link.targetEntityId,
      dependency_type: link.type,
      strength: link.strength ?? 1,
      confidence: link.confidence ?? 1,
      reason: link.reason ?? null,
      status: 'active',
      created_at: link.now,
      updated_at: link.now,
    }),
  );
}
