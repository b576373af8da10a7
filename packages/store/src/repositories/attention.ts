import { raw, type SqlExecutor } from '../internal/sql.js';

// Knowledge derived from evidence that is gone: active claims citing it, and anything the Dreaming
// seam wrote with it as provenance.
const DERIVED = `
  SELECT 'claim:' || c.id AS subject FROM entity_attributes AS c
  WHERE c.agent_id = ? AND c.status = 'active'
    AND EXISTS (SELECT 1 FROM json_each(c.evidence_json) AS e WHERE e.value ->> '$.sourceRef' IN (SELECT value FROM json_each(?)))
  UNION
  SELECT p.target_type || ':' || p.target_id FROM dreaming_provenance AS p
  WHERE p.agent_id = ? AND p.target_type IN ('entity', 'aspect', 'claim', 'link', 'memory')
    AND EXISTS (SELECT 1 FROM json_each(p.evidence_json) AS e WHERE e.value ->> '$.sourceRef' IN (SELECT value FROM json_each(?)))
  LIMIT 10000`;

/**
 * Opens a `review_due` attention record for every piece of knowledge that cited evidence which was
 * removed (`refs`: `transcript:<key>`, `import:<recordId>`, …), so a Dreaming pass re-checks it.
 * Returns how many were opened.
 */
export function markDerivedForReview(
  sql: SqlExecutor,
  agentId: string,
  refs: readonly string[],
  reason: string,
  now: number,
  nextId: () => string,
): number {
  if (refs.length === 0) return 0;
  const json = JSON.stringify(refs);
  let opened = 0;
  for (const { subject } of sql.all<{ subject: string }>(raw(DERIVED, agentId, json, agentId, json))) {
    opened += sql.run(
      raw(
        `INSERT INTO dreaming_attention (id, agent_id, kind, subject_ref, priority, details, created_by, created_at)
         VALUES (?, ?, 'review_due', ?, 70, ?, 'engine', ?) ON CONFLICT DO NOTHING`,
        nextId(),
        agentId,
        subject,
        reason,
        now,
      ),
    ).changes;
  }
  return opened;
}
