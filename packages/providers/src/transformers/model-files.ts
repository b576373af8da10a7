import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { type ErrorDetails, MemoryError } from '@memory/core';

/** How token vectors become one text vector. `model`: the model's own pooled output. */
export type Pooling = 'mean' | 'cls';

/** What loading a model needs (JSON-safe: it is sent to the worker as is). */
export interface ModelSettings {
  readonly modelPath: string;
  readonly modelFile?: string | undefined;
  readonly name?: string | undefined;
  readonly pooling?: Pooling | undefined;
  readonly maxTokens?: number | undefined;
  readonly normalize?: boolean | undefined;
  readonly batchSize?: number | undefined;
  readonly threads?: number | undefined;
  /** Applied by the embedder before texts reach the model; here only because they change vectors (identity). */
  readonly queryPrefix?: string | undefined;
  readonly documentPrefix?: string | undefined;
}

/** The model directory as read from disk, before the runtime sees it. */
export interface ModelFiles {
  readonly dir: string;
  readonly modelFile: string;
  readonly tokenizerJson: object;
  readonly tokenizerConfig: object;
  /** From sentence-transformers' `1_Pooling/config.json`, when present and one of the two we do. */
  readonly pooling: Pooling | undefined;
  readonly maxTokens: number;
  /** `max_position_embeddings` of `config.json`: the longest input the encoder accepts. */
  readonly maxPositions: number | undefined;
}

/** Candidate model files, in order: the Hub's plain layout, then transformers.js' `onnx/` layout. */
const MODEL_FILES = ['model.onnx', 'onnx/model.onnx'];
const DEFAULT_MAX_TOKENS = 512;

function invalid(reason: string, message: string, details: ErrorDetails = {}, cause?: unknown): MemoryError {
  return new MemoryError('INVALID_CONFIG', message, { details: { reason, ...details }, ...(cause ? { cause } : {}) });
}

/** A JSON file of the model directory, or undefined when it is absent. Unparsable is an error. */
function readJson(path: string): Record<string, unknown> | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch (cause) {
    throw invalid('model-invalid', `${path} is not valid JSON`, { path }, cause);
  }
  throw invalid('model-invalid', `${path} does not hold a JSON object`, { path });
}

const positiveInt = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;

/**
 * The token limit: sentence-transformers' `max_seq_length` (what the model was trained with), else
 * the tokenizer's truncation, else `model_max_length` (some tokenizers store a huge sentinel there).
 */
function maxTokensOf(dir: string, tokenizerJson: Record<string, unknown>, config: Record<string, unknown>): number {
  const sbert = readJson(join(dir, 'sentence_bert_config.json'));
  const truncation = tokenizerJson.truncation as Record<string, unknown> | null | undefined;
  const modelMax = positiveInt(config.model_max_length);
  return (
    positiveInt(sbert?.max_seq_length) ??
    positiveInt(truncation?.max_length) ??
    (modelMax !== undefined && modelMax <= 100_000 ? modelMax : undefined) ??
    DEFAULT_MAX_TOKENS
  );
}

function poolingOf(dir: string): Pooling | undefined {
  const config = readJson(join(dir, '1_Pooling', 'config.json'));
  if (config?.pooling_mode_cls_token === true) return 'cls';
  if (config?.pooling_mode_mean_tokens === true) return 'mean';
  return undefined;
}

/** Reads the model directory: the ONNX file's path, the tokenizer, and the defaults it declares. */
export function readModelFiles(settings: ModelSettings): ModelFiles {
  const dir = resolve(settings.modelPath);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw invalid(
      'model-missing',
      `transformers embedder: modelPath ${dir} is not a directory. Point it at a downloaded model ` +
        `(a folder with tokenizer.json and ${MODEL_FILES.join(' or ')}); nothing is downloaded at run time`,
      { path: dir },
    );
  }
  const candidates = settings.modelFile === undefined ? MODEL_FILES : [settings.modelFile];
  const modelFile = candidates.map((f) => join(dir, f)).find((p) => existsSync(p));
  if (modelFile === undefined) {
    throw invalid(
      'model-missing',
      `transformers embedder: no ONNX model in ${dir} (looked for ${candidates.join(', ')})`,
      {
        path: dir,
        tried: candidates,
      },
    );
  }
  const tokenizerJson = readJson(join(dir, 'tokenizer.json'));
  if (tokenizerJson === undefined || typeof tokenizerJson.model !== 'object') {
    throw invalid(
      'model-missing',
      `transformers embedder: ${join(dir, 'tokenizer.json')} is missing or holds no tokenizer model (export the model with its fast tokenizer)`,
      { path: dir },
    );
  }
  const tokenizerConfig = readJson(join(dir, 'tokenizer_config.json')) ?? {};
  const maxPositions = positiveInt(readJson(join(dir, 'config.json'))?.max_position_embeddings);
  if (settings.maxTokens !== undefined && maxPositions !== undefined && settings.maxTokens > maxPositions) {
    throw invalid(
      'option-invalid',
      `transformers embedder: maxTokens ${settings.maxTokens} exceeds the model's ${maxPositions} positions`,
      {
        option: 'maxTokens',
      },
    );
  }
  return {
    dir,
    modelFile,
    tokenizerJson,
    tokenizerConfig,
    pooling: poolingOf(dir),
    maxTokens: Math.min(maxTokensOf(dir, tokenizerJson, tokenizerConfig), maxPositions ?? Number.POSITIVE_INFINITY),
    maxPositions,
  };
}

/**
 * The embedder's identity: the directory's name plus a hash of the model's weights, its tokenizer
 * and the settings that change vectors. Swapping the files for another model (or another
 * quantization of the same) changes it, so the engine re-embeds instead of mixing vector spaces.
 * The weights are hashed as a stream: a 90 MB file never sits in memory twice.
 */
export async function modelIdentity(
  files: ModelFiles,
  settings: ModelSettings,
  vectorSettings: object,
): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(files.modelFile)) hash.update(chunk as Buffer);
  hash.update('\0');
  hash.update(readFileSync(join(files.dir, 'tokenizer.json')));
  hash.update('\0');
  hash.update(JSON.stringify(vectorSettings));
  return `${settings.name ?? basename(files.dir)}#${hash.digest('hex').slice(0, 12)}`;
}
