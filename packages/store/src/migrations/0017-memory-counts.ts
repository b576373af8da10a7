import type { Migration } from './migration.js';
import { POSTGRES_EMBEDDERS } from './postgres/embedders.js';
import { POSTGRES_MEMORY_COUNTS } from './postgres/memories.js';

// Maintained per-scope memory counts and the embedder's identity (issue 13, parts 5 and 6).
//
// - `memory_counts`: how many memories per agent and kind, split by (model, recalled, day).
//   Triggers on `memories` keep it in step with every insert, delete and update of the columns it
//   counts, so memory health and recall's vector coverage read a few rows instead of walking the
//   scope's index (34 ms at 91k memories). Kinds: `live` (split by embedding model, '' for none;
//   whether ever recalled; the UTC day of the last access or, never accessed, of creation: stale
//   memories are a range of days), `forgotten` and `expiring` (live with an expiry; not split).
//   A live memory is one row of one histogram, so a write costs one upsert, not one per count;
//   each trigger fires only when its own row changes (an access on the same day as the last one,
//   once recalled, changes nothing here).
// - `embedder_identities`: every (model, dimensions) an engine has opened this file with, and the
//   key its vectors are stored under: the model name, or `model#dims` when the same model name
//   already means other dimensions (so vectors of two sizes never share a key).
// - `embedding_migrations`: each change of embedder identity an engine saw at open.
// - `embedding_reembeds`: re-embedding a host asked for (`engine.maintenance.reembed`), per scope
//   ('' = every scope), kept until done so it survives a crash.

// The row the counts are taken from: NEW or OLD in a trigger, the table's alias in the backfill.
type Row = string;
interface CountedKind {
  readonly kind: string;
  /** Whether the row counts in this kind. */
  readonly present: (r: Row) => string;
  /** Its split: model, recalled (0/1) and day. */
  readonly split: (r: Row) => readonly [string, string, string];
  /** Columns whose change can move a memory in or out of this kind, or between its rows. */
  readonly columns: readonly string[];
}

const UNSPLIT = (): readonly [string, string, string] => ["''", '0', '0'];

const KINDS: readonly CountedKind[] = [
  {
    kind: 'live',
    present: (r) => `${r}.is_deleted = 0`,
    split: (r) => [
      `coalesce(${r}.embedding_model, '')`,
      `(${r}.last_accessed IS NOT NULL)`,
      `coalesce(${r}.last_accessed, ${r}.created_at) / 86400000`,
    ],
    columns: ['is_deleted', 'embedding_model', 'last_accessed', 'created_at'],
  },
  { kind: 'forgotten', present: (r) => `${r}.is_deleted = 1`, split: UNSPLIT, columns: ['is_deleted'] },
  {
    kind: 'expiring',
    present: (r) => `(${r}.is_deleted = 0 AND ${r}.expires_at IS NOT NULL)`,
    split: UNSPLIT,
    columns: ['is_deleted', 'expires_at'],
  },
];

const add = (r: Row, k: CountedKind, delta: number) =>
  `INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n)
     SELECT ${r}.agent_id, '${k.kind}', ${k.split(r).join(', ')}, ${delta} WHERE ${k.present(r)}
     ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + ${delta};`;

// The update trigger's condition: the row enters or leaves the kind, or moves within it.
function moved(k: CountedKind): string {
  const before = k.split('OLD');
  const after = k.split('NEW');
  const within = before.map((b, i) => `${b} IS NOT ${after[i]}`).join(' OR ');
  return `(${k.present('OLD')}) IS NOT (${k.present('NEW')}) OR OLD.agent_id IS NOT NEW.agent_id
       OR ((${k.present('NEW')}) AND (${within}))`;
}

function triggers(k: CountedKind): string[] {
  const name = `memory_counts_${k.kind}`;
  return [
    `CREATE TRIGGER IF NOT EXISTS ${name}_insert AFTER INSERT ON memories WHEN ${k.present('NEW')}
     BEGIN ${add('NEW', k, 1)} END`,
    `CREATE TRIGGER IF NOT EXISTS ${name}_delete AFTER DELETE ON memories WHEN ${k.present('OLD')}
     BEGIN ${add('OLD', k, -1)} END`,
    `CREATE TRIGGER IF NOT EXISTS ${name}_update AFTER UPDATE OF agent_id, ${k.columns.join(', ')} ON memories
     WHEN ${moved(k)}
     BEGIN ${add('OLD', k, -1)} ${add('NEW', k, 1)} END`,
  ];
}

// Counts of the memories already in the file (run once, in the migration's transaction).
const backfill = (k: CountedKind) =>
  `INSERT OR IGNORE INTO memory_counts (agent_id, kind, model, recalled, day, n)
   SELECT mem.agent_id, '${k.kind}', ${k.split('mem').join(', ')}, count(*) FROM memories AS mem
   WHERE ${k.present('mem')} GROUP BY 1, 2, 3, 4, 5`;

export const memoryCounts: Migration = {
  version: 17,
  name: 'memory-counts',
  statements: [
    `CREATE TABLE IF NOT EXISTS memory_counts (
      agent_id TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('live', 'forgotten', 'expiring')),
      model TEXT NOT NULL,
      recalled INTEGER NOT NULL,
      day INTEGER NOT NULL,
      n INTEGER NOT NULL,
      PRIMARY KEY (agent_id, kind, model, recalled, day)
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
  postgres: [...POSTGRES_MEMORY_COUNTS, ...POSTGRES_EMBEDDERS],
};
