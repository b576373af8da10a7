import type { SqlExecutor } from '../internal/sql.js';
import type { Program } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { canonicalEntityName } from '../repositories/entities.js';
import { insertMentionProgram, matchEntitiesByNameProgram } from '../repositories/mentions.js';

// Runs of capitalized words ("Alice", "Acme Corp", "São Paulo", "O'Brien"), possibly joined by
// short lower-case connectors inside a name ("Bank of America").
const NAME_RUN = /\p{Lu}[\p{L}\p{N}'’-]*(?:\s+(?:(?:of|the|de|da|van|von|der|la|le)\s+)?\p{Lu}[\p{L}\p{N}'’-]*)*/gu;
const MAX_CANDIDATES = 64;

/**
 * Candidate proper nouns in `content`: each capitalized run, and each capitalized word inside a
 * run, in canonical (lower-cased) form. Bounded to {@link MAX_CANDIDATES}.
 */
export function properNounCandidates(content: string): Map<string, string> {
  const candidates = new Map<string, string>();
  const add = (text: string): void => {
    const key = canonicalEntityName(text.replace(/['’]s$/u, ''));
    if (key.length >= 2 && !candidates.has(key) && candidates.size < MAX_CANDIDATES) candidates.set(key, text);
  };
  for (const match of content.matchAll(NAME_RUN)) {
    add(match[0]);
    const words = match[0].split(/\s+/u);
    if (words.length > 1) for (const word of words) if (/^\p{Lu}/u.test(word)) add(word);
  }
  return candidates;
}

/**
 * Inline entity linking (ARCHITECTURE §5): links a new memory to entities that already exist for the
 * same agent, by name or alias. Writes mention rows only; never creates entities. Runs inside the
 * memory writer's transaction whenever content becomes live. Returns the number of mentions written.
 */
export function linkMemoryToEntities(
  sql: SqlExecutor,
  memory: { id: string; agentId: string; content: string; now: number },
): number {
  return runSqliteProgram(sql, linkMemoryToEntitiesProgram(memory));
}

/** {@link linkMemoryToEntities} as a program (both dialects). */
export function* linkMemoryToEntitiesProgram(memory: {
  id: string;
  agentId: string;
  content: string;
  now: number;
}): Program<number> {
  const candidates = properNounCandidates(memory.content);
  if (candidates.size === 0) return 0;
  let linked = 0;
  for (const match of yield* matchEntitiesByNameProgram(memory.agentId, [...candidates.keys()])) {
    const inserted = yield* insertMentionProgram({
      memoryId: memory.id,
      entityId: match.entityId,
      agentId: memory.agentId,
      mentionText: candidates.get(match.canonicalName) ?? match.canonicalName,
      confidence: 1,
      now: memory.now,
    });
    if (inserted) linked++;
  }
  return linked;
}
