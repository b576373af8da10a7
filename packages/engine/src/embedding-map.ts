import { agentIdSchema, createSeededRandom, parseInput, yieldToEventLoop } from '@memory/core';
import {
  blobToVector,
  findProjectionProgram,
  memoryMapLabelsProgram,
  newestMemoryVectorsProgram,
  projectionSignatureProgram,
  saveProjectionProgram,
} from '@memory/store';
import { UMAP } from 'umap-js';
import { z } from 'zod';
import type { EngineContext } from './context.js';
import { exactNeighbours } from './nearest-neighbours.js';

/** One memory on the embedding map. */
export interface MapPoint {
  readonly id: string;
  readonly x: number;
  readonly y: number;
  readonly type: string;
  readonly category: string | null;
  /** The first 160 characters of its content. */
  readonly preview: string;
}

/** A 2-D projection (UMAP) of the agent's newest memory vectors for the engine's embedder model. */
export interface EmbeddingMap {
  /** The embedder model the vectors are from; null without an embedder. */
  readonly model: string | null;
  readonly points: readonly MapPoint[];
  /** True when the projection came from the cache (its vectors had not changed). */
  readonly cached: boolean;
  /** How long computing the projection took, in milliseconds (when it was computed, cached or not). */
  readonly computedMs: number;
  /** Why the map is empty, when it is. */
  readonly reason?: string;
}

const mapSchema = z.strictObject({
  agentId: agentIdSchema,
  /** The newest memories projected, 1..20,000. @default 2000 */
  limit: z.number().int().min(1).max(20_000).optional(),
});
export type EmbeddingMapInput = z.input<typeof mapSchema>;

// One projection for one set of vectors: a fixed seed makes it the same every time it is computed.
const SEED = 0x5eed;
// Epochs per slice of the optimisation: the host's event loop runs between slices.
const EPOCHS_PER_SLICE = 10;
// umap-js runs 500 epochs below 10,000 points; the layout of a map settles well before (umap-learn
// itself uses 200 for large inputs), and epochs are most of the time: 200, and 100 above 10,000.
const epochsFor = (points: number): number => (points > 10_000 ? 100 : 200);
const PREVIEW_CHARS = 160;
// Up to this many points the neighbours are found by an exact scan in slices (the event loop stays
// free); above it, by UMAP's approximate search, which is one synchronous call.
const EXACT_NEIGHBOURS_MAX = 5000;

/**
 * Projects vectors to 2-D with UMAP, yielding to the event loop between slices of epochs. Fewer
 * than three points need no projection: they are laid on a line.
 */
async function project(vectors: readonly Float32Array[]): Promise<number[][]> {
  if (vectors.length < 3) return vectors.map((_, i) => [i, 0]);
  const random = createSeededRandom(SEED);
  const umap = new UMAP({
    nComponents: 2,
    nNeighbors: Math.min(15, vectors.length - 1),
    minDist: 0.1,
    nEpochs: epochsFor(vectors.length),
    random: () => random.float(),
  });
  if (vectors.length <= EXACT_NEIGHBOURS_MAX) {
    const { indices, distances } = await exactNeighbours(vectors, Math.min(15, vectors.length - 1));
    umap.setPrecomputedKNN(indices, distances);
  }
  const epochs = umap.initializeFit(vectors.map((v) => Array.from(v)));
  for (let epoch = 0; epoch < epochs; ) {
    for (let i = 0; i < EPOCHS_PER_SLICE && epoch < epochs; i++) epoch = umap.step();
    await yieldToEventLoop();
  }
  return umap.getEmbedding();
}

/**
 * The embedding map of an agent: its newest memories' vectors projected to 2-D, with each
 * memory's type, category and a preview. The projection is cached per agent and embedder model and
 * computed again when the vectors change (a memory added, re-embedded or forgotten) or the limit does.
 */
export async function embeddingMap(ctx: EngineContext, input: unknown): Promise<EmbeddingMap> {
  const { agentId, limit = 2000 } = parseInput(mapSchema, input, 'embeddingMap');
  // Vectors are read under the embedder's vector key (model and dimensions), never another model's.
  const model = ctx.providers.embedder?.vectorKey;
  if (model === undefined)
    return { model: null, points: [], cached: false, computedMs: 0, reason: 'no embedder configured' };
  const { portable: store } = ctx;
  const read = await store.db.read(function* () {
    const signature = yield* projectionSignatureProgram(agentId, model, limit);
    const cached = yield* findProjectionProgram(agentId, model);
    return { signature, cached: cached?.signature === signature ? cached : undefined };
  });
  let coordinates: Array<[string, number, number]>;
  let computedMs: number;
  if (read.cached) {
    coordinates = JSON.parse(read.cached.resultJson) as Array<[string, number, number]>;
    computedMs = read.cached.computedMs;
  } else {
    const rows = await store.db.read(() => newestMemoryVectorsProgram(agentId, model, limit));
    const started = performance.now();
    const projected = await project(rows.map((r) => blobToVector(r.vector)));
    computedMs = performance.now() - started;
    coordinates = rows.map((r, i) => [r.memoryId, projected[i]?.[0] ?? 0, projected[i]?.[1] ?? 0]);
    const saved = {
      agentId,
      model,
      signature: read.signature,
      points: coordinates.length,
      resultJson: JSON.stringify(coordinates),
      computedMs,
      now: store.clock.now(),
    };
    await store.db.write(() => saveProjectionProgram(saved));
  }
  const ids = coordinates.map((c) => c[0]);
  const labels = new Map(
    (await store.db.read(() => memoryMapLabelsProgram(agentId, ids, PREVIEW_CHARS))).map((l) => [l.id, l]),
  );
  const points = coordinates.flatMap(([id, x, y]) => {
    const label = labels.get(id);
    return label ? [{ id, x, y, type: label.type, category: label.category, preview: label.preview }] : [];
  });
  return {
    model: ctx.providers.embedder?.model ?? model,
    points,
    cached: read.cached !== undefined,
    computedMs,
    ...(points.length === 0 ? { reason: 'no memory of this agent has a vector yet' } : {}),
  };
}
