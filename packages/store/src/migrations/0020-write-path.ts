import type { Migration } from './migration.js';

// Writes keep pace (issue 20 item 5).
//
// - The FTS5 indexes of memories, prospective hints and transcript turns go, with their triggers:
//   since migration 13 every reader (recall, `transcripts.search`, hints, the window count) ranks
//   from the scoped text index, and keeping FTS5 current cost about a fifth of a bulk write and
//   most of a purge's longest stalls (its segment merges). Dropping them frees their pages, which
//   `secure_delete` zeroes, so the tokens of earlier deletions leave the file too. `memories.fts_scope`
//   (a virtual column, never stored) stays: dropping a column rewrites the table.
// - A memory's postings are written by the memory writer for its whole batch, from JavaScript, when
//   it says so (`text_index_deferred()` is then 1 on its connection, for the inserts of that batch
//   only). Every other insert (imports of exported scopes, raw SQL in tests) is still indexed by
//   the trigger, with the same rows and counts. Updates and deletes keep their triggers.
export const writePath: Migration = {
  version: 20,
  name: 'write-path',
  statements: [
    'DROP TRIGGER IF EXISTS memories_ai',
    'DROP TRIGGER IF EXISTS memories_ad',
    'DROP TRIGGER IF EXISTS memories_au',
    'DROP TABLE IF EXISTS memories_fts',
    'DROP TRIGGER IF EXISTS memory_hints_ai',
    'DROP TRIGGER IF EXISTS memory_hints_ad',
    'DROP TABLE IF EXISTS memory_hints_fts',
    'DROP TRIGGER IF EXISTS session_transcript_turns_ai',
    'DROP TRIGGER IF EXISTS session_transcript_turns_ad',
    'DROP TABLE IF EXISTS session_transcript_turns_fts',
    'DROP TRIGGER IF EXISTS memories_terms_ai',
    `CREATE TRIGGER IF NOT EXISTS memories_terms_ai AFTER INSERT ON memories
      WHEN new.is_deleted = 0 AND text_index_deferred() = 0 BEGIN
  INSERT OR IGNORE INTO text_scopes (corpus, agent_id) SELECT 'memory', new.agent_id;
  INSERT OR IGNORE INTO text_postings (scope, term, row, tf, len)
    SELECT (SELECT scope FROM text_scopes WHERE corpus = 'memory' AND agent_id = new.agent_id), t.term, new.seq, t.tf, t.len
    FROM text_terms(new.content) AS t;
  UPDATE text_scopes SET docs = docs + 1, tokens = tokens + text_length(new.content)
    WHERE corpus = 'memory' AND agent_id = new.agent_id;
END`,
  ],
};
