import { SCAN_KERNEL_WASM } from './scan-kernel-wasm.js';

// An int8 matrix of unit-scaled vectors in its own WebAssembly memory, scored against a query by the
// SIMD kernel of scan-kernel.wat. Each row keeps its codes (one signed byte per dimension, the
// largest magnitude at ±127) and one float scale, chosen so that code · query × scale is
// proportional to the row's cosine with the query: a ranking, rescored exactly by the caller.
// Dropping the matrix frees its memory (no state outside the instance).

const PAGE = 65_536;
/** The query's codes are 16-bit: the rows' quantization is then the only rounding that matters. */
const QUERY_MAX = 32_767;
const ROW_MAX = 127;
const I32_MAX = 2 ** 31 - 1;

// The WebAssembly API as used here (the project's TypeScript libs declare no WebAssembly globals).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmApi {
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

type ScoreI8 = (rows: number, scales: number, query: number, dims: number, count: number, out: number) => void;

function kernelBytes(): Uint8Array {
  return new Uint8Array(Buffer.from(SCAN_KERNEL_WASM, 'base64'));
}

/** A fixed-capacity int8 matrix with its kernel. */
export class ScanMatrix {
  /** Dimensions rounded up to the kernel's 16-byte step (the padding stays zero). */
  readonly stride: number;
  private readonly memory: WasmMemory;
  private readonly scoreI8: ScoreI8;
  private readonly codes: Int8Array;
  private readonly scales: Float32Array;
  private readonly query: Int16Array;
  private readonly out: Float32Array;
  private readonly offsets: { scales: number; query: number; out: number };
  /**
   * The query codes' largest magnitude: the kernel sums a row's products in 32-bit integers, so
   * `stride × 127 × queryMax` must stay under 2^31 (32,767 up to 516 dimensions; 768-d vectors of
   * ±1, e.g. binary embeddings as floats, would otherwise wrap and score their nearest lowest).
   */
  private readonly queryMax: number;

  /**
   * @param dims the vectors' dimensions
   * @param capacity rows the matrix holds
   * @param outRows most rows one {@link score} call scores
   */
  constructor(
    readonly dims: number,
    readonly capacity: number,
    readonly outRows: number,
  ) {
    this.stride = Math.ceil(dims / 16) * 16;
    this.queryMax = Math.min(QUERY_MAX, Math.floor(I32_MAX / (this.stride * ROW_MAX)));
    const scales = capacity * this.stride;
    const query = scales + capacity * 4;
    const out = query + this.stride * 2;
    const bytes = out + outRows * 4;
    this.memory = new wasm.Memory({ initial: Math.ceil(bytes / PAGE) });
    const module = new wasm.Module(kernelBytes());
    const instance = new wasm.Instance(module, { scan: { memory: this.memory } });
    this.scoreI8 = instance.exports.scoreI8 as ScoreI8;
    this.offsets = { scales, query, out };
    this.codes = new Int8Array(this.memory.buffer, 0, scales);
    this.scales = new Float32Array(this.memory.buffer, scales, capacity);
    this.query = new Int16Array(this.memory.buffer, query, this.stride);
    this.out = new Float32Array(this.memory.buffer, out, outRows);
  }

  /** Bytes the matrix holds (its WebAssembly memory). */
  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** Writes row `row` from a float vector (a zero vector scores 0 against everything). */
  setRow(row: number, vector: Float32Array): void {
    let norm = 0;
    let max = 0;
    for (let d = 0; d < this.dims; d++) {
      const x = vector[d] as number;
      norm += x * x;
      const a = Math.abs(x);
      if (a > max) max = a;
    }
    const at = row * this.stride;
    if (max === 0 || !Number.isFinite(norm)) {
      this.codes.fill(0, at, at + this.stride);
      this.scales[row] = 0;
      return;
    }
    const step = max / ROW_MAX;
    for (let d = 0; d < this.dims; d++) this.codes[at + d] = Math.round((vector[d] as number) / step);
    this.scales[row] = step / Math.sqrt(norm);
  }

  /** Sets the query the next {@link score} calls compare with. */
  setQuery(vector: Float32Array): void {
    let max = 0;
    for (let d = 0; d < this.dims; d++) max = Math.max(max, Math.abs(vector[d] as number));
    const step = max === 0 ? 1 : max / this.queryMax;
    for (let d = 0; d < this.dims; d++) this.query[d] = Math.round((vector[d] as number) / step);
  }

  /**
   * Scores rows `first..first+count` against the query into the output at `at` (`at + count` ≤
   * `outRows`): higher is nearer (proportional to the cosine, up to the quantization).
   */
  score(first: number, count: number, at: number): void {
    if (count <= 0) return;
    this.scoreI8(
      first * this.stride,
      this.offsets.scales + first * 4,
      this.offsets.query,
      this.stride,
      count,
      this.offsets.out + at * 4,
    );
  }

  /** The scores of the last {@link score} calls (a view: read before the next query). */
  scores(): Float32Array {
    return this.out;
  }
}
