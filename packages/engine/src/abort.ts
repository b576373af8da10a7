import { invalidInput } from '@memory/core';
import { z } from 'zod';

/** The optional `signal` of a long call: a real `AbortSignal` (the engine listens to it). */
export const signalSchema = z.instanceof(AbortSignal, { error: 'signal must be an AbortSignal' });

/** The optional `signal` every long engine call accepts. */
export interface Abortable {
  /** Stops the call at its next checkpoint; it then rejects with a `MemoryError` whose code is `ABORTED`. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Splits the optional `signal` off a call's input, so the strict schema of the work behind it sees
 * only its own fields. A `signal` that is not an `AbortSignal` is `INVALID_INPUT`; input that is not
 * an object is passed on unchanged for that schema to reject.
 */
export function takeSignal(input: unknown, operation: string): { signal: AbortSignal | undefined; rest: unknown } {
  if (typeof input !== 'object' || input === null || !('signal' in input)) return { signal: undefined, rest: input };
  const { signal, ...rest } = input as { signal?: unknown };
  if (signal === undefined) return { signal: undefined, rest };
  const parsed = signalSchema.safeParse(signal);
  if (!parsed.success) throw invalidInput(operation, [{ path: ['signal'], message: 'signal must be an AbortSignal' }]);
  return { signal: parsed.data, rest };
}
