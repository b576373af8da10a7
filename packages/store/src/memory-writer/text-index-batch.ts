import type { SqlExecutor } from '../internal/sql.js';
import type { Program } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { indexTextRowsProgram } from '../repositories/text-index-writes.js';

/**
 * The scoped text index rows of the memories one writer call inserts, written together at the end
 * of the call: the same postings and scope counts the insert trigger writes (migration 13), but one
 * scope lookup and one count update per agent instead of per memory, postings in term order, many
 * per statement, and terms computed in plain JavaScript instead of through a table-valued function.
 */
export class TextIndexBatch {
  readonly #byAgent = new Map<string, Array<{ row: number; text: string }>>();

  /** A live memory inserted in this call (`row` is its seq). */
  add(agentId: string, row: number, content: string): void {
    let rows = this.#byAgent.get(agentId);
    if (!rows) {
      rows = [];
      this.#byAgent.set(agentId, rows);
    }
    rows.push({ row, text: content });
  }

  /** Writes the postings and counts of every memory added; the batch is empty afterwards. */
  flush(sql: SqlExecutor): void {
    runSqliteProgram(sql, this.flushProgram());
  }

  /** {@link flush} as a program (both dialects). */
  *flushProgram(): Program<void> {
    for (const [agentId, rows] of this.#byAgent) yield* indexTextRowsProgram('memory', agentId, rows);
    this.#byAgent.clear();
  }
}
