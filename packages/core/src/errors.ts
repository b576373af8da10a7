/**
 * The closed set of error codes a caller can branch on. A new code is a reviewed, deliberate change:
 * every public function of every package throws only {@link MemoryError} with one of these.
 */
export const MEMORY_ERROR_CODES = [
  /** Input failed validation: empty or oversized content, a bad id, an out-of-range number. */
  'INVALID_INPUT',
  /** The configuration object failed validation, or used a retired setting. */
  'INVALID_CONFIG',
  /** No such row in the caller's scope. Rows of other agents are reported the same way. */
  'NOT_FOUND',
  /** The operation conflicts with the current state (recovering a live memory, a duplicate on recover). */
  'CONFLICT',
  /** The memory is pinned and the operation needs `force: true`. */
  'PINNED',
  /** The engine or store was closed; no further calls are accepted. */
  'ENGINE_CLOSED',
  /** A provider (LLM, embedder, fetch) was called while a write transaction was open. */
  'TRANSACTION_BOUNDARY',
  /** The database failed in a way that is not the caller's input (I/O, corruption, busy timeout). */
  'STORAGE_ERROR',
  /** A schema migration failed; the database was left at the last good version. */
  'MIGRATION_FAILED',
  /** A provider (LLM or embedder) failed or returned output that could not be used. */
  'PROVIDER_ERROR',
  /** A queued job's lease was lost (reaped or taken over); the holder changed nothing. */
  'LEASE_LOST',
  /** The caller's `AbortSignal` stopped the call; work committed before the stop stays committed. */
  'ABORTED',
  /** The operation is not available with this database (a feature not yet on PostgreSQL); nothing changed. */
  'UNSUPPORTED',
] as const;

export type MemoryErrorCode = (typeof MEMORY_ERROR_CODES)[number];

/** JSON-safe details attached to an error, for logs and for callers that want more than the code. */
export type ErrorDetails = Readonly<Record<string, string | number | boolean | null | readonly string[]>>;

/**
 * The registered symbol every {@link MemoryError} carries. `Symbol.for` returns the same symbol in
 * every copy of this package, so an error thrown by one installed copy of `@memory/core` is still
 * recognized by another (a partial upgrade leaves two copies; `instanceof` alone would say no).
 */
const MEMORY_ERROR_BRAND = Symbol.for('@memory/core.MemoryError');

export interface MemoryErrorOptions {
  readonly cause?: unknown;
  readonly details?: ErrorDetails;
}

/**
 * The only error type public functions throw. Branch on `code`, never on `message`.
 *
 * @example
 * ```ts
 * try { await engine.forget({ agentId: 'bot', id, reason: 'user asked' }); }
 * catch (error) { if (isMemoryError(error, 'PINNED')) { ... } }
 * ```
 */
export class MemoryError extends Error {
  override readonly name: string = 'MemoryError';
  readonly code: MemoryErrorCode;
  readonly details: ErrorDetails;

  constructor(code: MemoryErrorCode, message: string, options: MemoryErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = Object.freeze({ ...(options.details ?? {}) });
  }

  toJSON(): { name: string; code: MemoryErrorCode; message: string; details: ErrorDetails } {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

// On the prototype and non-enumerable: no copy's type declarations mention it, so the classes of two
// copies stay assignable to each other, and it never shows up in JSON or in equality checks.
Object.defineProperty(MemoryError.prototype, MEMORY_ERROR_BRAND, { value: true });
// `error instanceof MemoryError` checks the brand too, so it holds across copies of this package;
// subclasses (`instanceof TransactionBoundaryError`) keep the ordinary prototype check.
Object.defineProperty(MemoryError, Symbol.hasInstance, {
  value: function hasInstance(this: unknown, value: unknown): boolean {
    return this === MemoryError ? hasMemoryErrorBrand(value) : Function.prototype[Symbol.hasInstance].call(this, value);
  },
});

/**
 * Thrown when a provider wrapped by the store is called while the current async context holds a
 * write transaction. Provider calls (LLM, embeddings, fetches) must happen before the transaction
 * that applies their result.
 */
export class TransactionBoundaryError extends MemoryError {
  override readonly name = 'TransactionBoundaryError';
  constructor(provider: string, operation: string) {
    super(
      'TRANSACTION_BOUNDARY',
      `${provider}.${operation}() was called inside a write transaction; call providers first, then write their results`,
      { details: { provider, operation } },
    );
  }
}

function hasMemoryErrorBrand(value: unknown): value is MemoryError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MEMORY_ERROR_BRAND] === true;
}

/**
 * True when `error` is a {@link MemoryError}, and, when `code` is given, has that code. It checks the
 * registered brand, not the class, so errors from another installed copy of `@memory/core` count.
 */
export function isMemoryError(error: unknown, code?: MemoryErrorCode): error is MemoryError {
  return hasMemoryErrorBrand(error) && (code === undefined || error.code === code);
}
