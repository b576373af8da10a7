import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemoryError } from '@memory/engine';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { authorize } from './authorize.js';
import { createMemoryMcpServer, type MemoryMcpServerOptions } from './memory-mcp-server.js';
import { isLoopback } from './server-args.js';

/** Where and for whom the HTTP transport serves. */
export interface McpHttpServerOptions extends Omit<MemoryMcpServerOptions, 'agentId' | 'permissions'> {
  /**
   * Without tokens: the one agent scope of every call (required). With tokens: the agent a token
   * covering several agents acts for (it must be one of them); a one-agent token acts for its agent.
   */
  readonly agentId?: string;
  /**
   * Every request must carry `Authorization: Bearer <token>` (from `engine.tokens.create`): calls run
   * in the token's agent scope with its permissions. @default true off loopback, false on it
   */
  readonly requireToken?: boolean;
  /** Any address with tokens; without them loopback only. @default '127.0.0.1' */
  readonly host?: string;
  /** 0 picks a free port. @default 8788 */
  readonly port?: number;
  /** The endpoint path. @default '/mcp' */
  readonly path?: string;
}

/** A running HTTP transport. */
export interface McpHttpServer {
  /** The endpoint to give an MCP client, e.g. `http://127.0.0.1:8788/mcp`. */
  readonly url: string;
  /** Stops accepting requests and waits for open ones. The engine stays open. */
  close(): Promise<void>;
}

/** The Host header values a loopback server answers to: anything else is a DNS-rebinding attempt. */
function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/**
 * Serves the memory tools over MCP Streamable HTTP: on a loopback address in one configured scope,
 * or (with tokens) anywhere, each request in its bearer token's scope and permissions. Stateless:
 * each POST gets its own server and transport (a few objects), so no session state outlives a
 * request and any number of clients can share the one engine.
 *
 * @example
 * ```ts
 * const http = await startMcpHttpServer({ engine, agentId: 'my-agent', port: 8788 });
 * // give http.url to the client; later:
 * await http.close();
 * ```
 */
export async function startMcpHttpServer(options: McpHttpServerOptions): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const loopback = isLoopback(host);
  const requireToken = options.requireToken ?? !loopback;
  if (!loopback && !requireToken)
    throw new MemoryError(
      'INVALID_CONFIG',
      `without tokens the MCP HTTP transport listens on loopback only (127.0.0.1, ::1, localhost), not ${host}: require tokens to listen there`,
    );
  if (!requireToken && options.agentId === undefined)
    throw new MemoryError('INVALID_CONFIG', 'agentId is required when the MCP HTTP transport takes no tokens');
  const path = options.path ?? '/mcp';
  let port = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== path) return reply(res, 404, 'not found');
    const scope = requireToken
      ? await authorize(options.engine, req.headers.authorization, options.agentId)
      : { agentId: options.agentId ?? '' }; // never '': checked at start
    if ('status' in scope) return reply(res, scope.status, scope.message, scope.headers);
    const server = createMemoryMcpServer({ ...options, ...scope });
    const transport = new StreamableHTTPServerTransport({
      // No sessionIdGenerator: stateless mode.
      enableJsonResponse: true,
      // A bearer token is not ambient authority a rebound page could borrow, and off loopback the
      // names the server is reached by are not known here: the Host check guards loopback only.
      enableDnsRebindingProtection: loopback,
      ...(loopback ? { allowedHosts: allowedHosts(port) } : {}),
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };

  const http: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, 'internal error');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 8788, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  port = (http.address() as AddressInfo).port;
  const shownHost = host === '::1' ? '[::1]' : host;
  return {
    url: `http://${shownHost}:${port}${path}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        http.close((error) => (error ? reject(error) : resolve()));
        http.closeIdleConnections();
      }),
  };
}
