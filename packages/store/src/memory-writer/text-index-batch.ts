import type { SqlExecutor } from '../internal/sql.js';
import {
  addTextScopeCounts,
  ensureTextScope,
  insertTextPostings,
  type TextPosting,
} from '../repositories/text-index-writes.js';
import { textTerms } from '../text-terms.js';

/**
 * The scoped text index rows of the memories one writer call inserts, written together at the end
 * of the call: the same postings and scope counts the insert trigger writes (migration 13), but one
 * scope lookup and one count update per agent instead of per memory, postings in term order, many
 * per statement, and terms computed in plain JavaScript instead of through a table-valued function.
 */
export class TextIndexBatch {
  readonly #byAgent = new Map<string, Array<{ row: number; content: string }>>();

  /** A live memory inserted in this call (`row` is its seq). */
  add(agentId: string, row: number, content: string): void {
    let rows = this.#byAgent.get(agentId);
    if (!rows) {
      rows = [];
      this.#byAgent.set(agentId, rows);
    }
    rows.push({ row, content });
  }

  /** Writes the postings and counts of every memory added; the batch is empty afterwards. */
  flush(sql: SqlExecutor): void {
    for (const [agentId, rows] of this.#byAgent) {
      const postings: TextPosting[] = [];
      let tokens = 0;
      for (const { row, content } of rows) {
        const { counts, length } = textTerms(content);
        tokens += length;
        for (const [term, tf] of counts) postings.push({ term, row, tf, len: length });
      }
      postings.sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : a.row - b.row));
      const scope = ensureTextScope(sql, 'memory', agentId);
      insertTextPostings(sql, scope, postings);
      addTextScopeCounts(sql, scope, rows.length, tokens);
    }
    this.#byAgent.clear();
  }
}
