import type { Migration } from './migration.js';
import { POSTGRES_DREAMING_SEAM } from './postgres/dreaming.js';

// What the Dreaming apply seam writes besides the graph itself: attention records (what a pass
// should look at; hygiene operations must cite one), proposals (shadow mode, review-required and
// contradicting operations), and provenance (every applied operation, with its evidence). Claims
// gain the event-time fields the seam accepts.
export const dreamingSeam: Migration = {
  version: 6,
  name: 'dreaming-seam',
  statements: [
    `CREATE TABLE IF NOT EXISTS dreaming_attention (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('hygiene', 'review_due', 'contested_claim', 'evidence_requeue', 'surprisal')),
      subject_ref TEXT NOT NULL,
      priority INTEGER NOT NULL DEFAULT 50,
      details TEXT NOT NULL DEFAULT '',
      created_by TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      resolved_at INTEGER,
      resolved_by_pass_id TEXT,
      resolution TEXT CHECK (resolution IN ('resolved', 'declined'))
    )`,
    // One open record per agent, kind and subject; resolved ones are kept as history.
    `CREATE UNIQUE INDEX IF NOT EXISTS dreaming_attention_open ON dreaming_attention (agent_id, kind, subject_ref) WHERE resolved_at IS NULL`,
    `CREATE INDEX IF NOT EXISTS dreaming_attention_agent ON dreaming_attention (agent_id, resolved_at, priority)`,
    `CREATE TABLE IF NOT EXISTS ontology_proposals (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      pass_id TEXT,
      actor TEXT NOT NULL,
      operation TEXT NOT NULL,
      operation_json TEXT NOT NULL,
      route TEXT NOT NULL CHECK (route IN ('shadow', 'review_required', 'contradiction')),
      reason TEXT,
      status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected')),
      created_at INTEGER NOT NULL,
      decided_at INTEGER
    )`,
    `CREATE INDEX IF NOT EXISTS ontology_proposals_agent ON ontology_proposals (agent_id, status, created_at)`,
    `CREATE TABLE IF NOT EXISTS dreaming_provenance (
      seq INTEGER PRIMARY KEY,
      agent_id TEXT NOT NULL,
      pass_id TEXT,
      actor TEXT NOT NULL,
      operation TEXT NOT NULL,
      target_type TEXT NOT NULL,
      target_id TEXT NOT NULL,
      evidence_json TEXT NOT NULL,
      confidence REAL,
      -- The target's row before an update or archive (renames, link updates, status changes).
      previous_json TEXT,
      created_at INTEGER NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS dreaming_provenance_target ON dreaming_provenance (target_type, target_id)`,
    `ALTER TABLE entity_attributes ADD COLUMN occurred_at INTEGER`,
    `ALTER TABLE entity_attributes ADD COLUMN time_precision TEXT`,
  ],
  postgres: POSTGRES_DREAMING_SEAM,
};
