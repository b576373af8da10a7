import { contentHash } from '@memory/core';
import { raw, type SqlExecutor } from '@memory/store';
import { type Citation, checkCitations } from './citations.js';

/** About 1,000 tokens. */
export const MEMORY_HEAD_MAX_CHARS = 4000;
export const MEMORY_HEAD_MAX_ENTRIES = 40;

export interface MemoryHead {
  readonly revision: number;
  readonly content: string;
  readonly contentHash: string;
  readonly updatedAt: number;
}

export function readMemoryHead(sql: SqlExecutor, agentId: string): MemoryHead | undefined {
  return sql.get<MemoryHead>(
    raw(
      'SELECT revision, content, content_hash AS contentHash, updated_at AS updatedAt FROM memory_md_heads WHERE agent_id = ?',
      agentId,
    ),
  );
}

export function renderMemoryHead(entries: readonly string[]): string {
  return ['# MEMORY', '', ...entries.map((e) => `- ${e.replace(/\s+/g, ' ').trim()}`)].join('\n');
}

export type HeadWrite =
  | { readonly ok: true; readonly revision: number }
  | { readonly ok: false; readonly reason: string };

/**
 * Replaces the agent's MEMORY.md head: every entry must be supported by exact quotes from the
 * agent's evidence, the whole stays within ~1,000 tokens, and the write is a compare-and-swap on the
 * revision and hash the writer read (0 / "" for none), so two writers never overwrite each other.
 */
export function writeMemoryHead(
  sql: SqlExecutor,
  input: {
    agentId: string;
    passId: string | null;
    entries: ReadonlyArray<{ text: string; evidence: readonly Citation[] }>;
    expectedRevision: number;
    expectedHash: string;
    now: number;
  },
): HeadWrite {
  if (input.entries.length === 0) return { ok: false, reason: 'give at least one entry' };
  if (input.entries.length > MEMORY_HEAD_MAX_ENTRIES)
    return { ok: false, reason: `at most ${MEMORY_HEAD_MAX_ENTRIES} entries` };
  for (const [i, entry] of input.entries.entries()) {
    const check = checkCitations(sql, input.agentId, entry.evidence);
    if (!check.ok) return { ok: false, reason: `entries[${i}]: ${check.reason}` };
  }
  const content = renderMemoryHead(input.entries.map((e) => e.text));
  if (content.length > MEMORY_HEAD_MAX_CHARS)
    return {
      ok: false,
      reason: `the head is ${content.length} characters; keep it under ${MEMORY_HEAD_MAX_CHARS} (about 1,000 tokens)`,
    };
  const current = readMemoryHead(sql, input.agentId);
  const revision = (current?.revision ?? 0) + 1;
  if ((current?.revision ?? 0) !== input.expectedRevision || (current?.contentHash ?? '') !== input.expectedHash) {
    return {
      ok: false,
      reason: `the head changed since it was read (now revision ${current?.revision ?? 0}); read it again and rewrite`,
    };
  }
  const hash = contentHash(content);
  const entriesJson = JSON.stringify(input.entries);
  const changes = current
    ? sql.run(
        raw(
          'UPDATE memory_md_heads SET revision = ?, content = ?, content_hash = ?, entries_json = ?, pass_id = ?, updated_at = ? WHERE agent_id = ? AND revision = ? AND content_hash = ?',
          revision,
          content,
          hash,
          entriesJson,
          input.passId,
          input.now,
          input.agentId,
          input.expectedRevision,
          input.expectedHash,
        ),
      ).changes
    : sql.run(
        raw(
          'INSERT OR IGNORE INTO memory_md_heads (agent_id, revision, content, content_hash, entries_json, pass_id, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
          input.agentId,
          revision,
          content,
          hash,
          entriesJson,
          input.passId,
          input.now,
        ),
      ).changes;
  return changes === 1
    ? { ok: true, revision }
    : { ok: false, reason: 'the head changed while writing; read it again' };
}
