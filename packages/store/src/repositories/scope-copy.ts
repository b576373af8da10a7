import type { SqlExecutor } from '../internal/sql.js';
import { all as allRows, get, type Program, perDialect, portable } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

// A scope's evidence and graph as plain rows, for `engine.export` and its import: each row keeps its
// columns as in the schema, minus the scope (the importer's agent replaces it), rowids (`seq`, which
// the target file assigns), and what the target derives again (normalized content and hash, the
// embedding model, the FTS scope column, the community). Documented in the README ("Export format").

/** The tables a scope export carries. */
export type ScopeTable =
  | 'memories'
  | 'memory_history'
  | 'memory_entity_mentions'
  | 'session_transcripts'
  | 'session_transcript_turns'
  | 'documents'
  | 'document_memories'
  | 'entities'
  | 'entity_aliases'
  | 'entity_aspects'
  | 'entity_attributes'
  | 'entity_dependencies'
  | 'notes'
  | 'note_events'
  | 'registry_categories'
  | 'registry_category_links'
  | 'registry_events';

const OMIT: Readonly<Record<ScopeTable, readonly string[]>> = {
  memories: ['seq', 'agent_id', 'normalized_content', 'content_hash', 'embedding_model', 'fts_scope'],
  memory_history: ['seq', 'agent_id', 'memory_id'],
  memory_entity_mentions: ['agent_id', 'memory_id'],
  session_transcripts: ['agent_id'],
  session_transcript_turns: ['seq', 'agent_id', 'session_key'],
  documents: ['agent_id', 'connector_id', 'raw_content'],
  document_memories: ['document_id'],
  entities: ['agent_id', 'community_id'],
  entity_aliases: ['agent_id', 'entity_id'],
  entity_aspects: ['agent_id', 'entity_id'],
  entity_attributes: ['agent_id', 'entity_id'],
  entity_dependencies: ['agent_id'],
  // `note_links` is derived from `linked_entities` on import.
  notes: ['seq', 'agent_id'],
  note_events: ['seq', 'agent_id', 'note_id'],
  registry_categories: ['agent_id'],
  registry_category_links: ['agent_id', 'category_id'],
  registry_events: ['seq', 'agent_id', 'category_id'],
};

/** A row as exported: column name to value (text, number or null). */
export type ScopeRow = Record<string, string | number | null>;

function strip(table: ScopeTable, rows: ReadonlyArray<Record<string, unknown>>): ScopeRow[] {
  const omit = OMIT[table];
  return rows.map((row) => {
    const out: ScopeRow = {};
    for (const [key, value] of Object.entries(row)) if (!omit.includes(key)) out[key] = value as string | number | null;
    return out;
  });
}

function* all(table: ScopeTable, query: string, ...params: unknown[]): Program<ScopeRow[]> {
  return strip(table, yield* allRows<Record<string, unknown>>(portable(query, ...params)));
}

type Key = { createdAt: number; seq: number };

/** A page of the scope's memories in (created_at, seq) order, with the key of the last row. */
export function scopeMemoriesPage(
  sql: SqlExecutor,
  agentId: string,
  after: Key | undefined,
  limit: number,
): { rows: ScopeRow[]; last: Key | undefined } {
  return runSqliteProgram(sql, scopeMemoriesPageProgram(agentId, after, limit));
}

/** {@link scopeMemoriesPage} as a program (both dialects). */
export function* scopeMemoriesPageProgram(
  agentId: string,
  after: Key | undefined,
  limit: number,
): Program<{ rows: ScopeRow[]; last: Key | undefined }> {
  const rows = yield* allRows<Record<string, unknown> & { seq: number; created_at: number }>(
    after
      ? portable(
          'SELECT * FROM memories WHERE agent_id = ? AND (created_at, seq) > (?, ?) ORDER BY created_at, seq LIMIT ?',
          agentId,
          after.createdAt,
          after.seq,
          limit,
        )
      : portable('SELECT * FROM memories WHERE agent_id = ? ORDER BY created_at, seq LIMIT ?', agentId, limit),
  );
  const last = rows[rows.length - 1];
  return { rows: strip('memories', rows), last: last ? { createdAt: last.created_at, seq: last.seq } : undefined };
}

/** A memory's history (oldest first) and entity mentions. */
export function scopeMemoryParts(sql: SqlExecutor, agentId: string, memoryId: string) {
  return runSqliteProgram(sql, scopeMemoryPartsProgram(agentId, memoryId));
}

/** {@link scopeMemoryParts} as a program (both dialects). */
export function* scopeMemoryPartsProgram(
  agentId: string,
  memoryId: string,
): Program<{ history: ScopeRow[]; mentions: ScopeRow[] }> {
  return {
    history: yield* all(
      'memory_history',
      'SELECT * FROM memory_history WHERE memory_id = ? AND agent_id = ? ORDER BY seq',
      memoryId,
      agentId,
    ),
    mentions: yield* all(
      'memory_entity_mentions',
      'SELECT * FROM memory_entity_mentions WHERE memory_id = ? AND agent_id = ? ORDER BY entity_id',
      memoryId,
      agentId,
    ),
  };
}

/** Tables paged by a text key. */
export type ScopeKeyedTable =
  | 'session_transcripts'
  | 'documents'
  | 'entities'
  | 'entity_dependencies'
  | 'notes'
  | 'registry_categories';

/** A page of rows keyed by text (`session_key` or `id`), after `after`, in key order. */
export function scopeKeyedPage(
  sql: SqlExecutor,
  table: ScopeKeyedTable,
  agentId: string,
  after: string,
  limit: number,
): ScopeRow[] {
  return runSqliteProgram(sql, scopeKeyedPageProgram(table, agentId, after, limit));
}

/**
 * {@link scopeKeyedPage} as a program (both dialects). The key is compared byte-wise on
 * PostgreSQL too (`COLLATE "C"`, SQLite's own order), so a page never skips or repeats a row.
 */
export function* scopeKeyedPageProgram(
  table: ScopeKeyedTable,
  agentId: string,
  after: string,
  limit: number,
): Program<ScopeRow[]> {
  const key = table === 'session_transcripts' ? 'session_key' : 'id';
  const parameters = [agentId, after, limit];
  return strip(
    table,
    yield* allRows<Record<string, unknown>>(
      perDialect(
        { sql: `SELECT * FROM ${table} WHERE agent_id = ? AND ${key} > ? ORDER BY ${key} LIMIT ?`, parameters },
        {
          sql: `SELECT * FROM ${table} WHERE agent_id = $1 AND ${key} COLLATE "C" > $2 ORDER BY ${key} COLLATE "C" LIMIT $3`,
          parameters,
        },
      ),
    ),
  );
}

/** A transcript's turns in order. */
export function scopeTurns(sql: SqlExecutor, agentId: string, sessionKey: string): ScopeRow[] {
  return runSqliteProgram(sql, scopeTurnsProgram(agentId, sessionKey));
}

/** {@link scopeTurns} as a program (both dialects). */
export function* scopeTurnsProgram(agentId: string, sessionKey: string): Program<ScopeRow[]> {
  return yield* all(
    'session_transcript_turns',
    'SELECT * FROM session_transcript_turns WHERE agent_id = ? AND session_key = ? ORDER BY seq',
    agentId,
    sessionKey,
  );
}

/** A document's whole text (its parts joined, or the row's own text) and its chunk memories. */
export function scopeDocumentParts(sql: SqlExecutor, agentId: string, documentId: string) {
  return runSqliteProgram(sql, scopeDocumentPartsProgram(agentId, documentId));
}

/** {@link scopeDocumentParts} as a program (both dialects). */
export function* scopeDocumentPartsProgram(
  agentId: string,
  documentId: string,
): Program<{ content: string | null; memories: ScopeRow[] }> {
  const own = yield* get<{ raw_content: string | null }>(
    portable('SELECT raw_content FROM documents WHERE id = ? AND agent_id = ?', documentId, agentId),
  );
  const parts = yield* allRows<{ text: string }>(
    portable('SELECT text FROM document_content_parts WHERE document_id = ? ORDER BY part', documentId),
  );
  return {
    content: parts.length > 0 ? parts.map((p) => p.text).join('') : (own?.raw_content ?? null),
    memories: yield* all(
      'document_memories',
      'SELECT * FROM document_memories WHERE document_id = ? ORDER BY chunk_index, memory_id',
      documentId,
    ),
  };
}

/** A note's audit rows, oldest first. */
export function scopeNoteEvents(sql: SqlExecutor, agentId: string, noteId: string): ScopeRow[] {
  return runSqliteProgram(sql, scopeNoteEventsProgram(agentId, noteId));
}

/** {@link scopeNoteEvents} as a program (both dialects). */
export function* scopeNoteEventsProgram(agentId: string, noteId: string): Program<ScopeRow[]> {
  return yield* all(
    'note_events',
    'SELECT * FROM note_events WHERE note_id = ? AND agent_id = ? ORDER BY seq',
    noteId,
    agentId,
  );
}

/** A registry category's links (by kind and reference) and its audit events, oldest first. */
export function scopeCategoryParts(sql: SqlExecutor, agentId: string, categoryId: string) {
  return runSqliteProgram(sql, scopeCategoryPartsProgram(agentId, categoryId));
}

/** {@link scopeCategoryParts} as a program (both dialects). */
export function* scopeCategoryPartsProgram(
  agentId: string,
  categoryId: string,
): Program<{ links: ScopeRow[]; events: ScopeRow[] }> {
  return {
    links: yield* all(
      'registry_category_links',
      `SELECT * FROM registry_category_links WHERE agent_id = ? AND category_id = ?
       ORDER BY object_kind, host_type, object_ref`,
      agentId,
      categoryId,
    ),
    events: yield* all(
      'registry_events',
      'SELECT * FROM registry_events WHERE agent_id = ? AND category_id = ? ORDER BY seq',
      agentId,
      categoryId,
    ),
  };
}

/** An entity's aliases, aspects and claims. */
export function scopeEntityParts(sql: SqlExecutor, agentId: string, entityId: string) {
  return runSqliteProgram(sql, scopeEntityPartsProgram(agentId, entityId));
}

/** {@link scopeEntityParts} as a program (both dialects). */
export function* scopeEntityPartsProgram(
  agentId: string,
  entityId: string,
): Program<{ aliases: ScopeRow[]; aspects: ScopeRow[]; claims: ScopeRow[] }> {
  const of = (table: ScopeTable, order: string) =>
    all(table, `SELECT * FROM ${table} WHERE entity_id = ? AND agent_id = ? ORDER BY ${order}`, entityId, agentId);
  return {
    aliases: yield* of('entity_aliases', 'canonical_alias'),
    aspects: yield* of('entity_aspects', 'id'),
    claims: yield* of('entity_attributes', 'id'),
  };
}

/** The columns an export leaves out of a table's rows (and an import refuses in a record). */
export function omittedColumns(table: ScopeTable): readonly string[] {
  return OMIT[table];
}
