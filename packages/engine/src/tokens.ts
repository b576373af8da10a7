import { createHash, timingSafeEqual } from 'node:crypto';
import { agentIdSchema, idSchema, labelSchema, MemoryError, parseInput, timeSchema } from '@memory/core';
import {
  type ApiTokenRow,
  findApiTokenProgram,
  insertApiTokenProgram,
  listApiTokensProgram,
  revokeApiTokenProgram,
} from '@memory/store';
import { z } from 'zod';
import type { EngineContext } from './context.js';

/** What a token allows within its agents: reading, writing, engine-wide operations, telemetry. */
export const TOKEN_PERMISSIONS = ['read', 'write', 'admin', 'analytics'] as const;
export type TokenPermission = (typeof TOKEN_PERMISSIONS)[number];

/** A token as `list` and `verify` return it: never its secret, which only `create` shows, once. */
export interface ApiToken {
  readonly id: string;
  readonly name: string | null;
  /** The agent scopes the token may act for (one or more; never all). */
  readonly agents: readonly string[];
  readonly permissions: readonly TokenPermission[];
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly revokedAt: number | null;
}

/** `tokens.create`'s answer: the token with its secret, which cannot be read back later. */
export interface CreatedApiToken extends ApiToken {
  /** The bearer token (`mem_<id>.<64 hex>`). Show it to the operator once; only its hash is kept. */
  readonly token: string;
}

const MAX_TOKEN_AGENTS = 1000;

const createSchema = z.strictObject({
  /** The agents the token may act for. */
  agents: z
    .array(agentIdSchema, { error: 'agents must be an array of agent ids' })
    .min(1, 'a token needs at least one agent')
    .max(MAX_TOKEN_AGENTS, `at most ${MAX_TOKEN_AGENTS} agents`),
  permissions: z
    .array(z.enum(TOKEN_PERMISSIONS, { error: `permissions are: ${TOKEN_PERMISSIONS.join(', ')}` }))
    .min(1, 'a token needs at least one permission'),
  /** A label for the operator (`ci`, `editor plugin`). */
  name: labelSchema(256, 'name').optional(),
  /** After this time the token stops working. */
  expiresAt: timeSchema.optional(),
});
const listSchema = z.strictObject({
  /** Only tokens that may act for this agent. */
  agentId: agentIdSchema.optional(),
  /** @default false */
  includeRevoked: z.boolean().optional(),
});
const revokeSchema = z.strictObject({ id: idSchema });
const verifySchema = z.strictObject({ token: z.string({ error: 'token must be a string' }).max(1024) });

export type CreateTokenInput = z.input<typeof createSchema>;
export type ListTokensInput = z.input<typeof listSchema>;

/** Scoped API tokens (stored hashed), for the HTTP surface and the CLI. Not agent-scoped themselves. */
export interface EngineTokens {
  /** Mints a token for these agents and permissions; the returned `token` is the only copy of its secret. */
  create(input: CreateTokenInput): Promise<CreatedApiToken>;
  /** Tokens, oldest first (revoked ones with `includeRevoked`); optionally only those covering `agentId`. */
  list(input?: ListTokensInput): Promise<ApiToken[]>;
  /** Revokes a token at once; `revoked: false` when it does not exist or was already revoked. */
  revoke(input: { id: string }): Promise<{ revoked: boolean }>;
  /**
   * The live token a bearer string names, or undefined (malformed, unknown, revoked or expired, all
   * alike). The secret is compared in constant time against its stored hash.
   */
  verify(input: { token: string }): Promise<ApiToken | undefined>;
}

const TOKEN_PATTERN = /^mem_([A-Za-z0-9][A-Za-z0-9_.:-]{0,127})\.([0-9a-f]{64})$/;
// Compared against when the token id is unknown, so a miss does the same hashing and comparison
// work as a hit with a wrong secret.
const NO_HASH = Buffer.alloc(32);

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

function toToken(row: ApiTokenRow): ApiToken {
  return {
    id: row.id,
    name: row.name,
    agents: parseList(row.agents),
    permissions: parseList(row.permissions).filter((p): p is TokenPermission =>
      (TOKEN_PERMISSIONS as readonly string[]).includes(p),
    ),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

/** A JSON string array the engine wrote; anything else (a damaged row) grants nothing. */
function parseList(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/** Mints a token: a fresh id, 256 random bits of secret from the engine's random source, stored hashed. */
export async function createToken(ctx: EngineContext, input: unknown): Promise<CreatedApiToken> {
  const parsed = parseInput(createSchema, input, 'tokens.create');
  const now = ctx.portable.clock.now();
  if (parsed.expiresAt !== undefined && parsed.expiresAt <= now) {
    throw new MemoryError('INVALID_INPUT', 'invalid input to tokens.create: expiresAt: must be in the future', {
      details: { operation: 'tokens.create', issues: ['expiresAt: must be in the future'] },
    });
  }
  const secretBytes = new Uint8Array(32);
  ctx.random.fill(secretBytes);
  const secret = Buffer.from(secretBytes).toString('hex');
  const row: ApiTokenRow = {
    id: ctx.portable.ids.next(),
    name: parsed.name ?? null,
    agents: JSON.stringify([...new Set(parsed.agents)]),
    permissions: JSON.stringify(TOKEN_PERMISSIONS.filter((p) => parsed.permissions.includes(p))),
    secret_hash: sha256(secret).toString('hex'),
    created_at: now,
    expires_at: parsed.expiresAt ?? null,
    revoked_at: null,
  };
  await ctx.portable.db.write(() => insertApiTokenProgram(row));
  return { ...toToken(row), token: `mem_${row.id}.${secret}` };
}

/** Tokens, oldest first, optionally only live ones covering one agent. */
export async function listTokens(ctx: EngineContext, input: unknown): Promise<ApiToken[]> {
  const { agentId, includeRevoked } = parseInput(listSchema, input ?? {}, 'tokens.list');
  const rows = await ctx.portable.db.read(() => listApiTokensProgram({ includeRevoked: includeRevoked === true }));
  const tokens = rows.map(toToken);
  return agentId === undefined ? tokens : tokens.filter((t) => t.agents.includes(agentId));
}

/** Revokes a token; takes effect on the next request that presents it. */
export async function revokeToken(ctx: EngineContext, input: unknown): Promise<{ revoked: boolean }> {
  const { id } = parseInput(revokeSchema, input, 'tokens.revoke');
  const now = ctx.portable.clock.now();
  return { revoked: await ctx.portable.db.write(() => revokeApiTokenProgram(id, now)) };
}

/** The live token named by a bearer string, or undefined; constant-time on the secret. */
export async function verifyToken(ctx: EngineContext, input: unknown): Promise<ApiToken | undefined> {
  const { token } = parseInput(verifySchema, input, 'tokens.verify');
  const match = TOKEN_PATTERN.exec(token);
  if (!match) return undefined;
  const [, id = '', secret = ''] = match;
  const row = await ctx.portable.db.read(() => findApiTokenProgram(id));
  const stored = row ? Buffer.from(row.secret_hash, 'hex') : NO_HASH;
  const presented = sha256(secret);
  const same = stored.length === presented.length && timingSafeEqual(stored, presented);
  if (!row || !same) return undefined;
  const now = ctx.portable.clock.now();
  if (row.revoked_at !== null || (row.expires_at !== null && row.expires_at <= now)) return undefined;
  return toToken(row);
}
