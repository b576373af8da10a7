import { type ApiToken, isMemoryError, type MemoryEngine, type TokenPermission } from '@memory/engine';
import { HttpError, notFound } from './errors.js';
import type { RateLimiter } from './rate-limit.js';

const BEARER = /^Bearer[ ]+([^\s]+)[ ]*$/i;

const unauthorized = (): HttpError =>
  new HttpError('UNAUTHORIZED', 'a valid bearer token is required', {
    headers: { 'www-authenticate': 'Bearer realm="memory"' },
  });

/**
 * The live token the request presents, after counting it against its rate limit. A missing,
 * malformed, unknown, revoked or expired token is the same 401.
 */
export async function authenticate(
  engine: MemoryEngine,
  limiter: RateLimiter | undefined,
  authorization: string | undefined,
): Promise<ApiToken> {
  const match = BEARER.exec(authorization ?? '');
  if (!match?.[1]) throw unauthorized();
  // A string too long to be a token is refused by verify as bad input: to the caller, just no token.
  // Anything else (a closed engine, a storage failure) is not the caller's doing and passes through.
  const token = await engine.tokens
    .verify({ token: match[1] })
    .catch((error: unknown) => (isMemoryError(error, 'INVALID_INPUT') ? undefined : Promise.reject(error)));
  if (!token) throw unauthorized();
  const waitMs = limiter?.take(token.id) ?? 0;
  if (waitMs > 0) {
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    throw new HttpError('RATE_LIMITED', `too many requests for this token; retry in ${seconds} s`, {
      details: { retryAfterMs: waitMs },
      headers: { 'retry-after': String(seconds) },
    });
  }
  return token;
}

/**
 * The agent a request acts for: `agentId` from the query, or the token's only agent. An agent the
 * token does not cover is answered with the same 404 as a missing object, before anything is read.
 */
export function resolveAgent(token: ApiToken, requested: string | undefined): string {
  if (requested === undefined) {
    const [only, ...more] = token.agents;
    if (only !== undefined && more.length === 0) return only;
    throw new HttpError('INVALID_INPUT', 'agentId is required: this token covers several agents', {
      details: { issues: ['agentId: required'] },
    });
  }
  if (!token.agents.includes(requested)) throw notFound();
  return requested;
}

/** 403 when the token covers the agent but lacks the permission (checked after the scope). */
export function requirePermission(token: ApiToken, permission: TokenPermission): void {
  if (!token.permissions.includes(permission)) {
    throw new HttpError('FORBIDDEN', `this token lacks the ${permission} permission`, {
      details: { permission },
    });
  }
}
