import { type ApiToken, MemoryError, TOKEN_PERMISSIONS, type TokenPermission } from '@memory/engine';
import { type Command, InvalidArgumentError } from 'commander';
import { when } from '../output.js';
import { type CliRuntime, runCommand } from '../runtime.js';

interface CreateOptions {
  agent: string[];
  permissions: TokenPermission[];
  name?: string;
  expires?: number;
}

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Repeatable `--agent`: every value kept. */
const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** `read,write`: the engine's permission names, comma-separated. */
function permissionList(value: string): TokenPermission[] {
  const names = value.split(',').map((p) => p.trim());
  const known = TOKEN_PERMISSIONS as readonly string[];
  const bad = names.filter((p) => !known.includes(p));
  if (bad.length > 0 || names.length === 0)
    throw new InvalidArgumentError(`permissions are a comma-separated list of ${TOKEN_PERMISSIONS.join(', ')}`);
  return names as TokenPermission[];
}

/** `30d`, `12h`, `45m` from now, or an ISO date-time: epoch milliseconds. */
function expiry(value: string, now: number): number {
  const relative = /^(\d{1,6})([mhd])$/.exec(value);
  if (relative) return now + Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS];
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw new InvalidArgumentError('expected a duration (30d, 12h, 45m) or an ISO date-time');
  return at;
}

function state(token: ApiToken, now: number): string {
  if (token.revokedAt !== null) return `revoked ${when(token.revokedAt)}`;
  if (token.expiresAt !== null && token.expiresAt <= now) return `expired ${when(token.expiresAt)}`;
  return 'live';
}

/**
 * `memory tokens create|list|revoke`: the scoped bearer tokens `memory serve --http` and
 * `memory serve --mcp --listen --require-token` authenticate with. The secret is printed once.
 */
export function registerTokensCommand(program: Command, runtime: CliRuntime): void {
  const now = runtime.now ?? Date.now;
  const tokens = program.command('tokens').description('create, list and revoke scoped API tokens (HTTP and MCP)');

  tokens
    .command('create')
    .description('mint a token for one or more agents; prints its secret once (stdout), details on stderr')
    .option('--agent <id>', 'an agent the token may act for (repeat for several; or MEMORY_AGENT)', collect, [])
    .option('--permissions <list>', `comma-separated: ${TOKEN_PERMISSIONS.join(', ')}`, permissionList, [
      'read',
      'write',
    ] satisfies TokenPermission[])
    .option('--name <label>', 'a label to recognise it by (ci, editor plugin)')
    .option(
      '--expires <when>',
      'stop working after a duration (30d, 12h, 45m) or at an ISO date-time',
      (value: string) => expiry(value, now()),
    )
    .action((options: CreateOptions, command: Command) =>
      runCommand(runtime, command, async ({ output, openEngine, env }) => {
        const fallback = env['MEMORY_AGENT'];
        const agents = options.agent.length > 0 ? options.agent : fallback ? [fallback] : [];
        if (agents.length === 0)
          throw new MemoryError('INVALID_INPUT', 'give the agent(s) the token acts for with --agent <id>');
        // A token may be the first thing made in a new store (before `memory serve --http`).
        const engine = await openEngine({ create: true });
        const created = await engine.tokens.create({
          agents,
          permissions: options.permissions,
          ...(options.name === undefined ? {} : { name: options.name }),
          ...(options.expires === undefined ? {} : { expiresAt: options.expires }),
        });
        if (output.json) {
          output.data(created);
          return undefined;
        }
        output.line(created.token);
        const expires = created.expiresAt === null ? '' : `, expires ${when(created.expiresAt)}`;
        output.note(
          `${output.style('green', 'created')} token ${created.id} for ${created.agents.join(', ')} ` +
            `(${created.permissions.join(', ')}${expires}). ${output.style('yellow', 'The secret above is shown only this once.')}`,
        );
        return undefined;
      }),
    );

  tokens
    .command('list')
    .description('tokens, oldest first (never their secrets)')
    .option('--agent <id>', 'only tokens that may act for this agent')
    .option('--all', 'revoked tokens too')
    .action((options: { agent?: string; all?: boolean }, command: Command) =>
      runCommand(runtime, command, async ({ output, openEngine }) => {
        const engine = await openEngine();
        const list = await engine.tokens.list({
          ...(options.agent === undefined ? {} : { agentId: options.agent }),
          includeRevoked: options.all === true,
        });
        if (output.json) {
          output.data(list);
          return undefined;
        }
        output.table(
          ['id', 'name', 'agents', 'permissions', 'created', 'expires', 'state'],
          list.map((t) => [
            t.id,
            t.name ?? '-',
            t.agents.join(','),
            t.permissions.join(','),
            when(t.createdAt),
            when(t.expiresAt),
            state(t, now()),
          ]),
        );
        return undefined;
      }),
    );

  tokens
    .command('revoke')
    .description('revoke a token at once (exit 3 when there is no such token)')
    .argument('<id>', 'the token id (memory tokens list)')
    .action((id: string, _options: unknown, command: Command) =>
      runCommand(runtime, command, async ({ output, openEngine }) => {
        const engine = await openEngine();
        const { revoked } = await engine.tokens.revoke({ id });
        // revoke says false for both an unknown and an already revoked token; the list tells them apart.
        const known = revoked || (await engine.tokens.list({ includeRevoked: true })).some((t) => t.id === id);
        if (!known) throw new MemoryError('NOT_FOUND', `no token ${id}`);
        if (output.json) output.data({ id, revoked, alreadyRevoked: !revoked });
        else output.line(revoked ? `revoked ${id}` : `${id} was already revoked`);
        return undefined;
      }),
    );
}
