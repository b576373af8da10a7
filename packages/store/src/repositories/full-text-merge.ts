import { raw, type SqlExecutor } from '../internal/sql.js';

/** The full-text indexes whose segments can be merged. */
export type FullTextIndex = 'memories_fts' | 'memory_hints_fts' | 'session_transcript_turns_fts';

const MERGE: Readonly<Record<FullTextIndex, string>> = {
  memories_fts: "INSERT INTO memories_fts (memories_fts, rank) VALUES ('merge', ?)",
  memory_hints_fts: "INSERT INTO memory_hints_fts (memory_hints_fts, rank) VALUES ('merge', ?)",
  session_transcript_turns_fts:
    "INSERT INTO session_transcript_turns_fts (session_transcript_turns_fts, rank) VALUES ('merge', ?)",
};

/**
 * One bounded step of a full merge of a full-text index (FTS5 `merge` with a negative page count:
 * every segment is merged as if on one level, `pages` pages written per step). Repeated until it
 * returns false, the index is one segment and the tokens of deleted rows are gone from it (with
 * `secure_delete` the freed pages are zeroed). `incremental` (positive page count) only merges
 * levels that have filled up: between the many small commits of a purge it keeps FTS5 from
 * reaching a crisis merge (all segments of a level at once, 100+ ms) inside a commit. Returns
 * whether this step did any work.
 */
export function mergeFullTextStep(
  sql: SqlExecutor,
  index: FullTextIndex,
  pages: number,
  mode: 'full' | 'incremental' = 'full',
): boolean {
  const before = sql.get<{ n: number }>(raw('SELECT total_changes() AS n'))?.n ?? 0;
  const n = Math.max(16, Math.floor(pages));
  sql.run(raw(MERGE[index], mode === 'full' ? -n : n));
  const after = sql.get<{ n: number }>(raw('SELECT total_changes() AS n'))?.n ?? 0;
  // FTS5 documents it: a change count delta of 2 or more means the merge wrote something.
  return after - before >= 2;
}
