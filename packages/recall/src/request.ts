import { type EmbeddingProvider, type MemoryConfig, toVector } from '@memory/core';
import type { MemoryFilters } from '@memory/store';
import { unit } from './channels/context.js';
import type { RecallRequest } from './schema.js';

const DAY_MS = 86_400_000;

/** The search window's length in days a request asks for (`recentOnly`, `windowDays`, or the configured default); null for none. */
export function windowDaysOf(request: RecallRequest, config: MemoryConfig): number | null {
  return request.recentOnly
    ? config.recall.recentOnlyDays
    : request.windowDays === undefined
      ? config.recall.searchWindowDays
      : request.windowDays;
}

/**
 * The filters a request asks for, with the search window. A request that gives its own `now` asks
 * "as of" that moment: memories created after it are left out too.
 */
export function filtersOf(request: RecallRequest, config: MemoryConfig, now: number): MemoryFilters {
  const days = windowDaysOf(request, config);
  const asOfEnd = request.now === undefined ? undefined : now + 1;
  const until =
    request.until === undefined ? asOfEnd : asOfEnd === undefined ? request.until : Math.min(request.until, asOfEnd);
  return {
    types: request.type === undefined ? undefined : Array.isArray(request.type) ? request.type : [request.type],
    tags: request.tags,
    project: request.project,
    who: request.who,
    pinned: request.pinned,
    importanceMin: request.importanceMin,
    since: request.since,
    until,
    windowStart: days === null ? undefined : now - days * DAY_MS,
  };
}

/** The query's unit vector, or undefined (with a warning) when the embedder fails or misbehaves. */
export async function queryVector(
  embedder: EmbeddingProvider,
  query: string,
  warnings: string[],
): Promise<Float32Array | undefined> {
  try {
    const output: unknown = await embedder.embed([query], { purpose: 'query' });
    const vector = Array.isArray(output) ? toVector(output[0], embedder.dimensions) : 'not an array of vectors';
    if (typeof vector === 'string') {
      warnings.push(`semantic: the embedder returned an unusable query vector (${vector})`);
      return undefined;
    }
    return unit(vector);
  } catch (error) {
    warnings.push(`semantic: embedding the query failed (${error instanceof Error ? error.message : String(error)})`);
    return undefined;
  }
}
