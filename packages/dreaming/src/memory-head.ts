import { contentHash } from '@memory/core';
import {
  findMemoryHeadProgram,
  insertFirstMemoryHeadProgram,
  type Program,
  replaceMemoryHeadProgram,
  runSqliteProgram,
  type SqlExecutor,
} from '@memory/store';
import { type Citation, checkCitationsProgram } from './citations.js';

/** About 1,000 tokens. */
export const MEMORY_HEAD_MAX_CHARS = 4000;
export const MEMORY_HEAD_MAX_ENTRIES = 40;

export interface MemoryHead {
  readonly revision: number;
  readonly content: string;
  readonly contentHash: string;
  readonly updatedAt: number;
}

/** The agent's MEMORY.md head, or undefined before the first one is written. */
export function readMemoryHead(sql: SqlExecutor, agentId: string): MemoryHead | undefined {
  return runSqliteProgram(sql, readMemoryHeadProgram(agentId));
}

/** {@link readMemoryHead} as a program (both dialects). */
export function* readMemoryHeadProgram(agentId: string): Program<MemoryHead | undefined> {
  return yield* findMemoryHeadProgram(agentId);
}

/** What {@link writeMemoryHead} is given. */
export interface HeadWriteInput {
  agentId: string;
  passId: string | null;
  entries: ReadonlyArray<{ text: string; evidence: readonly Citation[] }>;
  expectedRevision: number;
  expectedHash: string;
  now: number;
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
export function writeMemoryHead(sql: SqlExecutor, input: HeadWriteInput): HeadWrite {
  return runSqliteProgram(sql, writeMemoryHeadProgram(input));
}

/** {@link writeMemoryHead} as a program (both dialects). */
export function* writeMemoryHeadProgram(input: HeadWriteInput): Program<HeadWrite> {
  if (input.entries.length === 0) return { ok: false, reason: 'give at least one entry' };
  if (input.entries.length > MEMORY_HEAD_MAX_ENTRIES)
    return { ok: false, reason: `at most ${MEMORY_HEAD_MAX_ENTRIES} entries` };
  for (const [i, entry] of input.entries.entries()) {
    const check = yield* checkCitationsProgram(input.agentId, entry.evidence);
    if (!check.ok) return { ok: false, reason: `entries[${i}]: ${check.reason}` };
  }
  const content = renderMemoryHead(input.entries.map((e) => e.text));
  if (content.length > MEMORY_HEAD_MAX_CHARS)
    return {
      ok: false,
      reason: `the head is ${content.length} characters; keep it under ${MEMORY_HEAD_MAX_CHARS} (about 1,000 tokens)`,
    };
  const current = yield* readMemoryHeadProgram(input.agentId);
  const revision = (current?.revision ?? 0) + 1;
  if ((current?.revision ?? 0) !== input.expectedRevision || (current?.contentHash ?? '') !== input.expectedHash) {
    return {
      ok: false,
      reason: `the head changed since it was read (now revision ${current?.revision ?? 0}); read it again and rewrite`,
    };
  }
  const head = {
    agentId: input.agentId,
    revision,
    content,
    contentHash: contentHash(content),
    entriesJson: JSON.stringify(input.entries),
    passId: input.passId,
    now: input.now,
  };
  const changes = current
    ? yield* replaceMemoryHeadProgram(head, { revision: input.expectedRevision, contentHash: input.expectedHash })
    : yield* insertFirstMemoryHeadProgram(head);
  return changes === 1
    ? { ok: true, revision }
    : { ok: false, reason: 'the head changed while writing; read it again' };
}
