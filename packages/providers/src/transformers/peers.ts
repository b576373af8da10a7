import { MemoryError } from '@memory/core';

// The two optional peers, loaded only when a transformers embedder starts, and described here by
// the few members used: the package's declarations never name the peers' types, so a host without
// them still type-checks.

/** The command the "peer missing" error names (the versions tested with this package). */
export const INSTALL_COMMAND = 'npm install onnxruntime-node@^1.30.0 @huggingface/tokenizers@^0.2.0';

export const RUNTIME_PEER = 'onnxruntime-node';
export const TOKENIZERS_PEER = '@huggingface/tokenizers';

export interface OrtTensor {
  readonly data: unknown;
  readonly dims: readonly number[];
}

export interface OrtSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly inputMetadata?: readonly { readonly name: string; readonly type?: string }[];
  run(feeds: Record<string, OrtTensor>, fetches?: readonly string[]): Promise<Record<string, OrtTensor>>;
  release?(): Promise<void>;
}

export interface OrtModule {
  readonly InferenceSession: { create(path: string, options?: Record<string, unknown>): Promise<OrtSession> };
  readonly Tensor: new (
    type: 'int64' | 'int32',
    data: BigInt64Array | Int32Array,
    dims: readonly number[],
  ) => OrtTensor;
}

export interface Tokenizer {
  encode(text: string, options?: { add_special_tokens?: boolean }): { readonly ids: readonly number[] };
  token_to_id(token: string): number | undefined;
}

export interface TokenizersModule {
  readonly Tokenizer: new (tokenizerJson: object, tokenizerConfig: object) => Tokenizer;
}

export interface PeerNames {
  readonly runtime: string;
  readonly tokenizers: string;
}

export const DEFAULT_PEERS: PeerNames = { runtime: RUNTIME_PEER, tokenizers: TOKENIZERS_PEER };

function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/**
 * Imports a peer by name. The specifier is a variable on purpose: a host's bundler then leaves the
 * import alone instead of trying to bundle a native addon it was never going to use.
 */
export async function importPeer<T extends object>(specifier: string, member: string): Promise<T> {
  let ns: Record<string, unknown>;
  try {
    ns = (await import(specifier)) as Record<string, unknown>;
  } catch (cause) {
    if (isModuleNotFound(cause)) {
      throw new MemoryError(
        'INVALID_CONFIG',
        `createTransformersEmbedder needs the optional peer dependency ${specifier}, which is not installed. ` +
          `Install both peers with: ${INSTALL_COMMAND} (where the NuGet feed is unreachable, prefix ONNXRUNTIME_NODE_INSTALL=skip: ` +
          'the CPU runtime ships inside the npm package)',
        { cause, details: { reason: 'peer-missing', peer: specifier, install: INSTALL_COMMAND } },
      );
    }
    throw new MemoryError('INVALID_CONFIG', `${specifier} failed to load: ${(cause as Error).message}`, {
      cause,
      details: { reason: 'peer-failed', peer: specifier },
    });
  }
  // onnxruntime-node is CommonJS: its API may sit on the namespace or on its default export.
  const api = member in ns ? ns : (ns.default as Record<string, unknown> | undefined);
  if (!api || !(member in api)) {
    throw new MemoryError(
      'INVALID_CONFIG',
      `${specifier} does not export ${member}; install a tested version: ${INSTALL_COMMAND}`,
      {
        details: { reason: 'peer-failed', peer: specifier },
      },
    );
  }
  return api as T;
}
