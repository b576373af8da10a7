import { raw, type SqlExecutor } from '../internal/sql.js';

// Orphan entities: active, unpinned, unchanged since `before`, and nothing points at them (no
// mention, no active claim, no active link). Walked by rowid from a cursor, a bounded range per step.
const ORPHANS = `
  SELECT e.rowid AS rowid, e.id FROM entities AS e
  WHERE e.rowid > ? AND e.rowid <= ? AND e.status = 'active' AND e.pinned = 0 AND e.updated_at < ?
    AND NOT EXISTS (SELECT 1 FROM memory_entity_mentions AS x WHERE x.entity_id = e.id)
    AND NOT EXISTS (SELECT 1 FROM entity_attributes AS c WHERE c.entity_id = e.id AND c.status = 'active')
    AND NOT EXISTS (SELECT 1 FROM entity_dependencies AS d
      WHERE (d.source_entity_id = e.id OR d.target_entity_id = e.id) AND d.status = 'active')`;

/**
 * Archives the orphan entities in the rowid range (after, after + scanRows]; returns how many and
 * where the next step starts (0 once past the last entity).
 */
export function archiveOrphanEntities(
  sql: SqlExecutor,
  range: { after: number; scanRows: number },
  before: number,
  now: number,
): { archived: number; next: number } {
  const until = range.after + range.scanRows;
  let archived = 0;
  for (const { id } of sql.all<{ rowid: number; id: string }>(raw(ORPHANS, range.after, until, before)))
    archived += sql.run(
      raw("UPDATE entities SET status = 'archived', updated_at = ? WHERE id = ? AND status = 'active'", now, id),
    ).changes;
  const last = sql.get<{ n: number | null }>(raw('SELECT max(rowid) AS n FROM entities'))?.n ?? 0;
  return { archived, next: until >= last ? 0 : until };
}

/** Deletes up to `limit` cold copies archived before `before`; returns how many. */
export function pruneColdCopies(sql: SqlExecutor, before: number, limit: number): number {
  return sql.run(
    raw(
      'DELETE FROM memories_cold WHERE rowid IN (SELECT rowid FROM memories_cold WHERE archived_at < ? LIMIT ?)',
      before,
      limit,
    ),
  ).changes;
}

/** Deletes up to `limit` archived jobs archived before `before` (oldest first, by index); returns how many. */
export function pruneJobArchive(sql: SqlExecutor, before: number, limit: number): number {
  return sql.run(
    raw(
      `DELETE FROM memory_jobs_archive WHERE id IN
        (SELECT id FROM memory_jobs_archive WHERE archived_at < ? ORDER BY archived_at LIMIT ?)`,
      before,
      limit,
    ),
  ).changes;
}
