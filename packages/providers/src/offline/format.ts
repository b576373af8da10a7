import { endianness } from 'node:os';
import { MemoryError } from '@memory/core';

/**
 * The compact word-vector file the offline embedder loads (little-endian):
 *
 *   "MEMVEC01" · uint32 header length · header JSON (UTF-8)
 *   float32[components · dims]   orthonormal directions projected out of every sentence vector
 *   float32[count]               per-word scale: dequantization × SIF weight a / (a + p(w))
 *   int8[count · dimensions]     quantized word vectors, in frequency order
 *   UTF-8 words joined by "\n"
 *
 * Word vectors may be stored centred (mean removed, "all-but-the-top"); the embedder only sums and
 * projects. int8 with a per-word scale keeps cosine similarities within ~0.01 of the float vectors at a
 * quarter of their size; frequency order gives each word's rank, from which SIF weights follow.
 */
export interface WordVectorHeader {
  readonly version: 1;
  readonly model: string;
  readonly dimensions: number;
  readonly count: number;
  /** SIF smoothing constant a in a / (a + p(w)) (already folded into the scales). */
  readonly sifA: number;
  /** Zipf normalizer used for p(w): p(word of rank r, 1-based) = 1 / (r · zipfH). */
  readonly zipfH: number;
  /** Typical norm of a rare word's vector; unknown words get a hashed vector of this norm. */
  readonly oovNorm: number;
  /** Directions projected out of sentence vectors (SIF's common component, or the top principal components). */
  readonly components: number;
  readonly source: string;
}

export interface WordVectors {
  readonly header: WordVectorHeader;
  /** `components` unit vectors of `dimensions` floats, concatenated. */
  readonly components: Float32Array;
  readonly scales: Float32Array;
  readonly vectors: Int8Array;
  readonly words: readonly string[];
}

const MAGIC = 'MEMVEC01';

// The file is little-endian; so are the hosts Node runs on in practice, where a byte copy suffices.
const LITTLE_ENDIAN = endianness() === 'LE';

function float32View(buffer: Buffer, offset: number, length: number): Float32Array {
  // Copy: the file buffer's offset is not guaranteed to be 4-byte aligned. One byte copy instead of
  // a read per float: 100,000 readFloatLE calls held the event loop ~10 ms at every load.
  const out = new Float32Array(length);
  if (LITTLE_ENDIAN) new Uint8Array(out.buffer).set(buffer.subarray(offset, offset + length * 4));
  else for (let i = 0; i < length; i++) out[i] = buffer.readFloatLE(offset + i * 4);
  return out;
}

export function encodeWordVectors(data: WordVectors): Buffer {
  const { header } = data;
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const head = header.dimensions * header.components;
  const floats = Buffer.alloc((head + header.count) * 4);
  for (const [i, x] of data.components.entries()) floats.writeFloatLE(x, i * 4);
  for (const [i, x] of data.scales.entries()) floats.writeFloatLE(x, (head + i) * 4);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(headerBytes.length, 0);
  return Buffer.concat([
    Buffer.from(MAGIC, 'latin1'),
    length,
    headerBytes,
    floats,
    Buffer.from(data.vectors.buffer, data.vectors.byteOffset, data.vectors.byteLength),
    Buffer.from(data.words.join('\n'), 'utf8'),
  ]);
}

function invalid(message: string): MemoryError {
  return new MemoryError('INVALID_CONFIG', `offline embedder vectors file: ${message}`);
}

/** The decoded file with its vocabulary still as one "\n"-joined string (split or indexed by the caller). */
export interface WordVectorFile extends Omit<WordVectors, 'words'> {
  readonly wordsText: string;
}

/** Decodes everything but the vocabulary's split into words (the costly part, done in slices by the embedder). */
export function decodeWordVectorFile(buffer: Buffer): WordVectorFile {
  if (buffer.length < 12 || buffer.toString('latin1', 0, 8) !== MAGIC)
    throw invalid('not a word-vector file (bad magic)');
  const headerLength = buffer.readUInt32LE(8);
  let header: WordVectorHeader;
  try {
    header = JSON.parse(buffer.toString('utf8', 12, 12 + headerLength)) as WordVectorHeader;
  } catch (cause) {
    throw new MemoryError('INVALID_CONFIG', 'offline embedder vectors file: unreadable header', { cause });
  }
  const { dimensions, count, components: k } = header;
  if (
    header.version !== 1 ||
    !Number.isInteger(dimensions) ||
    !Number.isInteger(count) ||
    !Number.isInteger(k) ||
    dimensions < 1 ||
    count < 1 ||
    k < 0 ||
    k > dimensions
  ) {
    throw invalid('unsupported header');
  }
  let offset = 12 + headerLength;
  if (buffer.length < offset + (dimensions * k + count) * 4) throw invalid('truncated');
  const components = float32View(buffer, offset, dimensions * k);
  offset += dimensions * k * 4;
  const scales = float32View(buffer, offset, count);
  offset += count * 4;
  const vectorBytes = count * dimensions;
  if (buffer.length < offset + vectorBytes) throw invalid('truncated');
  // Shared memory: the embedding worker reads the same vectors without a copy.
  const vectors = new Int8Array(new SharedArrayBuffer(vectorBytes));
  vectors.set(new Int8Array(buffer.buffer, buffer.byteOffset + offset, vectorBytes));
  offset += vectorBytes;
  return { header, components, scales, vectors, wordsText: buffer.toString('utf8', offset) };
}

/** Throws unless the vocabulary has one word per vector. */
export function checkWordCount(header: WordVectorHeader, found: number): void {
  if (found !== header.count) throw invalid(`expected ${header.count} words, found ${found}`);
}

export function decodeWordVectors(buffer: Buffer): WordVectors {
  const { wordsText, ...rest } = decodeWordVectorFile(buffer);
  const words = wordsText.split('\n');
  checkWordCount(rest.header, words.length);
  return { ...rest, words };
}
