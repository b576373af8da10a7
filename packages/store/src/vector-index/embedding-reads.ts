import { raw, type SqlExecutor } from '../internal/sql.js';

// Reads of canonical vectors (`embeddings`) that the index's upkeep walks in seq order: a partition
// through the (agent_id, model, seq) index, a whole model through the primary key.

/** A canonical vector with its seq. */
export interface SeqVector {
  readonly seq: number;
  readonly vector: Buffer;
}

/** An agent's memory vectors of one model after `afterSeq`, in seq order. */
export function partitionVectorsAfter(
  sql: SqlExecutor,
  agentId: string,
  model: string,
  afterSeq: number,
  limit: number,
): SeqVector[] {
  return sql.all(
    raw(
      `SELECT seq, vector FROM embeddings
       WHERE agent_id = ? AND model = ? AND seq > ? AND source_type = 'memory' ORDER BY seq LIMIT ?`,
      agentId,
      model,
      afterSeq,
      limit,
    ),
  );
}

// One end of the range: the first row in (agent_id, model, seq) order from that end. SQLite answers
// a lone min() or max() from the index, but min() and max() together scan the whole range (with a
// table lookup per row for source_type): 0.3–0.9 s at a million vectors, in one synchronous call.
const SEQ_END = (order: 'ASC' | 'DESC') =>
  `(SELECT seq FROM embeddings WHERE agent_id = ? AND model = ? AND source_type = 'memory' ORDER BY seq ${order} LIMIT 1)`;
const SEQ_RANGE = `SELECT ${SEQ_END('ASC')} AS low, ${SEQ_END('DESC')} AS high`;

/** The smallest and largest seq of an agent's memory vectors of one model (two index seeks). */
export function partitionSeqRange(
  sql: SqlExecutor,
  agentId: string,
  model: string,
): { low: number; high: number } | undefined {
  const row = sql.get<{ low: number | null; high: number | null }>(raw(SEQ_RANGE, agentId, model, agentId, model));
  return row?.low == null || row.high == null ? undefined : { low: row.low, high: row.high };
}

/** The first memory vector of the agent and model at or after `seq` (for random sampling). */
export function partitionVectorAtOrAfter(
  sql: SqlExecutor,
  agentId: string,
  model: string,
  seq: number,
): SeqVector | undefined {
  return sql.get(
    raw(
      `SELECT seq, vector FROM embeddings
       WHERE agent_id = ? AND model = ? AND seq >= ? AND source_type = 'memory' ORDER BY seq LIMIT 1`,
      agentId,
      model,
      seq,
    ),
  );
}

/** Memory vectors of one model with `afterSeq < seq ≤ untilSeq`, with their agent, in seq order. */
export function modelVectorsBetween(
  sql: SqlExecutor,
  model: string,
  dimensions: number,
  afterSeq: number,
  untilSeq: number,
  limit: number,
): Array<SeqVector & { agentId: string }> {
  return sql.all(
    raw(
      `SELECT seq, agent_id AS agentId, vector FROM embeddings
       WHERE seq > ? AND seq <= ? AND model = ? AND dimensions = ? AND source_type = 'memory' ORDER BY seq LIMIT ?`,
      afterSeq,
      untilSeq,
      model,
      dimensions,
      limit,
    ),
  );
}

/** The memory ids behind seqs of one agent (seqs of other agents or other sources are dropped). */
export function memoryIdsOfSeqs(
  sql: SqlExecutor,
  agentId: string,
  seqs: readonly number[],
): Array<{ seq: number; memoryId: string }> {
  if (seqs.length === 0) return [];
  return sql.all(
    raw(
      `SELECT e.seq, e.source_id AS memoryId
       FROM json_each(?) AS wanted
       CROSS JOIN embeddings AS e ON e.seq = wanted.value
       WHERE e.agent_id = ? AND e.source_type = 'memory'`,
      JSON.stringify(seqs),
      agentId,
    ),
  );
}

/** The memory vectors of one agent and model behind `seqs` (seqs no longer there are left out). */
export function memoryVectorsOfSeqs(
  sql: SqlExecutor,
  agentId: string,
  model: string,
  seqs: readonly number[],
): SeqVector[] {
  if (seqs.length === 0) return [];
  return sql.all(
    raw(
      `SELECT e.seq, e.vector FROM json_each(?) AS wanted
       CROSS JOIN embeddings AS e ON e.seq = wanted.value
       WHERE e.agent_id = ? AND e.model = ? AND e.source_type = 'memory'`,
      JSON.stringify(seqs),
      agentId,
      model,
    ),
  );
}
