import { MemoryError } from '@memory/core';
import { raw, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

// Row images for the Dreaming seam's undo: what a row looked like before and after an operation,
// read and written back by primary key. Graph rows and attention records are restored as rows;
// memories are only read here (their restore goes through the memory writer, which keeps the text index,
// vectors, hints and history consistent).

/** The kinds of rows an operation can write. */
export type RowKind = 'entity' | 'aspect' | 'claim' | 'link' | 'alias' | 'mention' | 'attention' | 'memory';

/** A row by kind and primary key (one value, or two for aliases and mentions). */
export interface RowRef {
  readonly kind: RowKind;
  readonly key: readonly string[];
}

/** A row's columns as the database returns them (JSON-safe: text, numbers and nulls). */
export type RowImage = Readonly<Record<string, unknown>>;

const TABLES: Readonly<Record<RowKind, { readonly table: string; readonly key: readonly string[] }>> = {
  entity: { table: 'entities', key: ['id'] },
  aspect: { table: 'entity_aspects', key: ['id'] },
  claim: { table: 'entity_attributes', key: ['id'] },
  link: { table: 'entity_dependencies', key: ['id'] },
  alias: { table: 'entity_aliases', key: ['entity_id', 'canonical_alias'] },
  mention: { table: 'memory_entity_mentions', key: ['memory_id', 'entity_id'] },
  attention: { table: 'dreaming_attention', key: ['id'] },
  memory: { table: 'memories', key: ['id'] },
};

// A memory's image is what Dreaming changes of it: content and whether it is live.
const MEMORY_IMAGE =
  'SELECT id, agent_id, content, content_hash, is_deleted, deleted_at, pinned FROM memories WHERE id = ?';

function where(kind: RowKind): string {
  return TABLES[kind].key.map((c) => `${c} = ?`).join(' AND ');
}

/** The row's current image, or null when there is no such row. */
export function readRowImage(sql: SqlExecutor, ref: RowRef): RowImage | null {
  return runSqliteProgram(sql, readRowImageProgram(ref));
}

/** {@link readRowImage} as a program (both dialects: the tables mirror each other column for column). */
export function* readRowImageProgram(ref: RowRef): Program<RowImage | null> {
  if (ref.key.length !== TABLES[ref.kind].key.length)
    throw new MemoryError('INVALID_INPUT', `a ${ref.kind} key has ${TABLES[ref.kind].key.length} parts`);
  const query =
    ref.kind === 'memory' ? MEMORY_IMAGE : `SELECT * FROM ${TABLES[ref.kind].table} WHERE ${where(ref.kind)}`;
  return (yield* get<Record<string, unknown>>(portable(query, ...ref.key))) ?? null;
}

/** The columns a table has now (images may come from before a migration added one). */
function* columnsOf(table: string): Program<Set<string>> {
  const rows = yield* all<{ name: string }>(
    perDialect(
      raw('SELECT name FROM pragma_table_info(?)', table),
      raw(
        'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1',
        table,
      ),
    ),
  );
  return new Set(rows.map((r) => r.name));
}

/**
 * Puts a graph row or attention record back to `image`: deletes it when the image is null, updates
 * it when it exists, inserts it otherwise. Only columns the table has are written. Memories are
 * refused (the memory writer restores them).
 */
export function restoreRowImage(sql: SqlExecutor, ref: RowRef, image: RowImage | null): void {
  runSqliteProgram(sql, restoreRowImageProgram(ref, image));
}

/** {@link restoreRowImage} as a program (both dialects). */
export function* restoreRowImageProgram(ref: RowRef, image: RowImage | null): Program<void> {
  if (ref.kind === 'memory') throw new MemoryError('INVALID_INPUT', 'memories are restored through the memory writer');
  const { table, key } = TABLES[ref.kind];
  if (image === null) {
    yield* run(portable(`DELETE FROM ${table} WHERE ${where(ref.kind)}`, ...ref.key));
    return;
  }
  const known = yield* columnsOf(table);
  const columns = Object.keys(image).filter((c) => known.has(c));
  const values = columns.map((c) => image[c] ?? null);
  const exists = (yield* readRowImageProgram(ref)) !== null;
  if (exists) {
    const set = columns.filter((c) => !key.includes(c));
    yield* run(
      portable(
        `UPDATE ${table} SET ${set.map((c) => `"${c}" = ?`).join(', ')} WHERE ${where(ref.kind)}`,
        ...set.map((c) => image[c] ?? null),
        ...ref.key,
      ),
    );
  } else {
    yield* run(
      portable(
        `INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        ...values,
      ),
    );
  }
}

const ids = (rows: ReadonlyArray<{ id: string }>, kind: RowKind): RowRef[] => rows.map((r) => ({ kind, key: [r.id] }));

/** The alias rows of an entity. */
export function entityAliasRefs(sql: SqlExecutor, entityId: string): RowRef[] {
  return runSqliteProgram(sql, entityAliasRefsProgram(entityId));
}

/** {@link entityAliasRefs} as a program (both dialects). */
export function* entityAliasRefsProgram(entityId: string): Program<RowRef[]> {
  const rows = yield* all<{ c: string }>(
    portable('SELECT canonical_alias AS c FROM entity_aliases WHERE entity_id = ?', entityId),
  );
  return rows.map((r) => ({ kind: 'alias', key: [entityId, r.c] }));
}

/**
 * Every row folding entity `fromId` into `toId` can write (see `mergeEntities`), including rows it
 * may create: the target's mention of each memory the source is mentioned in, and the target's
 * aliases named like the source's.
 */
export function entityMergeFootprint(
  sql: SqlExecutor,
  fromId: string,
  toId: string,
  canonicalFromName: string,
): RowRef[] {
  return runSqliteProgram(sql, entityMergeFootprintProgram(fromId, toId, canonicalFromName));
}

/** {@link entityMergeFootprint} as a program (both dialects). */
export function* entityMergeFootprintProgram(
  fromId: string,
  toId: string,
  canonicalFromName: string,
): Program<RowRef[]> {
  const refs: RowRef[] = [
    { kind: 'entity', key: [fromId] },
    { kind: 'entity', key: [toId] },
  ];
  refs.push(
    ...ids(yield* all<{ id: string }>(portable('SELECT id FROM entity_aspects WHERE entity_id = ?', fromId)), 'aspect'),
  );
  refs.push(
    ...ids(
      yield* all<{ id: string }>(
        portable(
          'SELECT id FROM entity_attributes WHERE entity_id = ? UNION SELECT c.id FROM entity_attributes AS c JOIN entity_aspects AS a ON a.id = c.aspect_id WHERE a.entity_id = ?',
          fromId,
          fromId,
        ),
      ),
      'claim',
    ),
  );
  for (const r of yield* all<{ m: string }>(
    portable('SELECT memory_id AS m FROM memory_entity_mentions WHERE entity_id = ?', fromId),
  )) {
    refs.push({ kind: 'mention', key: [r.m, fromId] }, { kind: 'mention', key: [r.m, toId] });
  }
  refs.push(
    ...ids(
      yield* all<{ id: string }>(
        portable(
          'SELECT id FROM entity_dependencies WHERE source_entity_id = ? OR target_entity_id = ?',
          fromId,
          fromId,
        ),
      ),
      'link',
    ),
  );
  const aliases = yield* entityAliasRefsProgram(fromId);
  refs.push(...aliases, ...aliases.map((a) => ({ kind: 'alias' as const, key: [toId, a.key[1] ?? ''] })));
  refs.push({ kind: 'alias', key: [toId, canonicalFromName] });
  return refs;
}

/** Every row folding aspect `fromId` into another can write besides the target aspect: it and its claims. */
export function aspectMergeFootprint(sql: SqlExecutor, fromId: string): RowRef[] {
  return runSqliteProgram(sql, aspectMergeFootprintProgram(fromId));
}

/** {@link aspectMergeFootprint} as a program (both dialects). */
export function* aspectMergeFootprintProgram(fromId: string): Program<RowRef[]> {
  const claims = yield* all<{ id: string }>(portable('SELECT id FROM entity_attributes WHERE aspect_id = ?', fromId));
  return [{ kind: 'aspect', key: [fromId] }, ...ids(claims, 'claim')];
}

/** The agent's open attention records about `subjectRef` (any kind). */
export function openAttentionAbout(sql: SqlExecutor, agentId: string, subjectRef: string): RowRef[] {
  return runSqliteProgram(sql, openAttentionAboutProgram(agentId, subjectRef));
}

/** {@link openAttentionAbout} as a program (both dialects). */
export function* openAttentionAboutProgram(agentId: string, subjectRef: string): Program<RowRef[]> {
  const rows = yield* all<{ id: string }>(
    portable(
      'SELECT id FROM dreaming_attention WHERE agent_id = ? AND subject_ref = ? AND resolved_at IS NULL',
      agentId,
      subjectRef,
    ),
  );
  return ids(rows, 'attention');
}

/**
 * Graph rows that hang off an entity or aspect (aspects, claims, links): what deleting it would
 * take with it. Aliases and mentions are left out (they go with their entity by design).
 */
export function dependentGraphRows(sql: SqlExecutor, ref: RowRef): RowRef[] {
  return runSqliteProgram(sql, dependentGraphRowsProgram(ref));
}

/** {@link dependentGraphRows} as a program (both dialects). */
export function* dependentGraphRowsProgram(ref: RowRef): Program<RowRef[]> {
  const id = ref.key[0] ?? '';
  if (ref.kind === 'entity') {
    return [
      ...ids(yield* all<{ id: string }>(portable('SELECT id FROM entity_aspects WHERE entity_id = ?', id)), 'aspect'),
      ...ids(yield* all<{ id: string }>(portable('SELECT id FROM entity_attributes WHERE entity_id = ?', id)), 'claim'),
      ...ids(
        yield* all<{ id: string }>(
          portable('SELECT id FROM entity_dependencies WHERE source_entity_id = ? OR target_entity_id = ?', id, id),
        ),
        'link',
      ),
    ];
  }
  if (ref.kind === 'aspect') {
    return ids(
      yield* all<{ id: string }>(portable('SELECT id FROM entity_attributes WHERE aspect_id = ?', id)),
      'claim',
    );
  }
  return [];
}

/** Sets each entity's mention count from its mention rows (the count is derived from them). */
export function recountEntityMentions(sql: SqlExecutor, entityIds: readonly string[]): void {
  runSqliteProgram(sql, recountEntityMentionsProgram(entityIds));
}

/** {@link recountEntityMentions} as a program (both dialects). */
export function* recountEntityMentionsProgram(entityIds: readonly string[]): Program<void> {
  if (entityIds.length === 0) return;
  const json = JSON.stringify(entityIds);
  yield* run(
    perDialect(
      raw(
        `UPDATE entities SET mentions = (SELECT count(*) FROM memory_entity_mentions AS m WHERE m.entity_id = entities.id)
       WHERE id IN (SELECT value FROM json_each(?))`,
        json,
      ),
      raw(
        `UPDATE entities SET mentions = (SELECT count(*) FROM memory_entity_mentions AS m WHERE m.entity_id = entities.id)
       WHERE id IN (SELECT jsonb_array_elements_text($1::jsonb))`,
        json,
      ),
    ),
  );
}
