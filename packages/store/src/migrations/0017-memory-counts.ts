import type { Migration } from './migration.js';

// Maintained per-scope memory counts and the embedder's identity (issue 13, parts 5 and 6).
//
// - `memory_counts`: per agent, kind and key, how many memories. Triggers on `memories` keep it in
//   step with every insert, delete and update of the columns it counts, so memory health and
//   recall's vector coverage read a handful of rows instead of walking the scope's index (34 ms at
//   91k memories). Kinds: `live` (key: the embedding model, '' for none), `never` (live, never
//   recalled), `forgotten`, `expiring` (live with an expiry), `day` (live, by the UTC day of the
//   last access or, never accessed, of creation: stale memories are a range of days).
//   Each trigger fires only when its own contribution changes (an access within the same day
//   changes nothing here).
// - `embedder_identities`: every (model, dimensions) an engine has opened this file with, and the
//   key its vectors are stored under: the model name, or `model#dims` when the same model name
//   already means other dimensions (so vectors of two sizes never share a key).
// - `embedding_migrations`: each change of embedder identity an engine saw at open.
// - `embedding_reembeds`: re-embedding a host asked for (`engine.maintenance.reembed`), per scope
//   ('' = every scope), kept until done so it survives a crash.

// The row a key is computed from: NEW or OLD in a trigger, the table's alias in the backfill.
type Row = string;
interface CountedKind {
  readonly kind: string;
  readonly key: (r: Row) => string;
  /** Columns whose change can move a memory between keys of this kind. */
  readonly columns: readonly string[];
}

const KINDS: readonly CountedKind[] = [
  {
    kind: 'live',
    key: (r) => `CASE WHEN ${r}.is_deleted = 0 THEN coalesce(${r}.embedding_model, '') END`,
    columns: ['is_deleted', 'embedding_model'],
  },
  {
    kind: 'never',
    key: (r) => `CASE WHEN ${r}.is_deleted = 0 AND ${r}.last_accessed IS NULL THEN '' END`,
    columns: ['is_deleted', 'last_accessed'],
  },
  { kind: 'forgotten', key: (r) => `CASE WHEN ${r}.is_deleted = 1 THEN '' END`, columns: ['is_deleted'] },
  {
    kind: 'expiring',
    key: (r) => `CASE WHEN ${r}.is_deleted = 0 AND ${r}.expires_at IS NOT NULL THEN '' END`,
    columns: ['is_deleted', 'expires_at'],
  },
  {
    kind: 'day',
    key: (r) => `CASE WHEN ${r}.is_deleted = 0 THEN coalesce(${r}.last_accessed, ${r}.created_at) / 86400000 END`,
    columns: ['is_deleted', 'last_accessed', 'created_at'],
  },
];

const add = (r: Row, k: CountedKind, delta: number) =>
  `INSERT INTO memory_counts (agent_id, kind, key, n) SELECT ${r}.agent_id, '${k.kind}', ${k.key(r)}, ${delta}
     WHERE ${k.key(r)} IS NOT NULL
     ON CONFLICT (agent_id, kind, key) DO UPDATE SET n = n + ${delta};`;

function triggers(k: CountedKind): string[] {
  const name = `memory_counts_${k.kind}`;
  return [
    `CREATE TRIGGER IF NOT EXISTS ${name}_insert AFTER INSERT ON memories WHEN ${k.key('NEW')} IS NOT NULL
     BEGIN ${add('NEW', k, 1)} END`,
    `CREATE TRIGGER IF NOT EXISTS ${name}_delete AFTER DELETE ON memories WHEN ${k.key('OLD')} IS NOT NULL
     BEGIN ${add('OLD', k, -1)} END`,
    `CREATE TRIGGER IF NOT EXISTS ${name}_update AFTER UPDATE OF agent_id, ${k.columns.join(', ')} ON memories
     WHEN ${k.key('OLD')} IS NOT ${k.key('NEW')} OR OLD.agent_id IS NOT NEW.agent_id
     BEGIN ${add('OLD', k, -1)} ${add('NEW', k, 1)} END`,
  ];
}

// Counts of the memories already in the file (run once, in the migration's transaction).
const backfill = (k: CountedKind) =>
  `INSERT OR IGNORE INTO memory_counts (agent_id, kind, key, n)
   SELECT agent_id, '${k.kind}', key, count(*) FROM (SELECT agent_id, ${k.key('m')} AS key FROM memories AS m)
   WHERE key IS NOT NULL GROUP BY agent_id, key`;

export const memoryCounts: Migration = {
  version: 17,
  name: 'memory-counts',
  statements: [
    `CREATE TABLE IF NOT EXISTS memory_counts (
      agent_id TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('live', 'never', 'forgotten', 'expiring', 'day')),
      -- No declared type: model names stay text and days stay integers (no affinity conversion).
      key NOT NULL,
      n INTEGER NOT NULL,
      PRIMARY KEY (agent_id, kind, key)
    ) WITHOUT ROWID`,
    ...KINDS.map(backfill),
    ...KINDS.flatMap(triggers),
    `CREATE TABLE IF NOT EXISTS embedder_identities (
      vector_key TEXT PRIMARY KEY,
      model TEXT NOT NULL,
      dimensions INTEGER NOT NULL CHECK (dimensions > 0),
      first_used_at INTEGER NOT NULL,
      last_used_at INTEGER NOT NULL,
      UNIQUE (model, dimensions)
    )`,
    // What the file's vectors already are: one identity per model name, with the dimensions of its
    // first vector (read through the (agent_id, model, seq) index, not by scanning vectors).
    `INSERT OR IGNORE INTO embedder_identities (vector_key, model, dimensions, first_used_at, last_used_at)
     SELECT e.model, e.model, e.dimensions, e.created_at, e.created_at FROM embeddings AS e
     WHERE e.seq IN (SELECT min(seq) FROM embeddings GROUP BY agent_id, model)
     ORDER BY e.seq`,
    `CREATE TABLE IF NOT EXISTS embedding_migrations (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      from_key TEXT,
      to_key TEXT NOT NULL,
      changed_at INTEGER NOT NULL,
      finished_at INTEGER
    )`,
    `CREATE TABLE IF NOT EXISTS embedding_reembeds (
      agent_id TEXT NOT NULL,
      vector_key TEXT NOT NULL,
      requested_at INTEGER NOT NULL,
      PRIMARY KEY (agent_id, vector_key)
    )`,
  ],
};
