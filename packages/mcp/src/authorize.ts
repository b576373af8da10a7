import { type ApiToken, isMemoryError, type MemoryEngine, type TokenPermission } from '@memory/engine';

/** The scope and permissions a request's token grants. */
export interface TokenScope {
  readonly agentId: string;
  readonly permissions: readonly TokenPermission[];
}

/** Why a request is refused: the status and message of the reply. */
export interface Refusal {
  readonly status: 401 | 403 | 404;
  readonly message: string;
  readonly headers?: Record<string, string>;
}

const BEARER = /^Bearer[ ]+([^\s]+)[ ]*$/i;

/**
 * The scope a bearer token grants, as `@memory/http` decides it: a missing, malformed, unknown,
 * revoked or expired token is one 401; a token covering several agents acts for the configured
 * agent, and a token that does not cover it gets the same 404 as an unknown path; a token with
 * neither read nor write gets 403.
 */
export async function authorize(
  engine: MemoryEngine,
  authorization: string | undefined,
  configuredAgent: string | undefined,
): Promise<TokenScope | Refusal> {
  const presented = BEARER.exec(authorization ?? '')?.[1];
  // A string too long to be a token is bad input to verify: to the caller, just no token. Anything
  // else (a closed engine, a storage failure) is not the caller's doing and passes through as a 500.
  const token: ApiToken | undefined = presented
    ? await engine.tokens
        .verify({ token: presented })
        .catch((error: unknown) => (isMemoryError(error, 'INVALID_INPUT') ? undefined : Promise.reject(error)))
    : undefined;
  if (!token)
    return {
      status: 401,
      message: 'a valid bearer token is required',
      headers: { 'www-authenticate': 'Bearer realm="memory"' },
    };
  const [only, ...more] = token.agents;
  const agentId = more.length === 0 ? only : configuredAgent;
  if (agentId === undefined || !token.agents.includes(agentId)) return { status: 404, message: 'not found' };
  if (!token.permissions.includes('read') && !token.permissions.includes('write'))
    return { status: 403, message: 'this token lacks the read and write permissions' };
  return { agentId, permissions: token.permissions };
}
