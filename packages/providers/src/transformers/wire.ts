import { type ErrorDetails, isMemoryError, MEMORY_ERROR_CODES, MemoryError, type MemoryErrorCode } from '@memory/core';
import type { ModelInfo } from './model.js';
import type { ModelSettings } from './model-files.js';

// Messages between the transformers embedder and its worker thread.

/** An error as it crosses the thread boundary (a MemoryError's code and details survive). */
export interface WireError {
  readonly code?: string;
  readonly message: string;
  readonly details?: ErrorDetails;
}

export type WorkerData = ModelSettings;

export type WorkerMessage =
  | { readonly type: 'ready'; readonly info: ModelInfo }
  | { readonly type: 'failed'; readonly error: WireError }
  | { readonly type: 'vectors'; readonly id: number; readonly vectors: Float32Array }
  | { readonly type: 'error'; readonly id: number; readonly error: WireError };

export interface EmbedRequest {
  readonly id: number;
  readonly texts: readonly string[];
}

export function toWire(error: unknown): WireError {
  if (isMemoryError(error)) return { code: error.code, message: error.message, details: error.details };
  return { message: error instanceof Error ? error.message : String(error) };
}

/** Back to a MemoryError; anything without a code is a failure of the model at run time. */
export function fromWire(error: WireError): MemoryError {
  const code = (MEMORY_ERROR_CODES as readonly string[]).includes(error.code ?? '')
    ? (error.code as MemoryErrorCode)
    : 'PROVIDER_ERROR';
  const message =
    code === 'PROVIDER_ERROR' && error.code === undefined ? `transformers embedder: ${error.message}` : error.message;
  return new MemoryError(code, message, { details: error.details ?? { reason: 'inference-failed' } });
}
