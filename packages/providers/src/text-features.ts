/** 32-bit FNV-1a of a string's UTF-16 code units, with a seed. */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;

/** Lowercase word tokens; a possessive or contraction suffix stays on its word (`alice's`). */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/**
 * Normalizes in place to unit length. A zero vector (no usable token) becomes a deterministic unit
 * vector derived from the text, so every text has a finite, comparable embedding.
 */
export function l2Normalize(vector: Float32Array, text: string): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  if (sum === 0 || !Number.isFinite(sum)) {
    vector.fill(0);
    vector[fnv1a(text) % vector.length] = 1;
    return vector;
  }
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] ?? 0) * inv;
  return vector;
}
