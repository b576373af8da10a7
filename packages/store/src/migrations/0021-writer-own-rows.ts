import type { Migration } from './migration.js';

// The memory writer follows its own rows (issue 20 item 5).
//
// - A live memory's insert is counted in `memory_counts` (migration 17) by the same trigger that
//   indexes its text (migration 20), so the writer's inserts, for which that trigger is idle
//   (`text_index_deferred()` is 1 on its connection while it writes), cost no trigger work per row:
//   the writer adds the live counts of its whole call in one upsert per (scope, model, day). The
//   separate live-count insert trigger goes; every other insert (imports of exported scopes, raw SQL
//   in tests) is still indexed and counted by the trigger, with the same rows and counts. The
//   expiring and forgotten insert triggers stay as they are (SQL-only conditions, rare rows).
// - The text index's update trigger is idle while the writer writes too: a content change, forget
//   or recovery through the writer moves the memory's postings itself, as it already does on
//   PostgreSQL (the trigger computed the terms through `text_terms` three times, ~130 µs an update).
//   Updates by any other path are followed by the trigger as before.
//
// SQLite only: on PostgreSQL the writer has always indexed its rows and a plpgsql trigger counts them.
const LIVE_COUNT = `INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n)
    SELECT new.agent_id, 'live', coalesce(new.embedding_model, ''), (new.last_accessed IS NOT NULL),
      coalesce(new.last_accessed, new.created_at) / 86400000, 1 WHERE true
    ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + 1;`;

const scopeOf = (agent: string) => `(SELECT scope FROM text_scopes WHERE corpus = 'memory' AND agent_id = ${agent})`;

export const writerOwnRows: Migration = {
  version: 21,
  name: 'writer-own-rows',
  statements: [
    'DROP TRIGGER IF EXISTS memory_counts_live_insert',
    'DROP TRIGGER IF EXISTS memories_terms_ai',
    `CREATE TRIGGER IF NOT EXISTS memories_terms_ai AFTER INSERT ON memories
      WHEN new.is_deleted = 0 AND text_index_deferred() = 0 BEGIN
  INSERT OR IGNORE INTO text_scopes (corpus, agent_id) SELECT 'memory', new.agent_id;
  INSERT OR IGNORE INTO text_postings (scope, term, row, tf, len)
    SELECT ${scopeOf('new.agent_id')}, t.term, new.seq, t.tf, t.len FROM text_terms(new.content) AS t;
  UPDATE text_scopes SET docs = docs + 1, tokens = tokens + text_length(new.content)
    WHERE corpus = 'memory' AND agent_id = new.agent_id;
  ${LIVE_COUNT}
END`,
    'DROP TRIGGER IF EXISTS memories_terms_au',
    `CREATE TRIGGER IF NOT EXISTS memories_terms_au AFTER UPDATE OF content, is_deleted ON memories
      WHEN (old.is_deleted = 0 OR new.is_deleted = 0)
        AND (old.is_deleted IS NOT new.is_deleted OR old.content IS NOT new.content)
        AND text_index_deferred() = 0 BEGIN
  DELETE FROM text_postings
    WHERE old.is_deleted = 0 AND scope = ${scopeOf('old.agent_id')}
      AND term IN (SELECT term FROM text_terms(old.content)) AND row = old.seq;
  UPDATE text_scopes SET docs = docs - 1, tokens = tokens - text_length(old.content)
    WHERE old.is_deleted = 0 AND corpus = 'memory' AND agent_id = old.agent_id;
  INSERT OR IGNORE INTO text_scopes (corpus, agent_id) SELECT 'memory', new.agent_id WHERE new.is_deleted = 0;
  INSERT OR IGNORE INTO text_postings (scope, term, row, tf, len)
    SELECT ${scopeOf('new.agent_id')}, t.term, new.seq, t.tf, t.len FROM text_terms(new.content) AS t
    WHERE new.is_deleted = 0;
  UPDATE text_scopes SET docs = docs + 1, tokens = tokens + text_length(new.content)
    WHERE new.is_deleted = 0 AND corpus = 'memory' AND agent_id = new.agent_id;
END`,
  ],
};
