// Embedders are host code: their output is untrusted input, checked before it is stored or searched.

/**
 * An embedder's output for one text as a Float32Array, or the reason it is unusable. Any numeric
 * array-like of the declared length is accepted (hand-written embedders often return `number[]`);
 * the values are copied, so a buffer the embedder reuses cannot change a stored vector.
 */
export function toVector(value: unknown, dimensions: number): Float32Array | string {
  const isArrayLike =
    value instanceof Float32Array ||
    value instanceof Float64Array ||
    Array.isArray(value) ||
    (ArrayBuffer.isView(value) && !(value instanceof DataView));
  if (!isArrayLike) return 'not an array of numbers';
  const items = value as ArrayLike<unknown>;
  if (items.length !== dimensions) return `length ${items.length}, expected ${dimensions}`;
  const out = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) {
    const x = items[i];
    if (typeof x !== 'number' && typeof x !== 'bigint') return 'an element that is not a number';
    const f = Number(x);
    // Also refuses finite doubles that overflow float32.
    out[i] = f;
    if (!Number.isFinite(f) || !Number.isFinite(out[i] as number)) return 'a non-finite value';
  }
  return out;
}
