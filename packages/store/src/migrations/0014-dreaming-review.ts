import type { Migration } from './migration.js';
import { POSTGRES_DREAMING_REVIEW } from './postgres/dreaming.js';
import { POSTGRES_EMBEDDING_PROJECTIONS } from './postgres/embedders.js';

// The review side of Dreaming: every applied operation keeps the images of every row it wrote
// (before and after), so a pass can be reverted row by row; proposals record who decided them and
// why; a revert is recorded once, and the provenance rows it took back point at it. Reads page the
// passes, provenance and proposals of one agent by index. The embedding map's projection is cached.
export const dreamingReview: Migration = {
  version: 14,
  name: 'dreaming-review',
  statements: [
    // JSON: [{ kind, key, before, after }] for every row the operation wrote (null = no row).
    `ALTER TABLE dreaming_provenance ADD COLUMN changes_json TEXT`,
    `ALTER TABLE dreaming_provenance ADD COLUMN proposal_id TEXT`,
    `ALTER TABLE dreaming_provenance ADD COLUMN reverted_at INTEGER`,
    `ALTER TABLE dreaming_provenance ADD COLUMN revert_id TEXT`,
    `CREATE INDEX IF NOT EXISTS dreaming_provenance_pass ON dreaming_provenance (agent_id, pass_id, seq)`,
    `CREATE INDEX IF NOT EXISTS dreaming_provenance_agent_target ON dreaming_provenance (agent_id, target_type, target_id, seq)`,
    `ALTER TABLE ontology_proposals ADD COLUMN decided_by TEXT`,
    `ALTER TABLE ontology_proposals ADD COLUMN decision_reason TEXT`,
    `CREATE INDEX IF NOT EXISTS ontology_proposals_page ON ontology_proposals (agent_id, created_at, id)`,
    `CREATE INDEX IF NOT EXISTS ontology_contradictions_proposal ON ontology_contradictions (proposal_id)`,
    `CREATE INDEX IF NOT EXISTS dreaming_attention_page ON dreaming_attention (agent_id, created_at, id)`,
    `CREATE INDEX IF NOT EXISTS entities_agent_name ON entities (agent_id, canonical_name, id)`,
    `CREATE TABLE IF NOT EXISTS dreaming_reverts (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      pass_id TEXT NOT NULL,
      actor TEXT NOT NULL,
      reason TEXT,
      operations INTEGER NOT NULL,
      rows_restored INTEGER NOT NULL,
      created_at INTEGER NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS dreaming_reverts_pass ON dreaming_reverts (agent_id, pass_id)`,
    // The inspector's embedding map: a 2-D projection per agent and embedder model, replaced when
    // the vectors it was computed from change (signature: their count, newest row and the limit).
    `CREATE TABLE IF NOT EXISTS embedding_projections (
      agent_id TEXT NOT NULL,
      model TEXT NOT NULL,
      signature TEXT NOT NULL,
      point_count INTEGER NOT NULL,
      result_json TEXT NOT NULL,
      computed_ms REAL NOT NULL,
      cached_at INTEGER NOT NULL,
      PRIMARY KEY (agent_id, model)
    )`,
  ],
  postgres: [...POSTGRES_DREAMING_REVIEW, ...POSTGRES_EMBEDDING_PROJECTIONS],
};
