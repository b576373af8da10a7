import { contentHash, normalizeForHash, normalizeForStorage } from '@memory/core';
import {
  canonicalEntityName,
  findLiveMemoryIdByHash,
  findMemory,
  insertAspect,
  insertClaim,
  insertDependency,
  insertEntity,
  insertHistory,
  insertMemory,
  raw,
  type SqlExecutor,
  updateMemory,
} from '@memory/store';
import { parseSourceRef } from './evidence.js';
import type { DreamingOperation } from './operations.js';

/** Who is writing, for history and provenance. */
export interface WriteContext {
  readonly agentId: string;
  readonly passId: string | null;
  readonly actor: { readonly id: string; readonly type: 'operator' | 'agent' | 'engine' };
  readonly now: number;
  readonly nextId: () => string;
}

/** What one applied operation touched. */
export interface WriteOutcome {
  readonly targetType: 'entity' | 'aspect' | 'claim' | 'link' | 'memory' | 'attention';
  readonly targetId: string;
  /** remember_memory of content the agent already holds: the existing memory, nothing written. */
  readonly deduped?: boolean;
  /** The target's row before this operation changed it (kept with the provenance). */
  readonly previous?: Readonly<Record<string, unknown>>;
}

const ROW_OF: Record<'entity' | 'aspect' | 'claim' | 'link', string> = {
  entity: 'SELECT * FROM entities WHERE id = ?',
  aspect: 'SELECT * FROM entity_aspects WHERE id = ?',
  claim: 'SELECT * FROM entity_attributes WHERE id = ?',
  link: 'SELECT * FROM entity_dependencies WHERE id = ?',
};

/** The current row of a graph target, to archive with the provenance before it changes. */
function before(
  sql: SqlExecutor,
  kind: keyof typeof ROW_OF,
  id: string,
): Readonly<Record<string, unknown>> | undefined {
  return sql.get<Record<string, unknown>>(raw(ROW_OF[kind], id));
}

function setStatus(sql: SqlExecutor, table: string, id: string, status: string, now: number): void {
  const stamp = table === 'entity_attributes' ? '' : ', updated_at = ?';
  sql.run(raw(`UPDATE ${table} SET status = ?${stamp} WHERE id = ?`, ...(stamp ? [status, now, id] : [status, id])));
}

function addAlias(sql: SqlExecutor, ctx: WriteContext, entityId: string, alias: string): void {
  sql.run(
    raw(
      'INSERT OR IGNORE INTO entity_aliases (entity_id, agent_id, alias, canonical_alias, created_at) VALUES (?, ?, ?, ?, ?)',
      entityId,
      ctx.agentId,
      alias,
      canonicalEntityName(alias),
      ctx.now,
    ),
  );
}

/** Copies a memory row to the cold table before it changes (lossless, keyed by the history event). */
function archiveToCold(sql: SqlExecutor, ctx: WriteContext, memoryId: string, historyId: string, reason: string): void {
  const row = findMemory(sql, ctx.agentId, memoryId, { includeDeleted: true });
  if (row)
    sql.run(
      raw(
        'INSERT INTO memories_cold (id, agent_id, row_json, reason, archived_at) VALUES (?, ?, ?, ?, ?)',
        historyId,
        ctx.agentId,
        JSON.stringify(row),
        reason,
        ctx.now,
      ),
    );
}

function history(
  sql: SqlExecutor,
  ctx: WriteContext,
  id: string,
  memoryId: string,
  event: 'created' | 'updated' | 'deleted',
  oldContent: string | null,
  newContent: string | null,
  op: DreamingOperation,
): void {
  insertHistory(sql, {
    id,
    memory_id: memoryId,
    agent_id: ctx.agentId,
    event,
    old_content: oldContent,
    new_content: newContent,
    changed_by: ctx.actor.id,
    actor_type: ctx.actor.type,
    reason: op.reason ?? `dreaming ${op.operation}`,
    metadata: JSON.stringify({
      dreaming: { passId: ctx.passId, operation: op.operation, evidence: op.evidence ?? [] },
    }),
    session_id: null,
    request_id: ctx.passId,
    created_at: ctx.now,
  });
}

function insertNewClaim(
  sql: SqlExecutor,
  ctx: WriteContext,
  op: DreamingOperation,
  base: { entityId: string; aspectId: string; claimKey: string; kind: 'attribute' | 'constraint' },
  fields: {
    content: string;
    importance?: number | undefined;
    validFrom?: number | undefined;
    validUntil?: number | undefined;
    occurredAt?: number | undefined;
    timePrecision?: string | undefined;
  },
): string {
  const id = ctx.nextId();
  // A claim that quotes a memory points at it, so recall's graph traversal can reach that memory.
  const sourceMemory = (op.evidence ?? []).map((c) => parseSourceRef(c.sourceRef)).find((r) => r?.kind === 'memory');
  insertClaim(sql, {
    id,
    agentId: ctx.agentId,
    ...(sourceMemory ? { sourceMemoryId: sourceMemory.id } : {}),
    entityId: base.entityId,
    aspectId: base.aspectId,
    claimKey: base.claimKey,
    kind: base.kind,
    content: fields.content,
    ...(fields.importance !== undefined ? { importance: fields.importance } : {}),
    ...(fields.validFrom !== undefined ? { validFrom: fields.validFrom } : {}),
    ...(fields.validUntil !== undefined ? { validUntil: fields.validUntil } : {}),
    evidence: op.evidence ?? [],
    now: ctx.now,
  });
  sql.run(
    raw(
      'UPDATE entity_attributes SET confidence = ?, occurred_at = ?, time_precision = ? WHERE id = ?',
      op.confidence ?? 1,
      fields.occurredAt ?? null,
      fields.timePrecision ?? null,
      id,
    ),
  );
  return id;
}

/**
 * Marks a claim superseded by another: record time moves on, nothing is deleted. When the new claim
 * says when it became true, the old one's event time ends there (unless it already ended).
 */
function supersede(
  sql: SqlExecutor,
  ctx: WriteContext,
  oldId: string,
  newId: string,
  newValidFrom: number | undefined,
): void {
  sql.run(
    raw(
      "UPDATE entity_attributes SET status = 'superseded', superseded_by = ?, superseded_at = ?, valid_until = coalesce(valid_until, ?) WHERE id = ?",
      newId,
      ctx.now,
      newValidFrom ?? null,
      oldId,
    ),
  );
}

/**
 * Writes one decided operation. Runs inside the caller's savepoint: a throw undoes just this
 * operation. Targets were checked by the decision step; constraint violations from concurrent
 * changes surface as throws.
 */
export function writeOperation(sql: SqlExecutor, ctx: WriteContext, op: DreamingOperation): WriteOutcome {
  switch (op.operation) {
    case 'create_entity': {
      const id = ctx.nextId();
      insertEntity(sql, {
        id,
        agentId: ctx.agentId,
        name: op.payload.name,
        ...(op.payload.entityType ? { entityType: op.payload.entityType } : {}),
        aliases: op.payload.aliases ?? [],
        now: ctx.now,
      });
      if (op.payload.description)
        sql.run(raw('UPDATE entities SET description = ? WHERE id = ?', op.payload.description, id));
      return { targetType: 'entity', targetId: id };
    }
    case 'rename_entity': {
      const previous = before(sql, 'entity', op.payload.entityId);
      const old = previous as { name: string } | undefined;
      sql.run(
        raw(
          'UPDATE entities SET name = ?, canonical_name = ?, updated_at = ? WHERE id = ?',
          op.payload.name,
          canonicalEntityName(op.payload.name),
          ctx.now,
          op.payload.entityId,
        ),
      );
      if (old) addAlias(sql, ctx, op.payload.entityId, old.name); // the old name still resolves
      return { targetType: 'entity', targetId: op.payload.entityId, ...(previous ? { previous } : {}) };
    }
    case 'archive_entity': {
      const previous = before(sql, 'entity', op.payload.entityId);
      setStatus(sql, 'entities', op.payload.entityId, 'archived', ctx.now);
      return { targetType: 'entity', targetId: op.payload.entityId, ...(previous ? { previous } : {}) };
    }
    case 'merge_entities': {
      const { sourceEntityId: from, targetEntityId: to } = op.payload;
      const source = sql.get<{ name: string }>(raw('SELECT name FROM entities WHERE id = ?', from));
      // Aspects both entities have (same name): fold the source's claims into the target's aspect.
      const shared = sql.all<{ fromAspect: string; toAspect: string }>(
        raw(
          `SELECT s.id AS fromAspect, t.id AS toAspect FROM entity_aspects AS s
           JOIN entity_aspects AS t ON t.entity_id = ? AND t.canonical_name = s.canonical_name AND t.status = 'active'
           WHERE s.entity_id = ? AND s.status = 'active'`,
          to,
          from,
        ),
      );
      for (const { fromAspect, toAspect } of shared) {
        sql.run(raw('UPDATE entity_attributes SET aspect_id = ? WHERE aspect_id = ?', toAspect, fromAspect));
        setStatus(sql, 'entity_aspects', fromAspect, 'archived', ctx.now);
      }
      sql.run(
        raw(
          "UPDATE entity_aspects SET entity_id = ?, updated_at = ? WHERE entity_id = ? AND status = 'active'",
          to,
          ctx.now,
          from,
        ),
      );
      sql.run(raw('UPDATE entity_attributes SET entity_id = ? WHERE entity_id = ?', to, from));
      sql.run(
        raw(
          'INSERT OR IGNORE INTO memory_entity_mentions (memory_id, entity_id, agent_id, mention_text, confidence, created_at) SELECT memory_id, ?, agent_id, mention_text, confidence, created_at FROM memory_entity_mentions WHERE entity_id = ?',
          to,
          from,
        ),
      );
      sql.run(raw('DELETE FROM memory_entity_mentions WHERE entity_id = ?', from));
      sql.run(
        raw(
          'UPDATE entity_dependencies SET source_entity_id = ?, updated_at = ? WHERE source_entity_id = ?',
          to,
          ctx.now,
          from,
        ),
      );
      sql.run(
        raw(
          'UPDATE entity_dependencies SET target_entity_id = ?, updated_at = ? WHERE target_entity_id = ?',
          to,
          ctx.now,
          from,
        ),
      );
      sql.run(
        raw(
          "UPDATE entity_dependencies SET status = 'archived' WHERE source_entity_id = ? AND target_entity_id = ?",
          to,
          to,
        ),
      );
      sql.run(raw('UPDATE OR IGNORE entity_aliases SET entity_id = ? WHERE entity_id = ?', to, from));
      if (source) addAlias(sql, ctx, to, source.name);
      sql.run(
        raw(
          'UPDATE entities SET mentions = (SELECT count(*) FROM memory_entity_mentions WHERE entity_id = ?), updated_at = ? WHERE id = ?',
          to,
          ctx.now,
          to,
        ),
      );
      setStatus(sql, 'entities', from, 'archived', ctx.now);
      return { targetType: 'entity', targetId: to };
    }
    case 'create_aspect': {
      const id = ctx.nextId();
      insertAspect(sql, {
        id,
        agentId: ctx.agentId,
        entityId: op.payload.entityId,
        name: op.payload.name,
        now: ctx.now,
      });
      return { targetType: 'aspect', targetId: id };
    }
    case 'rename_aspect': {
      const previous = before(sql, 'aspect', op.payload.aspectId);
      sql.run(
        raw(
          'UPDATE entity_aspects SET name = ?, canonical_name = ?, updated_at = ? WHERE id = ?',
          op.payload.name,
          canonicalEntityName(op.payload.name),
          ctx.now,
          op.payload.aspectId,
        ),
      );
      return { targetType: 'aspect', targetId: op.payload.aspectId, ...(previous ? { previous } : {}) };
    }
    case 'archive_aspect': {
      const previous = before(sql, 'aspect', op.payload.aspectId);
      setStatus(sql, 'entity_aspects', op.payload.aspectId, 'archived', ctx.now);
      return { targetType: 'aspect', targetId: op.payload.aspectId, ...(previous ? { previous } : {}) };
    }
    case 'merge_aspects':
      sql.run(
        raw(
          'UPDATE entity_attributes SET aspect_id = ?, entity_id = (SELECT entity_id FROM entity_aspects WHERE id = ?) WHERE aspect_id = ?',
          op.payload.targetAspectId,
          op.payload.targetAspectId,
          op.payload.sourceAspectId,
        ),
      );
      setStatus(sql, 'entity_aspects', op.payload.sourceAspectId, 'archived', ctx.now);
      return { targetType: 'aspect', targetId: op.payload.targetAspectId };
    case 'add_claim':
    case 'set_claim': {
      const aspect = sql.get<{ entity_id: string }>(
        raw('SELECT entity_id FROM entity_aspects WHERE id = ?', op.payload.aspectId),
      );
      if (!aspect) throw new Error(`aspect ${op.payload.aspectId} disappeared`);
      const current =
        op.operation === 'set_claim'
          ? sql.get<{ id: string }>(
              raw(
                "SELECT id FROM entity_attributes WHERE aspect_id = ? AND claim_key = ? AND status = 'active' ORDER BY created_at DESC LIMIT 1",
                op.payload.aspectId,
                op.payload.claimKey,
              ),
            )
          : undefined;
      const id = insertNewClaim(
        sql,
        ctx,
        op,
        {
          entityId: aspect.entity_id,
          aspectId: op.payload.aspectId,
          claimKey: op.payload.claimKey,
          kind: op.payload.kind ?? 'attribute',
        },
        op.payload,
      );
      if (current) supersede(sql, ctx, current.id, id, op.payload.validFrom);
      return { targetType: 'claim', targetId: id };
    }
    case 'supersede_claim': {
      const old = sql.get<{
        entity_id: string;
        aspect_id: string;
        claim_key: string;
        kind: 'attribute' | 'constraint';
        importance: number;
      }>(
        raw(
          'SELECT entity_id, aspect_id, claim_key, kind, importance FROM entity_attributes WHERE id = ?',
          op.payload.claimId,
        ),
      );
      if (!old) throw new Error(`claim ${op.payload.claimId} disappeared`);
      const id = insertNewClaim(
        sql,
        ctx,
        op,
        { entityId: old.entity_id, aspectId: old.aspect_id, claimKey: old.claim_key, kind: old.kind },
        { importance: old.importance, ...op.payload },
      );
      supersede(sql, ctx, op.payload.claimId, id, op.payload.validFrom);
      return { targetType: 'claim', targetId: id };
    }
    case 'archive_claim': {
      const previous = before(sql, 'claim', op.payload.claimId);
      setStatus(sql, 'entity_attributes', op.payload.claimId, 'archived', ctx.now);
      return { targetType: 'claim', targetId: op.payload.claimId, ...(previous ? { previous } : {}) };
    }
    case 'create_link': {
      const id = ctx.nextId();
      insertDependency(sql, {
        id,
        agentId: ctx.agentId,
        sourceEntityId: op.payload.sourceEntityId,
        targetEntityId: op.payload.targetEntityId,
        type: op.payload.type,
        ...(op.payload.strength !== undefined ? { strength: op.payload.strength } : {}),
        ...(op.payload.reason ? { reason: op.payload.reason } : {}),
        now: ctx.now,
      });
      if (op.confidence !== undefined)
        sql.run(raw('UPDATE entity_dependencies SET confidence = ? WHERE id = ?', op.confidence, id));
      return { targetType: 'link', targetId: id };
    }
    case 'update_link': {
      const previous = before(sql, 'link', op.payload.linkId);
      sql.run(
        raw(
          'UPDATE entity_dependencies SET dependency_type = coalesce(?, dependency_type), strength = coalesce(?, strength), reason = coalesce(?, reason), updated_at = ? WHERE id = ?',
          op.payload.type ?? null,
          op.payload.strength ?? null,
          op.payload.reason ?? null,
          ctx.now,
          op.payload.linkId,
        ),
      );
      return { targetType: 'link', targetId: op.payload.linkId, ...(previous ? { previous } : {}) };
    }
    case 'archive_link': {
      const previous = before(sql, 'link', op.payload.linkId);
      setStatus(sql, 'entity_dependencies', op.payload.linkId, 'archived', ctx.now);
      return { targetType: 'link', targetId: op.payload.linkId, ...(previous ? { previous } : {}) };
    }
    case 'remember_memory': {
      const content = normalizeForStorage(op.payload.content);
      const hash = contentHash(content);
      const existing = findLiveMemoryIdByHash(sql, ctx.agentId, hash);
      if (existing) return { targetType: 'memory', targetId: existing, deduped: true };
      const id = ctx.nextId();
      insertMemory(sql, {
        id,
        agent_id: ctx.agentId,
        type: op.payload.type,
        content,
        normalized_content: normalizeForHash(content),
        content_hash: hash,
        confidence: op.confidence ?? 1,
        importance: op.payload.importance ?? 0.5,
        source_type: 'dreaming',
        source_id: ctx.passId,
        tags: JSON.stringify(op.payload.tags ?? []),
        linked_entities: '[]',
        pinned: 0,
        created_at: ctx.now,
        updated_at: ctx.now,
      });
      history(sql, ctx, ctx.nextId(), id, 'created', null, content, op);
      return { targetType: 'memory', targetId: id };
    }
    case 'supersede_memory': {
      const row = findMemory(sql, ctx.agentId, op.payload.memoryId);
      if (!row) throw new Error(`memory ${op.payload.memoryId} disappeared`);
      const content = normalizeForStorage(op.payload.content);
      const hash = contentHash(content);
      const clash = findLiveMemoryIdByHash(sql, ctx.agentId, hash);
      if (clash && clash !== row.id) throw new Error(`memory ${clash} already holds this content`);
      const historyId = ctx.nextId();
      archiveToCold(sql, ctx, row.id, historyId, 'dreaming supersede');
      updateMemory(sql, ctx.agentId, row.id, {
        content,
        normalized_content: normalizeForHash(content),
        content_hash: hash,
        updated_at: ctx.now,
        update_count: row.update_count + 1,
      });
      history(sql, ctx, historyId, row.id, 'updated', row.content, content, op);
      return { targetType: 'memory', targetId: row.id };
    }
    case 'archive_memory': {
      const row = findMemory(sql, ctx.agentId, op.payload.memoryId);
      if (!row) throw new Error(`memory ${op.payload.memoryId} disappeared`);
      const historyId = ctx.nextId();
      archiveToCold(sql, ctx, row.id, historyId, 'dreaming archive');
      updateMemory(sql, ctx.agentId, row.id, { is_deleted: 1, deleted_at: ctx.now, updated_at: ctx.now });
      history(sql, ctx, historyId, row.id, 'deleted', row.content, null, op);
      return { targetType: 'memory', targetId: row.id };
    }
    case 'flag': {
      const id = ctx.nextId();
      sql.run(
        raw(
          `INSERT INTO dreaming_attention (id, agent_id, kind, subject_ref, priority, details, created_by, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT DO NOTHING`,
          id,
          ctx.agentId,
          op.payload.kind,
          op.payload.subjectRef,
          op.payload.priority ?? 50,
          op.payload.details,
          ctx.actor.id,
          ctx.now,
        ),
      );
      const open = sql.get<{ id: string }>(
        raw(
          'SELECT id FROM dreaming_attention WHERE agent_id = ? AND kind = ? AND subject_ref = ? AND resolved_at IS NULL',
          ctx.agentId,
          op.payload.kind,
          op.payload.subjectRef,
        ),
      );
      return { targetType: 'attention', targetId: open?.id ?? id };
    }
    case 'decline_attention':
      sql.run(
        raw(
          "UPDATE dreaming_attention SET resolved_at = ?, resolved_by_pass_id = ?, resolution = 'declined' WHERE id = ? AND resolved_at IS NULL",
          ctx.now,
          ctx.passId,
          op.payload.attentionId,
        ),
      );
      return { targetType: 'attention', targetId: op.payload.attentionId };
    default: {
      const unhandled: never = op;
      throw new Error(`no writer for ${String((unhandled as { operation: unknown }).operation)}`);
    }
  }
}
