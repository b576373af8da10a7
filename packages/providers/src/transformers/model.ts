import { MemoryError } from '@memory/core';
import { type ModelSettings, modelIdentity, type Pooling, readModelFiles } from './model-files.js';
import {
  DEFAULT_PEERS,
  importPeer,
  type OrtModule,
  type OrtSession,
  type OrtTensor,
  type PeerNames,
  type Tokenizer,
  type TokenizersModule,
} from './peers.js';

/** What the loaded model tells the embedder (JSON-safe: the worker sends it back). */
export interface ModelInfo {
  readonly model: string;
  readonly dimensions: number;
  readonly maxTokens: number;
  /** `model`: the ONNX graph pools itself (a `sentence_embedding` output). */
  readonly pooling: Pooling | 'model';
  readonly modelFile: string;
}

/** A model ready to embed: the runtime session, the tokenizer and how to read the output. */
export interface LoadedModel {
  readonly info: ModelInfo;
  readonly ort: OrtModule;
  readonly session: OrtSession;
  readonly tokenizer: Tokenizer;
  readonly output: string;
  readonly idType: 'int64' | 'int32';
  /** Special tokens the tokenizer puts before and after the text ([CLS] … [SEP] for BERT). */
  readonly prefix: number;
  readonly suffix: number;
  readonly padId: number;
  readonly normalize: boolean;
  readonly batchSize: number;
}

const KNOWN_INPUTS = new Set(['input_ids', 'attention_mask', 'token_type_ids']);

function invalidModel(message: string, path: string, cause?: unknown): MemoryError {
  return new MemoryError('INVALID_CONFIG', message, {
    details: { reason: 'model-invalid', path },
    ...(cause ? { cause } : {}),
  });
}

/** Where the text sits in an encoding with special tokens: found by encoding one word both ways. */
function specialTokenLayout(tokenizer: Tokenizer): { prefix: number; suffix: number } {
  const bare = tokenizer.encode('a', { add_special_tokens: false }).ids;
  const full = tokenizer.encode('a').ids;
  for (let i = 0; i + bare.length <= full.length; i++) {
    if (bare.every((id, j) => full[i + j] === id)) return { prefix: i, suffix: full.length - i - bare.length };
  }
  return { prefix: 0, suffix: 0 };
}

function padIdOf(tokenizerJson: object, tokenizer: Tokenizer): number {
  const padding = (tokenizerJson as { padding?: { pad_id?: unknown } | null }).padding;
  if (typeof padding?.pad_id === 'number') return padding.pad_id;
  return tokenizer.token_to_id('[PAD]') ?? tokenizer.token_to_id('<pad>') ?? 0;
}

/** The output to read: the model's own pooled vector unless a pooling was asked for, else the token states. */
function chooseOutput(session: OrtSession, pooling: Pooling | undefined): { output: string; pooled: boolean } {
  const names = session.outputNames;
  if (pooling === undefined && names.includes('sentence_embedding'))
    return { output: 'sentence_embedding', pooled: true };
  const output = ['last_hidden_state', 'token_embeddings'].find((n) => names.includes(n)) ?? names[0];
  if (output === undefined) throw new Error('the model has no outputs');
  return { output, pooled: false };
}

/**
 * Loads the tokenizer and the ONNX model from local files (never from the network), then embeds
 * one short text to learn the dimensions and to prove the pair works together.
 */
export async function loadTransformersModel(
  settings: ModelSettings,
  peers: PeerNames = DEFAULT_PEERS,
): Promise<LoadedModel> {
  const files = readModelFiles(settings);
  const ort = await importPeer<OrtModule>(peers.runtime, 'InferenceSession');
  const { Tokenizer } = await importPeer<TokenizersModule>(peers.tokenizers, 'Tokenizer');
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(files.tokenizerJson, files.tokenizerConfig);
  } catch (cause) {
    throw invalidModel(
      `transformers embedder: tokenizer.json in ${files.dir} is not usable: ${(cause as Error).message}`,
      files.dir,
      cause,
    );
  }
  let session: OrtSession;
  try {
    session = await ort.InferenceSession.create(files.modelFile, {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      ...(settings.threads === undefined ? {} : { intraOpNumThreads: settings.threads }),
    });
  } catch (cause) {
    throw invalidModel(
      `transformers embedder: ${files.modelFile} is not a loadable ONNX model: ${(cause as Error).message}`,
      files.modelFile,
      cause,
    );
  }
  const unknown = session.inputNames.filter((n) => !KNOWN_INPUTS.has(n));
  if (unknown.length > 0 || !session.inputNames.includes('input_ids')) {
    throw invalidModel(
      `transformers embedder: ${files.modelFile} takes inputs ${session.inputNames.join(', ')}; an encoder export takes input_ids, attention_mask and optionally token_type_ids`,
      files.modelFile,
    );
  }
  const pooling = settings.pooling ?? files.pooling;
  const { output, pooled } = chooseOutput(session, settings.pooling);
  const maxTokens = settings.maxTokens ?? files.maxTokens;
  const normalize = settings.normalize ?? true;
  const idMeta = session.inputMetadata?.find((m) => m.name === 'input_ids');
  const partial = {
    ort,
    session,
    tokenizer,
    output,
    idType: idMeta?.type === 'int32' ? ('int32' as const) : ('int64' as const),
    ...specialTokenLayout(tokenizer),
    padId: padIdOf(files.tokenizerJson, tokenizer),
    normalize,
    batchSize: settings.batchSize ?? 32,
  };
  const resolvedPooling: Pooling | 'model' = pooled ? 'model' : (pooling ?? 'mean');
  const probeInfo: ModelInfo = {
    model: '',
    dimensions: 0,
    maxTokens,
    pooling: resolvedPooling,
    modelFile: files.modelFile,
  };
  let dimensions: number;
  try {
    const probe = await embedBatchFlat({ ...partial, info: probeInfo }, ['a']);
    dimensions = probe.length;
  } catch (cause) {
    await session.release?.();
    throw invalidModel(
      `transformers embedder: ${files.modelFile} failed on a test input: ${(cause as Error).message}`,
      files.modelFile,
      cause,
    );
  }
  const model = await modelIdentity(files, settings, {
    pooling: resolvedPooling,
    maxTokens,
    normalize,
    output,
    queryPrefix: settings.queryPrefix ?? '',
    documentPrefix: settings.documentPrefix ?? '',
  });
  return { ...partial, info: { ...probeInfo, model, dimensions } };
}

/** Token ids of one text, cut to `maxTokens` with its special tokens kept at both ends. */
function tokenize(m: LoadedModel, text: string): readonly number[] {
  const ids = m.tokenizer.encode(text).ids;
  const max = m.info.maxTokens;
  if (ids.length <= max) return ids;
  const keep = Math.max(0, max - m.prefix - m.suffix);
  return [...ids.slice(0, m.prefix + keep), ...ids.slice(ids.length - m.suffix)];
}

function tensorOf(m: LoadedModel, values: readonly number[], dims: readonly number[]): OrtTensor {
  if (m.idType === 'int32') return new m.ort.Tensor('int32', Int32Array.from(values), dims);
  return new m.ort.Tensor(
    'int64',
    BigInt64Array.from(values, (v) => BigInt(v)),
    dims,
  );
}

/** Pools one batch's output into `out` (rows `at[b]`), honouring the attention mask. */
function pool(
  m: LoadedModel,
  result: OrtTensor,
  lengths: readonly number[],
  at: readonly number[],
  out: Float32Array,
  dims: number,
): void {
  const data = result.data as Float32Array;
  const seq = result.dims.length === 3 ? (result.dims[1] ?? 0) : 1;
  for (let b = 0; b < lengths.length; b++) {
    const row = out.subarray((at[b] ?? 0) * dims, ((at[b] ?? 0) + 1) * dims);
    const base = b * seq * dims;
    const length = lengths[b] ?? 0;
    if (result.dims.length === 2 || m.info.pooling === 'cls') {
      row.set(data.subarray(base, base + dims));
    } else {
      for (let p = 0; p < length; p++)
        for (let d = 0; d < dims; d++) row[d] = (row[d] ?? 0) + (data[base + p * dims + d] ?? 0);
      for (let d = 0; d < dims; d++) row[d] = (row[d] ?? 0) / Math.max(1, length);
    }
    if (m.normalize) {
      let norm = 0;
      for (let d = 0; d < dims; d++) norm += (row[d] ?? 0) ** 2;
      norm = Math.sqrt(norm);
      if (norm > 0) for (let d = 0; d < dims; d++) row[d] = (row[d] ?? 0) / norm;
    }
  }
}

/**
 * Embeds texts into one flat array (`texts.length × dimensions`). Texts are sorted by token count
 * and run `batchSize` at a time, so a batch pads to its own longest text, not the call's.
 */
export async function embedBatchFlat(m: LoadedModel, texts: readonly string[]): Promise<Float32Array> {
  const encoded = texts.map((t) => tokenize(m, t));
  const order = encoded.map((_, i) => i).sort((a, b) => (encoded[a]?.length ?? 0) - (encoded[b]?.length ?? 0));
  // Dimensions 0: the loader's probe, which learns them from the first result.
  let dims = m.info.dimensions;
  let out: Float32Array | undefined;
  for (let start = 0; start < order.length; start += m.batchSize) {
    const at = order.slice(start, start + m.batchSize);
    const rows = at.map((i) => encoded[i] ?? []);
    const seq = Math.max(1, ...rows.map((r) => r.length));
    const ids: number[] = [];
    const mask: number[] = [];
    for (const r of rows) {
      for (let p = 0; p < seq; p++) {
        ids.push(p < r.length ? (r[p] ?? 0) : m.padId);
        mask.push(p < r.length ? 1 : 0);
      }
    }
    const shape = [rows.length, seq];
    const feeds: Record<string, OrtTensor> = { input_ids: tensorOf(m, ids, shape) };
    if (m.session.inputNames.includes('attention_mask')) feeds.attention_mask = tensorOf(m, mask, shape);
    if (m.session.inputNames.includes('token_type_ids'))
      feeds.token_type_ids = tensorOf(m, new Array<number>(ids.length).fill(0), shape);
    const result = (await m.session.run(feeds, [m.output]))[m.output];
    if (!result || (result.dims.length !== 2 && result.dims.length !== 3) || result.dims[0] !== rows.length) {
      throw new Error(
        `output ${m.output} has shape [${result?.dims.join(', ')}]; expected [batch, dim] or [batch, sequence, dim]`,
      );
    }
    if (!(result.data instanceof Float32Array)) {
      throw new Error(
        `output ${m.output} is not float32; use a float32 or int8-quantized export (model.onnx, model_quantized.onnx)`,
      );
    }
    const width = result.dims[result.dims.length - 1] ?? 0;
    if (dims === 0) dims = width;
    if (width !== dims || dims === 0) throw new Error(`output has ${width} dimensions, expected ${dims}`);
    out ??= new Float32Array(texts.length * dims);
    pool(
      m,
      result,
      rows.map((r) => r.length),
      at,
      out,
      dims,
    );
  }
  return out ?? new Float32Array(0);
}
