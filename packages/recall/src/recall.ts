import { performance } from 'node:perf_hooks';
import { type MemoryConfig, type MemoryId, agentIdSchema, labelSchema, parseInput, timeSchema } from '@memory/core';
import { type LexicalHit, MEMORY_TYPES, type MemoryType, type Store, bm25Score, searchMemoriesLexical } from '@memory/store';
import { z } from 'zod';
import { type LexicalPlan, matchExpressions, planLexicalQuery } from './query.js';

/** Recall input schema, built once per engine from its configuration. */
export function createRecallSchema(config: MemoryConfig) {
  const type = z.enum(MEMORY_TYPES, { error: `type must be one of: ${MEMORY_TYPES.join(', ')}` });
  return z.strictObject({
    agentId: agentIdSchema,
    query: z
      .string({ error: 'query must be a string' })
      .min(1, 'query must not be empty')
      .max(config.limits.maxQueryChars, `query must be at most ${config.limits.maxQueryChars} characters`),
    /** 1..`config.recall.maxLimit`. @default config.recall.defaultLimit */
    limit: z.number().int('limit must be an integer').min(1, 'limit must be at least 1').max(config.recall.maxLimit, `limit must be at most ${config.recall.maxLimit}`).optional(),
    /** One type or a list; a memory matches any of them. */
    type: z.union([type, z.array(type).max(MEMORY_TYPES.length)]).optional(),
    /** A memory must carry every tag listed. */
    tags: z.array(labelSchema(config.limits.maxTagLength, 'tag')).max(config.limits.maxTags).optional(),
    project: labelSchema(256, 'project').optional(),
    /** Only memories created at or after this time. */
    since: timeSchema.optional(),
    /** Only memories created before this time. */
    until: timeSchema.optional(),
  });
}

export type RecallInput = z.input<ReturnType<typeof createRecallSchema>>;

/** Per-channel scores in 0..1. Only the lexical channel exists so far. */
export interface ChannelScores {
  readonly lexical?: number;
}

export interface RecallResult {
  readonly id: MemoryId;
  readonly content: string;
  readonly type: MemoryType;
  /** 0..1, higher is better; results are sorted by it within each match tier. */
  readonly score: number;
  /** `linked`: reached structurally (verified); `related`: found by text or meaning (a hypothesis). */
  readonly tier: 'linked' | 'related';
  readonly channels: ChannelScores;
  readonly tags: readonly string[];
  readonly project: string | null;
  readonly importance: number;
  readonly pinned: boolean;
  readonly createdAt: number;
}

export interface RecallResponse {
  readonly results: readonly RecallResult[];
  /** How the query text was searched. */
  readonly query: LexicalPlan;
  /** Milliseconds per stage. */
  readonly timings: { readonly totalMs: number; readonly lexicalMs: number };
}

/** The lexical channel's 0..1 score for a bm25() value. */
export const lexicalScore = bm25Score;

function parseTags(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

function toResult(hit: LexicalHit): RecallResult {
  const score = lexicalScore(hit.bm25);
  return {
    id: hit.id as MemoryId,
    content: hit.content,
    type: hit.type,
    score,
    tier: 'related',
    channels: { lexical: score },
    tags: parseTags(hit.tags),
    project: hit.project,
    importance: hit.importance,
    pinned: hit.pinned === 1,
    createdAt: hit.created_at,
  };
}

/**
 * Lexical recall: BM25 over FTS5 within one agent's live memories, filters applied in the same
 * query that reads rows. Results that match every query token come first; when too few do, results
 * matching any token fill the remaining places.
 */
export function recallLexical(
  store: Store,
  config: MemoryConfig,
  schema: ReturnType<typeof createRecallSchema>,
  input: unknown,
): RecallResponse {
  const started = performance.now();
  const request = parseInput(schema, input, 'recall');
  const limit = request.limit ?? config.recall.defaultLimit;
  const plan = planLexicalQuery(request.query, config.recall);
  const filters = {
    types: request.type === undefined ? undefined : Array.isArray(request.type) ? request.type : [request.type],
    tags: request.tags,
    project: request.project,
    since: request.since,
    until: request.until,
  };
  const results: RecallResult[] = [];
  const seen = new Set<string>();
  const lexicalStart = performance.now();
  store.read((sql) => {
    const now = store.clock.now();
    for (const match of matchExpressions(plan)) {
      if (results.length >= limit) break;
      const hits = searchMemoriesLexical(sql, { agentId: request.agentId, match, filters, now, limit: Math.min(limit + seen.size, config.recall.lexicalCandidates) });
      for (const hit of hits) {
        if (results.length >= limit) break;
        if (seen.has(hit.id)) continue;
        seen.add(hit.id);
        results.push(toResult(hit));
      }
    }
  });
  const done = performance.now();
  return { results, query: plan, timings: { totalMs: done - started, lexicalMs: done - lexicalStart } };
}
