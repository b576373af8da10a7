import { MemoryError, versionProblem } from '@memory/core';
import {
  type Dialect,
  findScopeRowOwnerProgram,
  insertExportedTranscriptProgram,
  insertScopeMemoryProgram,
  insertScopeNoteProgram,
  insertScopeRowProgram,
  type Program,
  prepareContent,
  replaceNoteLinksProgram,
  type ScopeColumns,
  type ScopeRow,
} from '@memory/store';
import { z } from 'zod';

/** The `format` of an `engine.export` header line. */
export const EXPORT_FORMAT = 'memory-export';
/** The export format version this library writes and reads. */
export const EXPORT_VERSION = 1;

const scalar = z.union([z.string(), z.number(), z.null()]);
const row = z.record(z.string(), scalar);
const rows = z.array(row).max(100_000);
// A category's links and events: as many as its record's size allows (`imports.maxRecordBytes`).
const manyRows = z.array(row);

// One schema per record kind. Rows are the table's columns as exported (see the store's
// scope-copy); each value must be text, a number or null, and each column must exist (checked on insert).
const exportRecordSchema = z.discriminatedUnion('kind', [
  z.looseObject({ kind: z.literal('header'), format: z.literal(EXPORT_FORMAT), version: z.unknown() }),
  z.looseObject({ kind: z.literal('footer'), records: z.number().int().min(0) }),
  z
    .object({ kind: z.literal('entity'), id: z.string().min(1), aliases: rows, aspects: rows, claims: rows })
    .catchall(scalar),
  z.object({ kind: z.literal('link'), id: z.string().min(1) }).catchall(scalar),
  z
    .object({
      kind: z.literal('memory'),
      id: z.string().min(1),
      content: z.string().min(1),
      history: rows,
      mentions: rows,
    })
    .catchall(scalar),
  z.object({ kind: z.literal('transcript'), session_key: z.string().min(1), turns: rows }).catchall(scalar),
  z
    .object({ kind: z.literal('document'), id: z.string().min(1), content: z.string().nullable(), memories: rows })
    .catchall(scalar),
  z
    .object({
      kind: z.literal('note'),
      id: z.string().min(1),
      title: z.string().min(1),
      content: z.string().min(1),
      linked_entities: z.string(),
      events: rows,
    })
    .catchall(scalar),
  z
    .object({
      kind: z.literal('category'),
      id: z.string().min(1),
      name: z.string(),
      links: manyRows,
      events: manyRows,
    })
    .catchall(scalar),
]);

/** A parsed line of an `engine.export` file. */
export type ExportRecord = z.output<typeof exportRecordSchema>;

export type ParsedExportLine =
  | { readonly ok: true; readonly export: ExportRecord; readonly id: string }
  | { readonly ok: false; readonly reason: 'schema_violation' | 'unsupported_version'; readonly detail: string };

/** True when a parsed JSON line is an `engine.export` record (it has a `kind`), not a signet-export one. */
export function isExportLine(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string';
}

/** Parses and checks one export record. */
export function parseExportRecord(value: unknown): ParsedExportLine {
  const parsed = exportRecordSchema.safeParse(value);
  if (!parsed.success)
    return {
      ok: false,
      reason: 'schema_violation',
      detail: parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; '),
    };
  const record = parsed.data;
  if (record.kind === 'header') {
    const problem = versionProblem(record.version, [EXPORT_VERSION]);
    if (problem) return { ok: false, reason: 'unsupported_version', detail: problem };
  }
  const id =
    record.kind === 'transcript'
      ? record.session_key
      : 'id' in record && typeof record.id === 'string'
        ? record.id
        : record.kind;
  return { ok: true, export: record, id };
}

/** The row columns of a record: everything but its kind and nested lists. */
function ownRow(record: Record<string, unknown>, nested: readonly string[]): ScopeRow {
  const out: ScopeRow = {};
  for (const [key, value] of Object.entries(record)) {
    if (key === 'kind' || nested.includes(key)) continue;
    const check = scalar.safeParse(value);
    if (!check.success) throw new TypeError(`column ${key} must be text, a number or null`);
    out[key] = check.data;
  }
  return out;
}

export type WrittenExport =
  | { readonly outcome: 'imported' | 'duplicate' }
  | { readonly outcome: 'rejected'; readonly reason: 'id_conflict' | 'limit_reached' };

const conflict = { outcome: 'rejected', reason: 'id_conflict' } as const;

/**
 * Writes one export record into the import's scope, inside the caller's savepoint, on either
 * dialect (one program: SQLite runs it synchronously in the import's transaction, PostgreSQL in its
 * SERIALIZABLE write). Ids are kept (so an exported scope moved to another file exports the same
 * records again); a record whose id another scope of the file holds is rejected (`id_conflict`),
 * one already in this scope is a duplicate. What SQLite's triggers derive on insert (the text index
 * of memories, notes and turns; memory counts) is derived on PostgreSQL too: by the store's insert
 * programs there, by a plpgsql trigger for the counts. Memories arrive without vectors: the
 * engine's fill-in job embeds them. `columns` keeps the tables' columns from record to record (one
 * per import run: the schema is read once per table, not once per row).
 */
export function* writeExportRecordProgram(
  dialect: Dialect,
  agentId: string,
  record: ExportRecord,
  writeCategory?: CategoryRecordWriter,
  columns: ScopeColumns = new Map(),
): Program<WrittenExport> {
  const scope = { agent_id: agentId };
  switch (record.kind) {
    case 'header':
    case 'footer':
      return { outcome: 'imported' };
    case 'entity': {
      const owner = yield* findScopeRowOwnerProgram('entities', record.id, agentId);
      if (owner) return owner === 'this-scope' ? { outcome: 'duplicate' } : conflict;
      if (!(yield* insertScopeRowProgram('entities', ownRow(record, ['aliases', 'aspects', 'claims']), scope, columns)))
        return { outcome: 'duplicate' };
      const parent = { ...scope, entity_id: record.id };
      for (const alias of record.aliases) yield* insertScopeRowProgram('entity_aliases', alias, parent, columns);
      for (const aspect of record.aspects) yield* insertScopeRowProgram('entity_aspects', aspect, parent, columns);
      for (const claim of record.claims) yield* insertScopeRowProgram('entity_attributes', claim, parent, columns);
      return { outcome: 'imported' };
    }
    case 'link': {
      const owner = yield* findScopeRowOwnerProgram('entity_dependencies', record.id, agentId);
      if (owner) return owner === 'this-scope' ? { outcome: 'duplicate' } : conflict;
      yield* insertScopeRowProgram('entity_dependencies', ownRow(record, []), scope, columns);
      return { outcome: 'imported' };
    }
    case 'memory': {
      const owner = yield* findScopeRowOwnerProgram('memories', record.id, agentId);
      if (owner) return owner === 'this-scope' ? { outcome: 'duplicate' } : conflict;
      const content = prepareContent(record.content);
      const inserted = yield* insertScopeMemoryProgram(
        dialect,
        agentId,
        ownRow(record, ['history', 'mentions']),
        {
          normalized_content: content.normalized,
          content_hash: content.hash,
          embedding_model: null,
        },
        columns,
      );
      // Not inserted: the same content is live in the scope under another id.
      if (!inserted) return { outcome: 'duplicate' };
      const parent = { ...scope, memory_id: record.id };
      for (const entry of record.history) yield* insertScopeRowProgram('memory_history', entry, parent, columns);
      for (const mention of record.mentions) {
        const entity = typeof mention['entity_id'] === 'string' ? mention['entity_id'] : '';
        if ((yield* findScopeRowOwnerProgram('entities', entity, agentId)) === 'this-scope')
          yield* insertScopeRowProgram('memory_entity_mentions', mention, parent, columns);
      }
      return { outcome: 'imported' };
    }
    case 'transcript': {
      const { kind: _kind, turns, ...session } = record;
      return { outcome: yield* insertExportedTranscriptProgram(dialect, agentId, ownRow(session, []), turns) };
    }
    case 'document': {
      const owner = yield* findScopeRowOwnerProgram('documents', record.id, agentId);
      if (owner) return owner === 'this-scope' ? { outcome: 'duplicate' } : conflict;
      yield* insertScopeRowProgram(
        'documents',
        ownRow(record, ['content', 'memories']),
        { ...scope, raw_content: record.content },
        columns,
      );
      for (const link of record.memories) {
        const memory = typeof link['memory_id'] === 'string' ? link['memory_id'] : '';
        if ((yield* findScopeRowOwnerProgram('memories', memory, agentId)) === 'this-scope')
          yield* insertScopeRowProgram('document_memories', link, { document_id: record.id }, columns);
      }
      return { outcome: 'imported' };
    }
    case 'note': {
      const owner = yield* findScopeRowOwnerProgram('notes', record.id, agentId);
      if (owner) return owner === 'this-scope' ? { outcome: 'duplicate' } : conflict;
      yield* insertScopeNoteProgram(dialect, agentId, ownRow(record, ['events']), columns);
      // The link index is derived from the note's own linked_entities.
      yield* replaceNoteLinksProgram(agentId, record.id, noteLinks(record.linked_entities));
      for (const event of record.events)
        yield* insertScopeRowProgram('note_events', event, { ...scope, note_id: record.id }, columns);
      return { outcome: 'imported' };
    }
    case 'category':
      if (!writeCategory)
        throw new MemoryError('INVALID_INPUT', 'category records are imported through the engine (its registry rules)');
      return yield* writeCategory(agentId, record);
  }
}

/** An export's `category` record: a `registry_categories` row with its `links` and `events` rows. */
export type CategoryRecord = Extract<ExportRecord, { kind: 'category' }>;

/**
 * Writes a `category` record into the import's scope, inside the caller's savepoint (a program for
 * either dialect), by the registry's own rules (names, the per-agent cap, which objects a link may
 * name): the engine supplies it. Throws `INVALID_INPUT` for a record those rules refuse.
 */
export type CategoryRecordWriter = (agentId: string, record: CategoryRecord) => Program<WrittenExport>;

/** A note's `linked_entities` column as link rows (entries without a text type and refId are skipped). */
function noteLinks(text: string): Array<{ type: string; refId: string; label?: string }> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  const out: Array<{ type: string; refId: string; label?: string }> = [];
  for (const x of value as unknown[]) {
    if (typeof x !== 'object' || x === null) continue;
    const { type, refId, label } = x as Record<string, unknown>;
    if (typeof type === 'string' && typeof refId === 'string')
      out.push(typeof label === 'string' ? { type, refId, label } : { type, refId });
  }
  return out;
}
