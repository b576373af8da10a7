import type { SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { presentTablesProgram } from './table-presence.js';

// Orphan entities: active, unpinned, unchanged since `before`, and nothing points at them (no
// mention, no active claim, no active link). Walked from a cursor, a bounded range per step: by
// rowid on SQLite; PostgreSQL has no rowid, so there the cursor counts entities in id order and a
// step takes the next `scanRows` of them (an index-only walk; an entity added meanwhile may shift
// the range by one and is then looked at in the next round).
function orphanConditions(present: ReadonlySet<string>): string {
  const clauses = [
    "e.status = 'active' AND e.pinned = 0 AND e.updated_at < ?",
    'NOT EXISTS (SELECT 1 FROM memory_entity_mentions AS x WHERE x.entity_id = e.id)',
  ];
  if (present.has('entity_attributes'))
    clauses.push("NOT EXISTS (SELECT 1 FROM entity_attributes AS c WHERE c.entity_id = e.id AND c.status = 'active')");
  if (present.has('entity_dependencies'))
    clauses.push(`NOT EXISTS (SELECT 1 FROM entity_dependencies AS d
      WHERE (d.source_entity_id = e.id OR d.target_entity_id = e.id) AND d.status = 'active')`);
  return clauses.join('\n    AND ');
}

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
  return runSqliteProgram(sql, archiveOrphanEntitiesProgram(range, before, now));
}

/** {@link archiveOrphanEntities} as a program (both dialects; see above for PostgreSQL's cursor). */
export function* archiveOrphanEntitiesProgram(
  range: { after: number; scanRows: number },
  before: number,
  now: number,
): Program<{ archived: number; next: number }> {
  const until = range.after + range.scanRows;
  const where = orphanConditions(yield* presentTablesProgram(['entity_attributes', 'entity_dependencies']));
  const sqlite = `SELECT e.id FROM entities AS e WHERE e.rowid > ? AND e.rowid <= ? AND ${where}`;
  let n = 0;
  const postgres = `SELECT e.id FROM (SELECT id FROM entities ORDER BY id COLLATE "C" OFFSET ? LIMIT ?) AS r
    JOIN entities AS e ON e.id = r.id WHERE ${where}`.replace(/\?/g, () => `$${++n}`);
  const orphans = yield* all<{ id: string }>(
    perDialect(
      { sql: sqlite, parameters: [range.after, until, before] },
      { sql: postgres, parameters: [range.after, range.scanRows, before] },
    ),
  );
  let archived = 0;
  for (const { id } of orphans)
    archived += (yield* run(
      portable("UPDATE entities SET status = 'archived', updated_at = ? WHERE id = ? AND status = 'active'", now, id),
    )).changes;
  const last =
    (yield* get<{ n: number | null }>(
      perDialect(
        { sql: 'SELECT max(rowid) AS n FROM entities', parameters: [] },
        { sql: 'SELECT count(*) AS n FROM entities', parameters: [] },
      ),
    ))?.n ?? 0;
  return { archived, next: until >= last ? 0 : until };
}

/** Deletes up to `limit` cold copies archived before `before`; returns how many. */
export function pruneColdCopies(sql: SqlExecutor, before: number, limit: number): number {
  return runSqliteProgram(sql, pruneColdCopiesProgram(before, limit));
}

/** {@link pruneColdCopies} as a program (both dialects: rowid on SQLite, ctid on PostgreSQL). */
export function* pruneColdCopiesProgram(before: number, limit: number): Program<number> {
  const parameters = [before, limit];
  return (yield* run(
    perDialect(
      {
        sql: 'DELETE FROM memories_cold WHERE rowid IN (SELECT rowid FROM memories_cold WHERE archived_at < ? LIMIT ?)',
        parameters,
      },
      {
        sql: 'DELETE FROM memories_cold WHERE ctid IN (SELECT ctid FROM memories_cold WHERE archived_at < $1 LIMIT $2)',
        parameters,
      },
    ),
  )).changes;
}

/** Deletes up to `limit` archived jobs archived before `before` (oldest first, by index); returns how many. */
export function pruneJobArchive(sql: SqlExecutor, before: number, limit: number): number {
  return runSqliteProgram(sql, pruneJobArchiveProgram(before, limit));
}

/** {@link pruneJobArchive} as a program (both dialects). */
export function* pruneJobArchiveProgram(before: number, limit: number): Program<number> {
  return (yield* run(
    portable(
      `DELETE FROM memory_jobs_archive WHERE id IN
        (SELECT id FROM memory_jobs_archive WHERE archived_at < ? ORDER BY archived_at LIMIT ?)`,
      before,
      limit,
    ),
  )).changes;
}
