import type { MemoryConfig } from '@memory/core';
import type { MemoryFilters, SqlExecutor } from '@memory/store';
import type { LexicalPlan } from '../query.js';

/** What every channel gets: the scope, the plan, the filters, the budget. */
export interface ChannelContext {
  readonly sql: SqlExecutor;
  readonly agentId: string;
  readonly config: MemoryConfig;
  readonly plan: LexicalPlan;
  readonly filters: MemoryFilters;
  readonly now: number;
  readonly limit: number;
}

/** Cosine similarity of two unit vectors stored as float32 (the blob) and a query vector. */
export function cosineWithBlob(query: Float32Array, blob: Buffer): number {
  const n = Math.min(query.length, blob.byteLength >>> 2);
  let dot = 0;
  let norm = 0;
  for (let i = 0; i < n; i++) {
    const x = blob.readFloatLE(i * 4);
    dot += x * (query[i] ?? 0);
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
