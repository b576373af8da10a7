import { textTerms } from '../../src/text-terms.js';

/** What a connection's `prepare(sql).all()` gives (better-sqlite3's `Database`, a `SqliteDatabase`). */
interface Reader {
  prepare(sql: string): { all(): unknown[] };
}

/** The memory corpus of the scoped text index as it is, and as the live rows say it should be. */
export interface MemoryTextIndexCheck {
  readonly actual: { readonly postings: string[]; readonly scopes: Record<string, string> };
  readonly expected: { readonly postings: string[]; readonly scopes: Record<string, string> };
}

/**
 * Reads the memory corpus of the scoped text index (postings, per-agent docs and tokens) and
 * recomputes it from the live `memories` rows: equal when every insert was indexed exactly once
 * (a memory the deferred trigger missed, or one indexed by both the trigger and the writer, shows).
 * @example
 * const { actual, expected } = checkMemoryTextIndex(db);
 * expect(actual).toEqual(expected);
 */
export function checkMemoryTextIndex(db: Reader): MemoryTextIndexCheck {
  const live = db.prepare('SELECT seq, agent_id, content FROM memories WHERE is_deleted = 0').all() as Array<{
    seq: number;
    agent_id: string;
    content: string;
  }>;
  const postings: string[] = [];
  const counts = new Map<string, { docs: number; tokens: number }>();
  for (const row of live) {
    const terms = textTerms(row.content);
    for (const [term, tf] of terms.counts) postings.push(`${row.agent_id} ${term} ${row.seq} ${tf} ${terms.length}`);
    const c = counts.get(row.agent_id) ?? { docs: 0, tokens: 0 };
    counts.set(row.agent_id, { docs: c.docs + 1, tokens: c.tokens + terms.length });
  }
  const indexed = db
    .prepare(
      `SELECT s.agent_id || ' ' || p.term || ' ' || p.row || ' ' || p.tf || ' ' || p.len AS p
       FROM text_postings p JOIN text_scopes s ON s.scope = p.scope WHERE s.corpus = 'memory'`,
    )
    .all() as Array<{ p: string }>;
  const scopes = db
    .prepare(`SELECT agent_id, docs, tokens FROM text_scopes WHERE corpus = 'memory' AND docs > 0`)
    .all() as Array<{ agent_id: string; docs: number; tokens: number }>;
  return {
    actual: {
      postings: indexed.map((r) => r.p).sort(),
      scopes: Object.fromEntries(scopes.map((s) => [s.agent_id, `${s.docs} docs, ${s.tokens} tokens`])),
    },
    expected: {
      postings: postings.sort(),
      scopes: Object.fromEntries([...counts].map(([agent, c]) => [agent, `${c.docs} docs, ${c.tokens} tokens`])),
    },
  };
}
