import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import { type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { canonicalEntityName } from './entities.js';

/** A host reference a memory is linked to (a contact, a thread, a project...). */
export interface LinkRef {
  readonly type: string;
  readonly refId: string;
  readonly label?: string | undefined;
}

const INSERT_LINK =
  'INSERT OR IGNORE INTO memory_links (memory_id, agent_id, ref_type, ref_id, label, label_key) VALUES (?, ?, ?, ?, ?, ?)';
const INSERT_LINK_PG = `INSERT INTO memory_links (memory_id, agent_id, ref_type, ref_id, label, label_key)
  VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`;

/** Replaces a memory's link rows with `refs`. */
export function replaceMemoryLinks(
  sql: SqlExecutor,
  agentId: string,
  memoryId: string,
  refs: readonly LinkRef[],
): void {
  runSqliteProgram(sql, replaceMemoryLinksProgram(agentId, memoryId, refs));
}

/** {@link replaceMemoryLinks} as a program (both dialects). */
export function* replaceMemoryLinksProgram(agentId: string, memoryId: string, refs: readonly LinkRef[]): Program<void> {
  yield* run(portable('DELETE FROM memory_links WHERE memory_id = ?', memoryId));
  for (const ref of refs) {
    const label = ref.label ?? null;
    const parameters = [
      memoryId,
      agentId,
      ref.type,
      ref.refId,
      label,
      label === null ? null : canonicalEntityName(label),
    ];
    yield* run(perDialect({ sql: INSERT_LINK, parameters }, { sql: INSERT_LINK_PG, parameters }));
  }
}

/** Ids of memories (live or not) linked to one host reference, in `agentId`'s scope. */
export function findMemoryIdsByLink(sql: SqlExecutor, agentId: string, refType: string, refId: string): string[] {
  return sql
    .all(
      queryBuilder
        .selectFrom('memory_links')
        .select('memory_id')
        .where('agent_id', '=', agentId)
        .where('ref_type', '=', refType)
        .where('ref_id', '=', refId)
        .orderBy('memory_id')
        .compile(),
    )
    .map((r) => r.memory_id);
}
