import type { SqlExecutor } from '../internal/sql.js';
import type { WriterTarget } from '../memory-writer/context.js';
import { all, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { VectorIndexWriter } from '../vector-index/index-writer.js';
import { presentTablesProgram } from './table-presence.js';

// Every table that holds a scope's rows, in the order a scope erasure empties them: rows that point
// at others first, so counts are per table (nothing goes by cascade unseen). `where` selects the
// scope's rows; each `?` in it is bound to the agent id. The names are this fixed list, never input.
// The erase test compares this list with every table of a migrated database that has an `agent_id`.
const BY_AGENT = 'agent_id = ?';
const OF_MEMORIES = 'memory_id IN (SELECT id FROM memories WHERE agent_id = ?)';
const OF_DOCUMENTS = 'document_id IN (SELECT id FROM documents WHERE agent_id = ?)';

/** A table step of a scope erasure. */
export interface EraseStep {
  readonly table: string;
  readonly where: string;
  /** The primary key of a WITHOUT ROWID table (deleted by key instead of rowid). */
  readonly key?: string;
  /** `where` on PostgreSQL, when SQLite's uses its JSON functions. */
  readonly postgresWhere?: string;
}

export const ERASE_STEPS: readonly EraseStep[] = Object.freeze([
  // Canonical vectors go one by one through the vector index writer (their vec0 rows with them).
  { table: 'embeddings', where: BY_AGENT },
  { table: 'vector_audits', where: BY_AGENT },
  { table: 'vector_builds', where: BY_AGENT },
  { table: 'vector_centroids', where: BY_AGENT },
  { table: 'vector_partitions', where: BY_AGENT },
  { table: 'embedding_failures', where: OF_MEMORIES },
  { table: 'memory_hints', where: BY_AGENT },
  { table: 'memory_entity_mentions', where: BY_AGENT },
  { table: 'memory_links', where: BY_AGENT },
  // Before memories, documents and transcripts: their delete triggers would take these unseen.
  { table: 'registry_category_links', where: BY_AGENT },
  { table: 'registry_categories', where: BY_AGENT },
  { table: 'registry_events', where: BY_AGENT },
  { table: 'document_memories', where: `${OF_DOCUMENTS} OR ${OF_MEMORIES}` },
  { table: 'document_content_parts', where: OF_DOCUMENTS },
  { table: 'document_conversions', where: BY_AGENT },
  { table: 'documents', where: BY_AGENT },
  { table: 'connector_items', where: BY_AGENT },
  { table: 'connectors', where: BY_AGENT },
  { table: 'memories', where: BY_AGENT },
  { table: 'memory_history', where: BY_AGENT },
  { table: 'memories_cold', where: BY_AGENT },
  { table: 'memory_tombstones', where: BY_AGENT },
  { table: 'session_transcript_turns', where: BY_AGENT },
  { table: 'session_transcripts', where: BY_AGENT },
  { table: 'import_records', where: 'import_id IN (SELECT id FROM import_jobs WHERE agent_id = ?)' },
  { table: 'import_jobs', where: BY_AGENT },
  { table: 'import_tombstones', where: BY_AGENT },
  { table: 'entity_attributes', where: BY_AGENT },
  { table: 'entity_aspects', where: BY_AGENT },
  { table: 'entity_dependencies', where: BY_AGENT },
  { table: 'relations', where: BY_AGENT },
  { table: 'entity_aliases', where: BY_AGENT },
  { table: 'entity_pinning', where: BY_AGENT },
  { table: 'entities', where: BY_AGENT },
  { table: 'entity_communities', where: BY_AGENT },
  { table: 'dreaming_tool_calls', where: 'pass_id IN (SELECT id FROM dreaming_passes WHERE agent_id = ?)' },
  { table: 'dreaming_passes', where: BY_AGENT },
  { table: 'dreaming_attention', where: BY_AGENT },
  { table: 'dreaming_provenance', where: BY_AGENT },
  { table: 'dreaming_reverts', where: BY_AGENT },
  { table: 'ontology_proposals', where: BY_AGENT },
  { table: 'ontology_contradictions', where: BY_AGENT },
  { table: 'dreaming_state', where: BY_AGENT },
  { table: 'dreaming_evidence_offsets', where: BY_AGENT },
  { table: 'dreaming_evidence_exclusions', where: BY_AGENT },
  { table: 'dreaming_evidence_reviews', where: BY_AGENT },
  { table: 'memory_md_heads', where: BY_AGENT },
  { table: 'recall_telemetry', where: BY_AGENT },
  { table: 'memory_jobs', where: BY_AGENT },
  {
    table: 'memory_jobs_archive',
    where: "json_extract(row_json, '$.agent_id') = ?",
    postgresWhere: "row_json::json ->> 'agent_id' = ?",
  },
  { table: 'lifecycle_counts', where: BY_AGENT },
  { table: 'embedding_projections', where: BY_AGENT },
  // The scope's maintained counts (zero once its memories are gone) and its re-embed request.
  { table: 'memory_counts', where: BY_AGENT, key: 'agent_id, kind, model, recalled, day' },
  { table: 'embedding_reembeds', where: BY_AGENT },
  { table: 'note_vectors', where: BY_AGENT },
  { table: 'note_links', where: BY_AGENT },
  { table: 'note_events', where: BY_AGENT },
  { table: 'notes', where: BY_AGENT },
  // Last: the scoped text index's postings go with the rows deleted above (its triggers remove
  // them); what is left is the scope's own counting rows, which would still say the agent existed.
  { table: 'text_scopes', where: BY_AGENT },
  { table: 'note_text_scopes', where: BY_AGENT },
]);

// PostgreSQL has no trigger to take a deleted row's text postings (the tokenizer is JavaScript):
// the scope's postings go in a step of their own, before the scopes that number them.
const POSTGRES_ERASE_STEPS: readonly EraseStep[] = Object.freeze(
  ERASE_STEPS.flatMap((step) =>
    step.table === 'text_scopes'
      ? [{ table: 'text_postings', where: 'scope IN (SELECT scope FROM text_scopes WHERE agent_id = ?)' }, step]
      : [step],
  ),
);

/** The steps of a scope erasure on a dialect (PostgreSQL's add the text postings). */
export function eraseStepsFor(dialect: 'sqlite' | 'postgres'): readonly EraseStep[] {
  return dialect === 'postgres' ? POSTGRES_ERASE_STEPS : ERASE_STEPS;
}

/** Where an erasure stands: the step it is on and the rows removed so far per table. */
export interface ErasureState {
  readonly agentId: string;
  readonly status: 'running' | 'done';
  readonly step: number;
  readonly counts: Readonly<Record<string, number>>;
  readonly startedAt: number;
  readonly finishedAt: number | null;
}

interface ErasureRow {
  agent_id: string;
  status: 'running' | 'done';
  step: number;
  counts_json: string;
  started_at: number;
  finished_at: number | null;
}

function toState(row: ErasureRow): ErasureState {
  return {
    agentId: row.agent_id,
    status: row.status,
    step: row.step,
    counts: JSON.parse(row.counts_json) as Record<string, number>,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/** The scope's erasure record, if one was ever started. */
export function findErasure(sql: SqlExecutor, agentId: string): ErasureState | undefined {
  return runSqliteProgram(sql, findErasureProgram(agentId));
}

/** {@link findErasure} as a program (both dialects). */
export function* findErasureProgram(agentId: string): Program<ErasureState | undefined> {
  const row = yield* get<ErasureRow>(portable('SELECT * FROM scope_erasures WHERE agent_id = ?', agentId));
  return row ? toState(row) : undefined;
}

/** Erasures that were started and not finished (a crash interrupted them). */
export function unfinishedErasures(sql: SqlExecutor): string[] {
  return runSqliteProgram(sql, unfinishedErasuresProgram());
}

/** {@link unfinishedErasures} as a program (both dialects). */
export function* unfinishedErasuresProgram(): Program<string[]> {
  const rows = yield* all<{ agent_id: string }>(
    portable("SELECT agent_id FROM scope_erasures WHERE status = 'running'"),
  );
  return rows.map((r) => r.agent_id);
}

/**
 * Starts an erasure of the scope, or returns the running one (an erase interrupted by a crash
 * continues from its step with its counts). A finished one starts over: rows written since go too.
 */
export function beginErasure(sql: SqlExecutor, agentId: string, now: number): ErasureState {
  return runSqliteProgram(sql, beginErasureProgram(agentId, now));
}

/** {@link beginErasure} as a program (both dialects). */
export function* beginErasureProgram(agentId: string, now: number): Program<ErasureState> {
  const current = yield* findErasureProgram(agentId);
  if (current?.status === 'running') return current;
  yield* run(
    portable(
      `INSERT INTO scope_erasures (agent_id, status, step, counts_json, started_at, updated_at, finished_at)
       VALUES (?, 'running', 0, '{}', ?, ?, NULL)
       ON CONFLICT (agent_id) DO UPDATE SET status = 'running', step = 0, counts_json = '{}',
         started_at = excluded.started_at, updated_at = excluded.updated_at, finished_at = NULL`,
      agentId,
      now,
      now,
    ),
  );
  return (yield* findErasureProgram(agentId)) as ErasureState;
}

// On SQLite each vector's vec0 row goes with it through the index writer; on PostgreSQL the pgvector
// mirror's row goes with its `embeddings` row by cascade, so a batch is one statement.
function* eraseEmbeddings(target: WriterTarget, agentId: string, limit: number, vectorAvailable: boolean, now: number) {
  if (target.dialect === 'postgres')
    return (yield* run(
      portable(
        'DELETE FROM embeddings WHERE seq IN (SELECT seq FROM embeddings WHERE agent_id = ? LIMIT ?)',
        agentId,
        limit,
      ),
    )).changes;
  const rows = yield* all<{ seq: number; agentId: string; model: string; dimensions: number }>(
    portable(
      'SELECT seq, agent_id AS agentId, model, dimensions FROM embeddings WHERE agent_id = ? LIMIT ?',
      agentId,
      limit,
    ),
  );
  const index = new VectorIndexWriter(target.sql, vectorAvailable, now);
  for (const row of rows) {
    yield* run(portable('DELETE FROM embeddings WHERE seq = ?', row.seq));
    index.remove(row);
  }
  return rows.length;
}

/** Deletes up to `limit` of the scope's rows of one table; returns how many. */
function* eraseRows(step: EraseStep, agentId: string, limit: number): Program<number> {
  const binds = (where: string) => Array.from({ length: where.split('?').length - 1 }, () => agentId);
  // PostgreSQL has no rowid: a row's physical address (ctid) picks the batch's rows instead.
  const pgWhere = step.postgresWhere ?? step.where;
  let n = 0;
  const numbered =
    `DELETE FROM ${step.table} WHERE ctid IN (SELECT ctid FROM ${step.table} WHERE ${pgWhere} LIMIT ?)`.replace(
      /\?/g,
      () => `$${++n}`,
    );
  return (yield* run(
    perDialect(
      {
        sql: `DELETE FROM ${step.table} WHERE (${step.key ?? 'rowid'}) IN (SELECT ${step.key ?? 'rowid'} FROM ${step.table} WHERE ${step.where} LIMIT ?)`,
        parameters: [...binds(step.where), limit],
      },
      { sql: numbered, parameters: [...binds(pgWhere), limit] },
    ),
  )).changes;
}

/**
 * One bounded step of the scope's erasure, inside the caller's write transaction: up to `limit`
 * rows of the current table, with the counts and position saved in the same transaction (so a
 * crash loses nothing and counts nothing twice). A table with nothing left moves the erasure to the
 * next one; after the last, the erasure is `done`.
 */
export function eraseStep(
  sql: SqlExecutor,
  agentId: string,
  options: { limit: number; vectorAvailable: boolean; now: number },
): ErasureState {
  return runSqliteProgram(sql, eraseStepProgram({ dialect: 'sqlite', sql }, agentId, options));
}

/**
 * {@link eraseStep} as a program. A table that does not exist (on PostgreSQL, a subject whose form
 * has not landed) is passed over: it holds no rows of the scope.
 */
export function* eraseStepProgram(
  target: WriterTarget,
  agentId: string,
  options: { limit: number; vectorAvailable: boolean; now: number },
): Program<ErasureState> {
  const state = yield* findErasureProgram(agentId);
  if (!state || state.status === 'done') return state ?? (yield* beginErasureProgram(agentId, options.now));
  const steps = eraseStepsFor(target.dialect);
  const step = steps[state.step];
  let nextStep = state.step;
  const counts = { ...state.counts };
  if (step) {
    const present = (yield* presentTablesProgram([step.table])).has(step.table);
    const removed = !present
      ? 0
      : step.table === 'embeddings'
        ? yield* eraseEmbeddings(target, agentId, options.limit, options.vectorAvailable, options.now)
        : yield* eraseRows(step, agentId, options.limit);
    if (removed > 0) counts[step.table] = (counts[step.table] ?? 0) + removed;
    if (removed < options.limit) nextStep++;
  }
  const done = nextStep >= steps.length;
  yield* run(
    portable(
      'UPDATE scope_erasures SET step = ?, counts_json = ?, status = ?, updated_at = ?, finished_at = ? WHERE agent_id = ?',
      nextStep,
      JSON.stringify(counts),
      done ? 'done' : 'running',
      options.now,
      done ? options.now : null,
      agentId,
    ),
  );
  return (yield* findErasureProgram(agentId)) as ErasureState;
}
