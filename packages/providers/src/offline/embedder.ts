import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type EmbeddingProvider, MemoryError, STOP_WORDS } from '@memory/core';
import { fnv1a, l2Normalize, wordTokens } from '../text-features.js';
import { decodeWordVectors, type WordVectors } from './format.js';

/** Where the package keeps its built vectors file, seen from `src/offline/` and from the bundled `dist/`. */
export const DEFAULT_VECTORS_PATH = fileURLToPath(new URL('../../assets/glove-100d-sif.bin', import.meta.url));
const DIST_VECTORS_PATH = fileURLToPath(new URL('../assets/glove-100d-sif.bin', import.meta.url));

export interface OfflineEmbedderOptions {
  /** The vectors file. @default the one shipped in this package's `assets/` */
  readonly vectorsPath?: string;
}

interface Model {
  readonly data: WordVectors;
  readonly index: ReadonlyMap<string, number>;
}

function loadModel(path: string): Model {
  let buffer: Buffer;
  try {
    buffer = readFileSync(path);
  } catch (cause) {
    throw new MemoryError(
      'INVALID_CONFIG',
      `offline embedder vectors file not found at ${path}; build it with "pnpm --filter @memory/providers build:vectors"`,
      { cause },
    );
  }
  const data = decodeWordVectors(buffer);
  const index = new Map<string, number>();
  data.words.forEach((word, i) => {
    if (!index.has(word)) index.set(word, i);
  });
  return { data, index };
}

/**
 * An offline semantic embedder: GloVe word vectors (6B tokens, 100 dimensions, public domain)
 * combined by SIF — a smooth-inverse-frequency weighted average with the common component removed
 * (Arora, Liang & Ma, 2017). No network, no model server; deterministic. It captures topical
 * similarity ("drink" ~ "tea" ~ "coffee"), not sentence structure.
 *
 * Words outside the vocabulary get a hashed vector, so rare names still match themselves.
 * The vectors file loads lazily on the first `embed` call (tens of milliseconds).
 */
export function createOfflineEmbedder(options: OfflineEmbedderOptions = {}): EmbeddingProvider & { load(): void } {
  let model: Model | undefined;
  const path = options.vectorsPath;
  const load = (): Model => {
    if (model) return model;
    model = loadModel(path ?? (existsSync(DEFAULT_VECTORS_PATH) ? DEFAULT_VECTORS_PATH : DIST_VECTORS_PATH));
    return model;
  };
  const dimensions = 100;
  const modelName = 'glove-6b-100d-sif-abtt1';
  return {
    model: modelName,
    dimensions,
    load: () => void load(),
    async embed(texts) {
      const m = load();
      if (m.data.header.dimensions !== dimensions || m.data.header.model !== modelName) {
        throw new MemoryError(
          'INVALID_CONFIG',
          `offline embedder vectors file holds ${m.data.header.model} (${m.data.header.dimensions} dimensions), expected ${modelName}; rebuild it with --force`,
        );
      }
      return texts.map((text) => embedOne(m, text));
    },
  };
}

function lookup(m: Model, word: string): number | undefined {
  const direct = m.index.get(word);
  if (direct !== undefined) return direct;
  const apostrophe = word.search(/['’]/);
  return apostrophe > 0 ? m.index.get(word.slice(0, apostrophe)) : undefined;
}

function embedOne(m: Model, text: string): Float32Array {
  const { dimensions, oovNorm } = m.data.header;
  const { components, scales, vectors } = m.data;
  const sum = new Float32Array(dimensions);
  for (const word of wordTokens(text)) {
    if (STOP_WORDS.has(word)) continue;
    const i = lookup(m, word);
    if (i === undefined) {
      addHashedVector(sum, word, oovNorm);
      continue;
    }
    const scale = scales[i] ?? 0;
    const base = i * dimensions;
    for (let d = 0; d < dimensions; d++) sum[d] = (sum[d] ?? 0) + (vectors[base + d] ?? 0) * scale;
  }
  // The fixed directions (SIF's common component, or the top principal components) are projected out.
  for (let c = 0; c < components.length; c += dimensions) {
    let dot = 0;
    for (let d = 0; d < dimensions; d++) dot += (sum[d] ?? 0) * (components[c + d] ?? 0);
    for (let d = 0; d < dimensions; d++) sum[d] = (sum[d] ?? 0) - dot * (components[c + d] ?? 0);
  }
  return l2Normalize(sum, text);
}

/** A pseudo-random direction of norm `norm` derived from the word (deterministic). */
function addHashedVector(sum: Float32Array, word: string, norm: number): void {
  const scale = norm / Math.sqrt(sum.length);
  let h = fnv1a(word);
  for (let d = 0; d < sum.length; d++) {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
    sum[d] = (sum[d] ?? 0) + ((h & 1) === 0 ? scale : -scale);
  }
}
