import { MemoryError } from './errors.js';

/**
 * The error a call rejects with when the caller's `AbortSignal` stops it: `ABORTED`, with
 * `details.reason: 'aborted'` and the operation, whichever layer stopped (the HTTP providers throw
 * the same). The signal's reason is kept as `cause`.
 */
export function abortedError(signal: AbortSignal, operation: string): MemoryError {
  return new MemoryError('ABORTED', `${operation} was aborted`, {
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
