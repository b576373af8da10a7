import { resolve } from 'node:path';
import { MemoryError } from '@memory/engine';
import { isPostgresUrl, parseEmbedderChoice, parseListen } from '@memory/mcp/host';
import type { Command } from 'commander';
import { type CliRuntime, type CommandContext, runCommand } from '../runtime.js';

interface ServeOptions {
  agent?: string;
  mcp?: boolean;
  http?: string | boolean;
  listen?: string;
  requireToken?: boolean;
}

/** Where `memory serve --http` listens when no address is given. */
const DEFAULT_HTTP = '127.0.0.1:8787';

/** Settles on the first SIGINT or SIGTERM: the cue for a clean shutdown. */
function stopSignal(): Promise<void> {
  return new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

/**
 * `memory serve --http [host:port]`: the REST API of `@memory/http` (scoped bearer tokens);
 * `memory serve --mcp --agent a [--listen host:port [--require-token]]`: the MCP server of
 * `@memory/mcp` on stdio, or on Streamable HTTP with --listen. Both stop cleanly on SIGINT/SIGTERM.
 */
export function registerServeCommand(program: Command, runtime: CliRuntime): void {
  program
    .command('serve')
    .description(
      'serve the memory to other programs: --http (REST API with tokens) or --mcp (stdio, or HTTP with --listen)',
    )
    .option(
      '--http [host:port]',
      `serve the HTTP API (every request needs a token) at ${DEFAULT_HTTP} or the given address`,
    )
    .option('--mcp', 'serve the MCP tools and resources')
    .option('--agent <id>', 'with --mcp: the agent scope every call reads and writes (or MEMORY_AGENT)')
    .option(
      '--listen <[host:]port>',
      'with --mcp: Streamable HTTP instead of stdio (loopback unless tokens are required)',
    )
    .option(
      '--require-token',
      "with --mcp --listen: every request needs a bearer token and runs in the token's agent scope",
    )
    .action((options: ServeOptions, command: Command) =>
      runCommand(runtime, command, async (ctx) => {
        if (options.http !== undefined && options.mcp)
          throw new MemoryError('INVALID_INPUT', 'choose one of --http and --mcp (run two servers for both)');
        if (options.http !== undefined)
          return serveRest(ctx, typeof options.http === 'string' ? options.http : DEFAULT_HTTP);
        if (options.mcp) return serveMcp(ctx, options);
        throw new MemoryError('INVALID_INPUT', 'choose what to serve: --http or --mcp');
      }),
    );
}

async function serveRest(ctx: CommandContext, listen: string): Promise<undefined> {
  const { host, port } = parseListen(listen);
  const engine = await ctx.openEngine({ create: true });
  // Loaded here so that no other command pays for the HTTP framework at start.
  const { serveHttp } = await import('@memory/http');
  // Background work the API starts (imports, document ingest) runs in this process.
  await engine.start();
  const server = await serveHttp({ engine, hostname: host, port });
  ctx.output.note(`memory: serving the HTTP API on ${server.url} (bearer tokens: memory tokens create)`);
  await stopSignal();
  await server.close();
  // runCommand closes the engine.
  return undefined;
}

async function serveMcp(ctx: CommandContext, options: ServeOptions): Promise<undefined> {
  const agentId = options.agent ?? ctx.env['MEMORY_AGENT'];
  if (options.requireToken && options.listen === undefined)
    throw new MemoryError('INVALID_INPUT', '--require-token goes with --listen');
  const http = options.listen === undefined ? undefined : parseListen(options.listen);
  if (!agentId && !(http && options.requireToken))
    throw new MemoryError('INVALID_INPUT', 'give the agent scope with --agent <id> (or MEMORY_AGENT)');
  // Loaded here so that no other command pays for the MCP SDK at start.
  const { isLoopback, runMcpServer } = await import('@memory/mcp');
  const requireToken = options.requireToken === true || (http !== undefined && !isLoopback(http.host));
  const running = await runMcpServer({
    db: isPostgresUrl(ctx.globals.db) ? ctx.globals.db : resolve(ctx.globals.db),
    embedder: parseEmbedderChoice(ctx.globals.embedder),
    ...(agentId ? { agentId } : {}),
    ...(http ? { http } : {}),
    ...(requireToken ? { requireToken } : {}),
  });
  const whose = requireToken ? "each token's agent" : `agent ${agentId}`;
  ctx.output.note(`memory: serving ${whose} over MCP on ${running.url ?? 'stdio'}`);
  // Until the stdio client hangs up, or a signal asks the server to stop.
  await Promise.race([running.closed, stopSignal()]);
  await running.stop();
  return undefined;
}
