import { MemoryError } from './errors.js';

/**
 * The error a call rejects with when the caller's `AbortSignal` stops it. No error code names an
 * abort: this uses `PROVIDER_ERROR` with `details.reason: 'aborted'`, the shape the HTTP providers
 * already throw when their signal fires, so a caller tests one shape whichever layer stopped. The
 * signal's reason is kept as `cause`.
 */
export function abortedError(signal: AbortSignal, operation: string): MemoryError {
  return new MemoryError('PROVIDER_ERROR', `${operation} was aborted`, {
    cause: signal.reason,
    details: { reason: 'aborted', operation },
  });
}

/**
 * A checkpoint for long work: throws {@link abortedError} when `signal` is aborted, else nothing.
 *
 * @example
 * ```ts
 * for (const batch of batches) {
 *   throwIfAborted(signal, 'rememberMany');
 *   write(batch);
 * }
 * ```
 */
export function throwIfAborted(signal: AbortSignal | undefined, operation: string): void {
  if (signal?.aborted) throw abortedError(signal, operation);
}
