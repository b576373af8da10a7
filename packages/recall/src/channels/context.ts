import type { MemoryConfig } from '@memory/core';
import { blobToVector, type MemoryFilters } from '@memory/store';
import type { LexicalPlan } from '../query.js';

/** What every channel gets: the scope, the plan, the filters, the budget. */
export interface ChannelContext {
  readonly agentId: string;
  readonly config: MemoryConfig;
  readonly plan: LexicalPlan;
  readonly filters: MemoryFilters;
  readonly now: number;
  readonly limit: number;
}

/**
 * Cosine similarity between a unit query vector and a stored float32 blob. The blob is copied into
 * an aligned Float32Array first (one memcpy): reading it float by float was ~20× slower.
 */
export function cosineWithBlob(query: Float32Array, blob: Buffer): number {
  const v = blobToVector(blob);
  const n = Math.min(query.length, v.length);
  let dot = 0;
  let norm = 0;
  for (let i = 0; i < n; i++) {
    const x = v[i] as number;
    dot += x * (query[i] as number);
    norm += x * x;
  }
  return norm > 0 ? dot / Math.sqrt(norm) : 0;
}

/** Normalizes a query vector to unit length (embedders are not required to). */
export function unit(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  if (sum === 0) return vector;
  const inv = 1 / Math.sqrt(sum);
  return vector.map((x) => x * inv);
}
