import type { Migration } from './migration.js';
import { POSTGRES_DREAMING_PASSES } from './postgres/dreaming.js';

// The Dreaming control plane: per-agent state, passes and their ordered tool calls, what evidence
// each source has delivered (so a long transcript resumes where it stopped), exclusions and reviews
// of evidence, detected contradictions, and the MEMORY.md projection's revisions.
export const dreamingPasses: Migration = {
  version: 7,
  name: 'dreaming-passes',
  statements: [
    `CREATE TABLE IF NOT EXISTS dreaming_state (
      agent_id TEXT PRIMARY KEY,
      consecutive_failures INTEGER NOT NULL DEFAULT 0,
      last_failure_at INTEGER,
      last_pass_at INTEGER,
      last_mode TEXT,
      runbook TEXT NOT NULL DEFAULT '',
      updated_at INTEGER NOT NULL
    )`,
    `CREATE TABLE IF NOT EXISTS dreaming_passes (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      trigger TEXT NOT NULL,
      mode TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'skipped')),
      usage_json TEXT NOT NULL DEFAULT '{}',
      mutations_json TEXT NOT NULL DEFAULT '{}',
      summary TEXT,
      error TEXT,
      evidence_window_json TEXT NOT NULL DEFAULT '[]',
      runbook_json TEXT NOT NULL DEFAULT '{}',
      started_at INTEGER NOT NULL,
      finished_at INTEGER
    )`,
    `CREATE INDEX IF NOT EXISTS dreaming_passes_agent ON dreaming_passes (agent_id, started_at)`,
    `CREATE TABLE IF NOT EXISTS dreaming_tool_calls (
      seq INTEGER PRIMARY KEY,
      pass_id TEXT NOT NULL REFERENCES dreaming_passes (id) ON DELETE CASCADE,
      ordinal INTEGER NOT NULL,
      tool TEXT NOT NULL,
      arguments TEXT NOT NULL,
      result TEXT NOT NULL,
      ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
      duration_ms REAL NOT NULL,
      created_at INTEGER NOT NULL,
      UNIQUE (pass_id, ordinal)
    )`,
    // How far each evidence source has been delivered to passes, in characters of its rendering.
    `CREATE TABLE IF NOT EXISTS dreaming_evidence_offsets (
      agent_id TEXT NOT NULL,
      source_ref TEXT NOT NULL,
      delivered_chars INTEGER NOT NULL,
      total_chars INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (agent_id, source_ref)
    )`,
    `CREATE TABLE IF NOT EXISTS dreaming_evidence_exclusions (
      agent_id TEXT NOT NULL,
      source_ref TEXT NOT NULL,
      reason TEXT NOT NULL,
      pass_id TEXT,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (agent_id, source_ref)
    )`,
    `CREATE TABLE IF NOT EXISTS dreaming_evidence_reviews (
      seq INTEGER PRIMARY KEY,
      agent_id TEXT NOT NULL,
      source_ref TEXT NOT NULL,
      pass_id TEXT,
      verdict TEXT NOT NULL,
      notes TEXT,
      created_at INTEGER NOT NULL
    )`,
    `CREATE TABLE IF NOT EXISTS ontology_contradictions (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      claim_id TEXT NOT NULL,
      proposal_id TEXT,
      details TEXT NOT NULL,
      status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
      created_at INTEGER NOT NULL,
      resolved_at INTEGER
    )`,
    `CREATE TABLE IF NOT EXISTS memory_md_heads (
      agent_id TEXT PRIMARY KEY,
      revision INTEGER NOT NULL,
      content TEXT NOT NULL,
      content_hash TEXT NOT NULL,
      entries_json TEXT NOT NULL,
      pass_id TEXT,
      updated_at INTEGER NOT NULL
    )`,
  ],
  postgres: POSTGRES_DREAMING_PASSES,
};
