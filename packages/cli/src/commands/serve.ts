import { resolve } from 'node:path';
import { MemoryError } from '@memory/engine';
import { parseEmbedderChoice, parseListen } from '@memory/mcp/host';
import type { Command } from 'commander';
import { agentOf, type CliRuntime, runCommand } from '../runtime.js';

interface ServeOptions {
  agent?: string;
  mcp?: boolean;
  listen?: string;
}

/**
 * `memory serve --mcp --agent a [--listen host:port]`: the MCP server of `@memory/mcp` on stdio,
 * or on Streamable HTTP with --listen. Other surfaces join as options here.
 */
export function registerServeCommand(program: Command, runtime: CliRuntime): void {
  program
    .command('serve')
    .description("serve one agent's memory to other programs: --mcp (stdio, or Streamable HTTP with --listen)")
    .option('--mcp', 'serve the MCP tools and resources')
    .option('--agent <id>', 'the agent scope every call reads and writes (or MEMORY_AGENT)')
    .option('--listen <[host:]port>', 'with --mcp: Streamable HTTP on a loopback address instead of stdio')
    .action((options: ServeOptions, command: Command) =>
      runCommand(runtime, command, async ({ output, globals, env }) => {
        if (!options.mcp) throw new MemoryError('INVALID_INPUT', 'choose what to serve: --mcp');
        const agentId = agentOf(options, env);
        // Loaded here so that no other command pays for the MCP SDK at start.
        const { runMcpServer } = await import('@memory/mcp');
        const running = await runMcpServer({
          db: resolve(globals.db),
          agentId,
          embedder: parseEmbedderChoice(globals.embedder),
          ...(options.listen === undefined ? {} : { http: parseListen(options.listen) }),
        });
        output.note(`memory: serving agent ${agentId} over MCP on ${running.url ?? 'stdio'}`);
        const signal = new Promise<void>((done) => {
          process.once('SIGINT', done);
          process.once('SIGTERM', done);
        });
        // Until the stdio client hangs up, or a signal asks the server to stop.
        await Promise.race([running.closed, signal]);
        await running.stop();
        return undefined;
      }),
    );
}
