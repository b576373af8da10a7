import type { Migration } from './migration.js';
import { POSTGRES_TEXT_INDEX } from './postgres/text-index.js';

// A text index whose ranking statistics are per agent (issue 12). FTS5's bm25() takes document
// counts, term frequencies across documents and average lengths from the whole file, so one agent's
// scores and order moved when another agent wrote the same word. Here every agent (per corpus:
// memories, transcript turns, hints) is a scope with its own postings and counts; BM25 is computed
// from them alone. Terms come from `text_terms(text)`, a JavaScript function the store registers on
// its connection (tokenize, fold diacritics, Porter-stem), so index and query agree by construction.
// Triggers keep it current on every write path, as the FTS5 triggers do; only live memories are
// indexed. The FTS5 tables stay (other readers use them).

const scopeOf = (corpus: string, agent: string) =>
  `(SELECT scope FROM text_scopes WHERE corpus = '${corpus}' AND agent_id = ${agent})`;

/** Statements that add one row's text to its scope (inside a trigger body). */
function addRow(corpus: string, agent: string, row: string, text: string, when = '1'): string[] {
  return [
    `INSERT OR IGNORE INTO text_scopes (corpus, agent_id) SELECT '${corpus}', ${agent} WHERE ${when};`,
    `INSERT OR IGNORE INTO text_postings (scope, term, row, tf, len)
       SELECT ${scopeOf(corpus, agent)}, t.term, ${row}, t.tf, t.len FROM text_terms(${text}) AS t WHERE ${when};`,
    `UPDATE text_scopes SET docs = docs + 1, tokens = tokens + text_length(${text})
       WHERE ${when} AND corpus = '${corpus}' AND agent_id = ${agent};`,
  ];
}

/** Statements that remove one row's text from its scope (inside a trigger body). */
function removeRow(corpus: string, agent: string, row: string, text: string, when = '1'): string[] {
  return [
    `DELETE FROM text_postings
       WHERE ${when} AND scope = ${scopeOf(corpus, agent)} AND term IN (SELECT term FROM text_terms(${text})) AND row = ${row};`,
    `UPDATE text_scopes SET docs = docs - 1, tokens = tokens - text_length(${text})
       WHERE ${when} AND corpus = '${corpus}' AND agent_id = ${agent};`,
  ];
}

const body = (statements: string[]) => `BEGIN\n  ${statements.join('\n  ')}\nEND`;

/** Index every existing row of a table into its scopes (idempotent: postings are keyed). */
function backfill(corpus: string, table: string, text: string, live: string): string[] {
  return [
    `INSERT OR IGNORE INTO text_scopes (corpus, agent_id) SELECT DISTINCT '${corpus}', agent_id FROM ${table} WHERE ${live}`,
    `INSERT OR IGNORE INTO text_postings (scope, term, row, tf, len)
       SELECT s.scope, t.term, x.seq, t.tf, t.len
       FROM ${table} AS x JOIN text_scopes AS s ON s.corpus = '${corpus}' AND s.agent_id = x.agent_id, text_terms(x.${text}) AS t
       WHERE ${live.replaceAll('is_deleted', 'x.is_deleted')}`,
    `UPDATE text_scopes SET
       docs = (SELECT count(*) FROM ${table} AS x WHERE x.agent_id = text_scopes.agent_id AND ${live.replaceAll('is_deleted', 'x.is_deleted')}),
       tokens = (SELECT coalesce(sum(text_length(x.${text})), 0) FROM ${table} AS x WHERE x.agent_id = text_scopes.agent_id AND ${live.replaceAll('is_deleted', 'x.is_deleted')})
     WHERE corpus = '${corpus}'`,
  ];
}

export const scopedTextIndex: Migration = {
  version: 13,
  name: 'scoped-text-index',
  statements: [
    `CREATE TABLE IF NOT EXISTS text_scopes (
      scope INTEGER PRIMARY KEY,
      corpus TEXT NOT NULL CHECK (corpus IN ('memory', 'turn', 'hint')),
      agent_id TEXT NOT NULL,
      docs INTEGER NOT NULL DEFAULT 0,
      tokens INTEGER NOT NULL DEFAULT 0,
      UNIQUE (corpus, agent_id)
    )`,
    `CREATE TABLE IF NOT EXISTS text_postings (
      scope INTEGER NOT NULL,
      term TEXT NOT NULL,
      row INTEGER NOT NULL,
      tf INTEGER NOT NULL,
      len INTEGER NOT NULL,
      PRIMARY KEY (scope, term, row)
    ) WITHOUT ROWID`,
    `CREATE TRIGGER IF NOT EXISTS memories_terms_ai AFTER INSERT ON memories WHEN new.is_deleted = 0 ${body(
      addRow('memory', 'new.agent_id', 'new.seq', 'new.content'),
    )}`,
    `CREATE TRIGGER IF NOT EXISTS memories_terms_ad AFTER DELETE ON memories WHEN old.is_deleted = 0 ${body(
      removeRow('memory', 'old.agent_id', 'old.seq', 'old.content'),
    )}`,
    `CREATE TRIGGER IF NOT EXISTS memories_terms_au AFTER UPDATE OF content, is_deleted ON memories
      WHEN (old.is_deleted = 0 OR new.is_deleted = 0)
        AND (old.is_deleted IS NOT new.is_deleted OR old.content IS NOT new.content) ${body([
          ...removeRow('memory', 'old.agent_id', 'old.seq', 'old.content', 'old.is_deleted = 0'),
          ...addRow('memory', 'new.agent_id', 'new.seq', 'new.content', 'new.is_deleted = 0'),
        ])}`,
    `CREATE TRIGGER IF NOT EXISTS transcript_turns_terms_ai AFTER INSERT ON session_transcript_turns ${body(
      addRow('turn', 'new.agent_id', 'new.seq', 'new.content'),
    )}`,
    `CREATE TRIGGER IF NOT EXISTS transcript_turns_terms_ad AFTER DELETE ON session_transcript_turns ${body(
      removeRow('turn', 'old.agent_id', 'old.seq', 'old.content'),
    )}`,
    `CREATE TRIGGER IF NOT EXISTS memory_hints_terms_ai AFTER INSERT ON memory_hints ${body(
      addRow('hint', 'new.agent_id', 'new.seq', 'new.hint'),
    )}`,
    `CREATE TRIGGER IF NOT EXISTS memory_hints_terms_ad AFTER DELETE ON memory_hints ${body(
      removeRow('hint', 'old.agent_id', 'old.seq', 'old.hint'),
    )}`,
    ...backfill('memory', 'memories', 'content', 'is_deleted = 0'),
    ...backfill('turn', 'session_transcript_turns', 'content', '1'),
    ...backfill('hint', 'memory_hints', 'hint', '1'),
  ],
  postgres: [...POSTGRES_TEXT_INDEX],
};
