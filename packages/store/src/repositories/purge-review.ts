import { all, type Program, perDialect, portable, run } from '../program/program.js';
import type { PurgeCounts } from './purge.js';

// What a purge does to what was derived from the purged memories: claims left without evidence are
// marked for review, and the purged memories' quotes leave claim and provenance evidence. The
// evidence is JSON text; SQLite reads it with json_each, PostgreSQL with jsonb functions.

// Active claims that cited a purged memory (as their source memory or in their evidence) and cite
// nothing else that still exists: their only support is gone, so a Dreaming pass must review them.
const UNSUPPORTED_CLAIMS = {
  sqlite: `
  SELECT c.id FROM entity_attributes AS c
  WHERE c.agent_id = ? AND c.status = 'active'
    AND (c.source_memory_id IN (SELECT value FROM json_each(?))
      OR EXISTS (SELECT 1 FROM json_each(c.evidence_json) AS e WHERE e.value ->> '$.sourceRef' IN (SELECT value FROM json_each(?))))
    AND NOT EXISTS (
      SELECT 1 FROM json_each(c.evidence_json) AS e
      WHERE e.value ->> '$.sourceRef' NOT IN (SELECT value FROM json_each(?))
        AND NOT (e.value ->> '$.sourceRef' LIKE 'memory:%'
          AND NOT EXISTS (SELECT 1 FROM memories AS m WHERE m.id = substr(e.value ->> '$.sourceRef', 8))))
  LIMIT 10000`,
  // `$[*]` in lax mode: the elements of an array (as json_each gives them); no rows for SQL null.
  postgres: `
  SELECT c.id FROM entity_attributes AS c
  WHERE c.agent_id = $1 AND c.status = 'active'
    AND (c.source_memory_id = ANY($2::text[])
      OR EXISTS (SELECT 1 FROM jsonb_path_query(c.evidence_json::jsonb, '$[*]') AS e (v)
        WHERE e.v ->> 'sourceRef' = ANY($3::text[])))
    AND NOT EXISTS (
      SELECT 1 FROM jsonb_path_query(c.evidence_json::jsonb, '$[*]') AS e (v)
      WHERE NOT (e.v ->> 'sourceRef' = ANY($3::text[]))
        AND NOT (e.v ->> 'sourceRef' LIKE 'memory:%'
          AND NOT EXISTS (SELECT 1 FROM memories AS m WHERE m.id = substr(e.v ->> 'sourceRef', 8))))
  LIMIT 10000`,
};

// Replaces the quote of every citation of a purged memory with null, keeping the reference.
const SCRUB_QUOTES = {
  sqlite: (table: string) => `
  UPDATE ${table} SET evidence_json = (
    SELECT json_group_array(CASE WHEN e.value ->> '$.sourceRef' IN (SELECT value FROM json_each(?))
      THEN json_set(e.value, '$.quote', NULL) ELSE json(e.value) END)
    FROM json_each(${table}.evidence_json) AS e)
  WHERE agent_id = ? AND json_valid(evidence_json) AND EXISTS (
    SELECT 1 FROM json_each(${table}.evidence_json) AS e WHERE e.value ->> '$.sourceRef' IN (SELECT value FROM json_each(?)))`,
  postgres: (table: string) => `
  UPDATE ${table} SET evidence_json = (
    SELECT coalesce(jsonb_agg(CASE WHEN e.v ->> 'sourceRef' = ANY($1::text[])
      THEN jsonb_set(e.v, '{quote}', 'null'::jsonb) ELSE e.v END ORDER BY e.i), '[]'::jsonb)::text
    FROM jsonb_array_elements(${table}.evidence_json::jsonb) WITH ORDINALITY AS e (v, i))
  WHERE agent_id = $2 AND EXISTS (
    SELECT 1 FROM jsonb_path_query(${table}.evidence_json::jsonb, '$[*]') AS e (v)
    WHERE e.v ->> 'sourceRef' = ANY($1::text[]))`,
};

/**
 * Marks claims whose only evidence was purged for review (an open `review_due` attention record
 * each) and removes the purged memories' quotes from claim and provenance evidence. `present`
 * says which of the graph and Dreaming tables exist (on PostgreSQL, those whose form has landed).
 */
export function* reviewDerivedProgram(
  agentId: string,
  ids: readonly string[],
  now: number,
  nextId: () => string,
  present: ReadonlySet<string>,
  c: PurgeCounts,
): Program<void> {
  const idsJson = JSON.stringify(ids);
  const refs = ids.map((id) => `memory:${id}`);
  const refsJson = JSON.stringify(refs);
  if (present.has('entity_attributes') && present.has('dreaming_attention')) {
    const claims = yield* all<{ id: string }>(
      perDialect(
        { sql: UNSUPPORTED_CLAIMS.sqlite, parameters: [agentId, idsJson, refsJson, refsJson] },
        { sql: UNSUPPORTED_CLAIMS.postgres, parameters: [agentId, [...ids], refs] },
      ),
    );
    for (const { id } of claims) {
      c.markedForReview += (yield* run(
        portable(
          `INSERT INTO dreaming_attention (id, agent_id, kind, subject_ref, priority, details, created_by, created_at)
           VALUES (?, ?, 'review_due', ?, 70, 'its only evidence was purged', 'engine', ?) ON CONFLICT DO NOTHING`,
          nextId(),
          agentId,
          `claim:${id}`,
          now,
        ),
      )).changes;
    }
  }
  for (const table of ['entity_attributes', 'dreaming_provenance']) {
    if (!present.has(table)) continue;
    c.quotesScrubbed += (yield* run(
      perDialect(
        { sql: SCRUB_QUOTES.sqlite(table), parameters: [refsJson, agentId, refsJson] },
        { sql: SCRUB_QUOTES.postgres(table), parameters: [refs, agentId] },
      ),
    )).changes;
  }
}
