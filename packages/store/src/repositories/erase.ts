import { raw, type SqlExecutor } from '../internal/sql.js';
import { VectorIndexWriter } from '../vector-index/index-writer.js';

// Every table that holds a scope's rows, in the order a scope erasure empties them: rows that point
// at others first, so counts are per table (nothing goes by cascade unseen). `where` selects the
// scope's rows; each `?` in it is bound to the agent id. The names are this fixed list, never input.
// The erase test compares this list with every table of a migrated database that has an `agent_id`.
const BY_AGENT = 'agent_id = ?';
const OF_MEMORIES = 'memory_id IN (SELECT id FROM memories WHERE agent_id = ?)';
const OF_DOCUMENTS = 'document_id IN (SELECT id FROM documents WHERE agent_id = ?)';

/** A table step of a scope erasure. */
interface EraseStep {
  readonly table: string;
  readonly where: string;
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
  { table: 'document_memories', where: `${OF_DOCUMENTS} OR ${OF_MEMORIES}` },
  { table: 'document_content_parts', where: OF_DOCUMENTS },
  { table: 'documents', where: BY_AGENT },
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
  { table: 'memory_jobs_archive', where: "json_extract(row_json, '$.agent_id') = ?" },
  { table: 'lifecycle_counts', where: BY_AGENT },
  { table: 'embedding_projections', where: BY_AGENT },
  { table: 'note_vectors', where: BY_AGENT },
  { table: 'note_links', where: BY_AGENT },
  { table: 'note_events', where: BY_AGENT },
  { table: 'notes', where: BY_AGENT },
  // Last: the scoped text index's postings go with the rows deleted above (its triggers remove
  // them); what is left is the scope's own counting rows, which would still say the agent existed.
  { table: 'text_scopes', where: BY_AGENT },
  { table: 'note_text_scopes', where: BY_AGENT },
]);

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
  const row = sql.get<ErasureRow>(raw('SELECT * FROM scope_erasures WHERE agent_id = ?', agentId));
  return row ? toState(row) : undefined;
}

/** Erasures that were started and not finished (a crash interrupted them). */
export function unfinishedErasures(sql: SqlExecutor): string[] {
  return sql
    .all<{ agent_id: string }>(raw("SELECT agent_id FROM scope_erasures WHERE status = 'running'"))
    .map((r) => r.agent_id);
}

/**
 * Starts an erasure of the scope, or returns the running one (an erase interrupted by a crash
 * continues from its step with its counts). A finished one starts over: rows written since go too.
 */
export function beginErasure(sql: SqlExecutor, agentId: string, now: number): ErasureState {
  const current = findErasure(sql, agentId);
  if (current?.status === 'running') return current;
  sql.run(
    raw(
      `INSERT INTO scope_erasures (agent_id, status, step, counts_json, started_at, updated_at, finished_at)
       VALUES (?, 'running', 0, '{}', ?, ?, NULL)
       ON CONFLICT (agent_id) DO UPDATE SET status = 'running', step = 0, counts_json = '{}',
         started_at = excluded.started_at, updated_at = excluded.updated_at, finished_at = NULL`,
      agentId,
      now,
      now,
    ),
  );
  return findErasure(sql, agentId) as ErasureState;
}

function eraseEmbeddings(sql: SqlExecutor, agentId: string, limit: number, vectorAvailable: boolean, now: number) {
  const rows = sql.all<{ seq: number; agentId: string; model: string; dimensions: number }>(
    raw(
      'SELECT seq, agent_id AS agentId, model, dimensions FROM embeddings WHERE agent_id = ? LIMIT ?',
      agentId,
      limit,
    ),
  );
  const index = new VectorIndexWriter(sql, vectorAvailable, now);
  for (const row of rows) {
    sql.run(raw('DELETE FROM embeddings WHERE seq = ?', row.seq));
    index.remove(row);
  }
  return rows.length;
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
  const state = findErasure(sql, agentId);
  if (!state || state.status === 'done') return state ?? beginErasure(sql, agentId, options.now);
  const step = ERASE_STEPS[state.step];
  let nextStep = state.step;
  const counts = { ...state.counts };
  if (step) {
    const removed =
      step.table === 'embeddings'
        ? eraseEmbeddings(sql, agentId, options.limit, options.vectorAvailable, options.now)
        : sql.run(
            raw(
              `DELETE FROM ${step.table} WHERE rowid IN (SELECT rowid FROM ${step.table} WHERE ${step.where} LIMIT ?)`,
              ...Array.from({ length: step.where.split('?').length - 1 }, () => agentId),
              options.limit,
            ),
          ).changes;
    if (removed > 0) counts[step.table] = (counts[step.table] ?? 0) + removed;
    if (removed < options.limit) nextStep++;
  }
  const done = nextStep >= ERASE_STEPS.length;
  sql.run(
    raw(
      'UPDATE scope_erasures SET step = ?, counts_json = ?, status = ?, updated_at = ?, finished_at = ? WHERE agent_id = ?',
      nextStep,
      JSON.stringify(counts),
      done ? 'done' : 'running',
      options.now,
      done ? options.now : null,
      agentId,
    ),
  );
  return findErasure(sql, agentId) as ErasureState;
}
