import { MEMORY_ERROR_CODES, MemoryError, type MemoryErrorCode } from '@memory/engine';
import { z } from 'zod';

/**
 * The closed set of codes an HTTP error body carries: every `MemoryError` code, plus the ones only
 * the HTTP layer produces. Clients branch on `error.code`, never on the message.
 */
export const HTTP_ERROR_CODES = [
  ...MEMORY_ERROR_CODES,
  /** No bearer token, or one that is malformed, unknown, revoked or expired (all alike). */
  'UNAUTHORIZED',
  /** The token covers the agent but lacks the permission the route needs. */
  'FORBIDDEN',
  /** The request body is larger than the route allows. */
  'PAYLOAD_TOO_LARGE',
  /** The token made more requests in the current window than allowed; see `Retry-After`. */
  'RATE_LIMITED',
  /** Something failed that is not the caller's doing; the details are in the server's log only. */
  'INTERNAL_ERROR',
] as const;

export type HttpErrorCode = (typeof HTTP_ERROR_CODES)[number];

/** The status each code is answered with. */
export const HTTP_STATUS: { readonly [Code in HttpErrorCode]: number } = {
  INVALID_INPUT: 400,
  INVALID_CONFIG: 500,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PINNED: 409,
  ENGINE_CLOSED: 503,
  TRANSACTION_BOUNDARY: 500,
  STORAGE_ERROR: 503,
  MIGRATION_FAILED: 500,
  PROVIDER_ERROR: 502,
  LEASE_LOST: 409,
  ABORTED: 503,
  UNSUPPORTED: 501,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
};

/** The JSON body of every error response. */
export const errorBodySchema = z
  .strictObject({
    error: z.strictObject({
      code: z.enum(HTTP_ERROR_CODES),
      message: z.string(),
      details: z.record(z.string(), z.unknown()),
    }),
  })
  .meta({ description: 'The body of every error response' });

export type ErrorBody = z.infer<typeof errorBodySchema>;

/** An error the HTTP layer raises itself (auth, limits); the handler turns it into an error response. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly code: HttpErrorCode;
  readonly details: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: HttpErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.code = code;
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }
}

// Every 404 has this one body: a missing object, another agent's object, an agent outside the
// token's scope and an unknown route cannot be told apart by status, body or headers.
const NOT_FOUND_BODY: ErrorBody = { error: { code: 'NOT_FOUND', message: 'not found', details: {} } };

/** The status, body and extra headers for any thrown value. */
export function errorResponse(error: unknown): {
  status: number;
  body: ErrorBody;
  headers: Readonly<Record<string, string>>;
} {
  if (error instanceof HttpError) {
    return {
      status: HTTP_STATUS[error.code],
      body: error.code === 'NOT_FOUND' ? NOT_FOUND_BODY : bodyOf(error.code, error.message, error.details),
      headers: error.headers,
    };
  }
  if (error instanceof MemoryError) {
    const code: MemoryErrorCode = error.code;
    return {
      status: HTTP_STATUS[code],
      body: code === 'NOT_FOUND' ? NOT_FOUND_BODY : bodyOf(code, error.message, { ...error.details }),
      headers: {},
    };
  }
  return { status: 500, body: bodyOf('INTERNAL_ERROR', 'internal error', {}), headers: {} };
}

function bodyOf(code: HttpErrorCode, message: string, details: Record<string, unknown>): ErrorBody {
  return { error: { code, message, details } };
}

/** The 404 every out-of-scope or missing object gets. */
export const notFound = (): HttpError => new HttpError('NOT_FOUND', 'not found');

/** The value, or the 404 every missing (or out-of-scope) object gets. */
export function found<T>(value: T | undefined): T {
  if (value === undefined) throw notFound();
  return value;
}
