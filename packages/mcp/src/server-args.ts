import { parseArgs } from 'node:util';
import { MemoryError } from '@memory/engine';
import { type EmbedderChoice, parseEmbedderChoice } from './open-engine.js';

/** What `memory-mcp` was asked to serve. */
export interface ServerArgs {
  readonly db: string;
  /** The scope of every call; with tokens, only the agent a several-agent token acts for (optional then). */
  readonly agentId?: string;
  readonly embedder: EmbedderChoice;
  /** Streamable HTTP on this host and port; stdio when absent. */
  readonly http?: { readonly host: string; readonly port: number };
  /** HTTP requests must carry a bearer token (always so off loopback). */
  readonly requireToken?: boolean;
}

/** The bin's usage text (printed with --help and after a usage error). */
export const SERVER_USAGE = `Usage: memory-mcp --db <file> --agent <id> [--http [host:]port [--require-token]] [--embedder none|offline]
       memory-mcp --help | --version

Serves one agent's memory over MCP: stdio by default (for desktop clients), Streamable HTTP with --http.
  --db <file>         SQLite database (created if missing); or MEMORY_DB
  --agent <id>        the agent scope every tool reads and writes; or MEMORY_AGENT
  --http [host:]port  serve Streamable HTTP at http://host:port/mcp (default host 127.0.0.1)
  --require-token     with --http: every request needs a bearer token (memory tokens create); calls run in
                      the token's agent scope with its permissions, --agent only picks among a token's
                      several agents. Implied (and required) for a host other than loopback.
  --embedder <name>   none (default: lexical, hints, graph) or offline (bundled GloVe vectors, no network)`;

/** Whether a host is this machine only: without tokens the HTTP transport listens nowhere else. */
export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost';
}

/** Parses `host:port`, `:port` or `port`. */
export function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]+)?:)?(\d{1,5})$/.exec(value);
  const port = Number(match?.[2]);
  if (!match || port > 65_535)
    throw new MemoryError('INVALID_INPUT', `expected [host:]port for --http, e.g. 127.0.0.1:8788, not ${value}`);
  const host = (match[1] ?? '127.0.0.1').replace(/^\[(.*)\]$/, '$1');
  return { host, port };
}

/** Parses the command line (without node and the script), falling back to MEMORY_DB and MEMORY_AGENT. */
export function parseServerArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ServerArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      db: { type: 'string' },
      agent: { type: 'string' },
      http: { type: 'string' },
      embedder: { type: 'string' },
      'require-token': { type: 'boolean' },
    },
    strict: true,
  });
  const db = values.db ?? env['MEMORY_DB'];
  const agentId = values.agent ?? env['MEMORY_AGENT'];
  if (!db) throw new MemoryError('INVALID_INPUT', 'give the database file with --db (or MEMORY_DB)');
  const http = values.http === undefined ? undefined : parseListen(values.http);
  const requireToken = values['require-token'] === true || (http !== undefined && !isLoopback(http.host));
  if (requireToken && !http) throw new MemoryError('INVALID_INPUT', '--require-token goes with --http');
  if (!agentId && !requireToken)
    throw new MemoryError('INVALID_INPUT', 'give the agent scope with --agent (or MEMORY_AGENT)');
  return {
    db,
    ...(agentId ? { agentId } : {}),
    embedder: parseEmbedderChoice(values.embedder ?? 'none'),
    ...(http ? { http } : {}),
    ...(requireToken ? { requireToken } : {}),
  };
}
