import { raw, type SqlExecutor } from '../internal/sql.js';
import { cellOf, FRESH_LIST } from './cells.js';
import { cachedCentroids, cachedListSizes } from './centroids.js';
import type { VectorIndex } from './indexes.js';
import { listRanks } from './kmeans.js';
import { findPartition, setProbes, type VectorPartition } from './partitions.js';

// Audits: real queries of an ivf partition searched again, exactly, in the background. A build can
// only estimate recall from queries made of stored vectors; real questions can be harder (short
// keyword queries against a sparse embedder) or easier. Each audit records, for every true
// neighbour, the rank of its list among the query's nearest centroids; once a generation has
// AUDIT_MIN of them, the probe count becomes the fewest whose audited recall, less a prediction
// margin for a set of UNSEEN questions the audits never saw, reaches the target, and the recall
// reported is the audited one. Queries wait in memory of the process that served them (a bounded
// queue per store, dropped on exit); results are rows.
//
// What the audits record is what the search returns: measured on a 100k dense partition (bench
// README, session 11), the share of true neighbours in the probed lists equalled the recall of the
// search's own results (scan cache or vec0) on every one of 600 questions. The estimate's error is
// the questions': per-question recall spreads widely (standard deviation ~0.1), so 96 audited
// questions and 100 other ones differ by ~0.014 (one standard deviation of the difference), and a
// rule that stops at the first probe count whose audited recall less 1.5 standard errors of the
// audited mean reaches the target settles where the audited sample runs high.

/** Audited queries a generation needs before they decide its probe count. */
export const AUDIT_MIN = 96;
/** After that, one ivf query in this many is audited. */
const AUDIT_EVERY = 64;
const PENDING_MAX = 128;
/** Audits kept per generation (the newest). */
const KEEP = 256;
/** Neighbours compared (recall@10), and how many exact hits are read to see ties at the 10th. */
const TOP = 10;
const TIES = 50;
/**
 * The probe count must hold for a set of this many questions the audits never saw (another's
 * benchmark, the next hour's queries), not only for the mean of all questions: the margin is
 * PREDICTION_Z standard deviations of the difference between the audited mean and such a set's.
 */
const UNSEEN = 100;
const PREDICTION_Z = 2;

interface PendingAudit {
  readonly indexId: number;
  readonly agentId: string;
  readonly generation: number;
  readonly lists: number;
  readonly query: Float32Array;
  /** The next list to search (0 = the fresh list). */
  nextList: number;
  top: Array<{ distance: number; list: number }>;
}

const queues = new WeakMap<SqlExecutor, PendingAudit[]>();
const counters = new WeakMap<SqlExecutor, { n: number }>();

/** Queues a query of an ivf partition for an audit when the partition still needs audits, or by sampling. */
export function noteIvfQuery(sql: SqlExecutor, partition: VectorPartition, query: Float32Array): void {
  let queue = queues.get(sql);
  if (!queue) {
    queue = [];
    queues.set(sql, queue);
  }
  let counter = counters.get(sql);
  if (!counter) {
    counter = { n: 0 };
    counters.set(sql, counter);
  }
  counter.n++;
  // Only this partition's pending audits count: another agent's (or index's) generation of the same
  // number waiting in the queue must not stop this one from being audited.
  const pending = queue.filter(
    (a) => a.indexId === partition.indexId && a.agentId === partition.agentId && a.generation === partition.generation,
  ).length;
  const wanted = partition.audits + pending < AUDIT_MIN;
  if (queue.length >= PENDING_MAX || (!wanted && counter.n % AUDIT_EVERY !== 0)) return;
  queue.push({
    indexId: partition.indexId,
    agentId: partition.agentId,
    generation: partition.generation,
    lists: partition.lists,
    query: Float32Array.from(query),
    nextList: FRESH_LIST,
    top: [],
  });
}

/** The index of the next query waiting (in this process) for an audit, if any. */
export function pendingAuditIndex(sql: SqlExecutor): number | undefined {
  return queues.get(sql)?.[0]?.indexId;
}

/**
 * Searches the next lists of the oldest pending audit exactly (a KNN over a range of cells holding
 * about `maxRows` vectors); when every list is done, records the audit and, past AUDIT_MIN audits,
 * resets the partition's probe count from them. An audit of a generation that was replaced is dropped.
 */
export function auditStep(
  sql: SqlExecutor,
  index: VectorIndex,
  maxRows: number,
  policy: { targetRecall: number; minProbeShare: number },
  now: number,
): { rows: number; done: boolean } {
  const queue = queues.get(sql) ?? [];
  const audit = queue[0];
  if (!audit) return { rows: 0, done: true };
  const partition = findPartition(sql, audit.indexId, audit.agentId);
  const key = { indexId: audit.indexId, agentId: audit.agentId, generation: audit.generation };
  const centroids = cachedCentroids(sql, key, index.dimensions);
  if (!partition || partition.generation !== audit.generation || partition.layout !== 'ivf' || !centroids) {
    queue.shift();
    return { rows: 0, done: queue.length === 0 };
  }
  const sizes = cachedListSizes(sql, { ...key, drainedSeq: partition.drainedSeq });
  let assigned = 0;
  for (const size of sizes) assigned += size;
  // Lists [first, last] holding about maxRows vectors (list 0, the fresh list, holds the rest).
  const first = audit.nextList;
  let last = first;
  let rows = first === FRESH_LIST ? Math.max(0, partition.vectors - assigned) : (sizes[first - 1] ?? 0);
  while (last < audit.lists && rows + (sizes[last] ?? 0) <= maxRows) {
    last++;
    rows += sizes[last - 1] ?? 0;
  }
  const found = sql.all<{ cell: number | bigint; distance: number }>(
    raw(
      `SELECT cell, distance FROM ${index.tableName}
       WHERE embedding MATCH ? AND k = ? AND agent_id = ? AND cell >= ? AND cell <= ?`,
      Buffer.from(audit.query.buffer, audit.query.byteOffset, audit.query.byteLength),
      TIES,
      audit.agentId,
      cellOf(audit.generation, first),
      cellOf(audit.generation, last),
    ),
  );
  const base = cellOf(audit.generation, 0);
  for (const hit of found) audit.top.push({ distance: hit.distance, list: Number(BigInt(hit.cell) - base) });
  audit.top = audit.top.sort((a, b) => a.distance - b.distance).slice(0, TIES);
  audit.nextList = last + 1;
  if (audit.nextList <= audit.lists) return { rows, done: false };
  queue.shift();
  recordAudit(sql, audit, listRanks(centroids, audit.query), policy, now);
  return { rows, done: queue.length === 0 };
}

function recordAudit(
  sql: SqlExecutor,
  audit: PendingAudit,
  ranks: Int32Array,
  policy: { targetRecall: number; minProbeShare: number },
  now: number,
): void {
  const tenth = audit.top[Math.min(TOP, audit.top.length) - 1]?.distance;
  if (tenth === undefined) return;
  // Every vector as near as the 10th (ties) is a true neighbour; finding any ten of them is enough.
  const truth = audit.top.filter((t) => t.distance <= tenth + 1e-6);
  const listRank = Float64Array.from(truth, (t) => (t.list === FRESH_LIST ? -1 : (ranks[t.list - 1] ?? audit.lists)));
  sql.run(
    raw(
      'INSERT INTO vector_audits (index_id, agent_id, generation, ranks, created_at) VALUES (?, ?, ?, ?, ?)',
      audit.indexId,
      audit.agentId,
      audit.generation,
      Buffer.from(listRank.buffer),
      now,
    ),
  );
  sql.run(
    raw(
      `DELETE FROM vector_audits WHERE index_id = ? AND agent_id = ? AND generation = ? AND id NOT IN (
         SELECT id FROM vector_audits WHERE index_id = ? AND agent_id = ? AND generation = ? ORDER BY id DESC LIMIT ?)`,
      audit.indexId,
      audit.agentId,
      audit.generation,
      audit.indexId,
      audit.agentId,
      audit.generation,
      KEEP,
    ),
  );
  const stored = sql.all<{ ranks: Buffer }>(
    raw(
      'SELECT ranks FROM vector_audits WHERE index_id = ? AND agent_id = ? AND generation = ?',
      audit.indexId,
      audit.agentId,
      audit.generation,
    ),
  );
  const key = { indexId: audit.indexId, agentId: audit.agentId, generation: audit.generation };
  if (stored.length < AUDIT_MIN) {
    sql.run(
      raw(
        'UPDATE vector_partitions SET audits = ? WHERE index_id = ? AND agent_id = ? AND generation = ?',
        stored.length,
        audit.indexId,
        audit.agentId,
        audit.generation,
      ),
    );
    return;
  }
  const chosen = probesFromAudits(
    stored.map(
      (s) => new Float64Array(s.ranks.buffer.slice(s.ranks.byteOffset, s.ranks.byteOffset + s.ranks.byteLength)),
    ),
    audit.lists,
    policy,
  );
  setProbes(sql, key, { ...chosen, recallQueries: stored.length, audits: stored.length }, now);
}

/**
 * The fewest probes whose audited recall@10, less a prediction margin, reaches the target (at least
 * the minimum share of lists), with the mean audited recall at that count. The margin is
 * {@link PREDICTION_Z} standard deviations of (audited mean − the mean of {@link UNSEEN} other
 * questions): sd × √(1/n + 1/UNSEEN), where sd is the per-question spread of the audited recall.
 */
export function probesFromAudits(
  audits: readonly Float64Array[],
  lists: number,
  policy: { targetRecall: number; minProbeShare: number },
): { probes: number; estimatedRecall: number } {
  const n = audits.length;
  // Walk the probe count up once: each true neighbour is found from the probe count just past its
  // list's rank on (the fresh list, rank -1, always), raising its query's recall by 1/10 (capped).
  const events: Array<{ rank: number; audit: number }> = [];
  audits.forEach((ranks, audit) => {
    for (const rank of ranks) events.push({ rank, audit });
  });
  events.sort((a, b) => a.rank - b.rank);
  const hits = new Int32Array(n);
  const need = audits.map((ranks) => Math.min(TOP, ranks.length));
  let sum = 0;
  let squares = 0;
  let next = 0;
  const floor = Math.max(1, Math.ceil(policy.minProbeShare * lists));
  let last = { probes: lists, estimatedRecall: 1 };
  for (let p = 0; p <= lists; p++) {
    // Probing p lists finds the neighbours whose list rank is below p.
    while (next < events.length && (events[next]?.rank ?? lists) < p) {
      const { audit } = events[next] as { audit: number };
      const before = Math.min(1, (hits[audit] as number) / (need[audit] as number));
      hits[audit] = (hits[audit] as number) + 1;
      const after = Math.min(1, (hits[audit] as number) / (need[audit] as number));
      sum += after - before;
      squares += after * after - before * before;
      next++;
    }
    if (p < floor) continue;
    const mean = sum / n;
    // Per-query recall has a long low tail: the audited mean alone, or less its own standard error
    // only, settles where the audited sample happens to run high, and unseen questions measured
    // 0.02–0.04 lower (session 10). The margin covers both samples' spread.
    const sd = Math.sqrt(Math.max(0, squares / n - mean * mean));
    const low = mean - PREDICTION_Z * sd * Math.sqrt(1 / n + 1 / UNSEEN);
    last = { probes: p, estimatedRecall: mean };
    if (low >= policy.targetRecall - 1e-9) return last;
  }
  return last;
}
