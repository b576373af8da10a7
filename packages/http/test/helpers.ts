import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createManualClock,
  createMemoryEngine,
  createSequentialIds,
  type MemoryEngine,
  type MemoryEngineOptions,
  type TokenPermission,
} from '@memory/engine';
import { afterEach } from 'vitest';
import { type HttpServerOptions, type RunningHttpServer, serveHttp } from '../src/index.js';

export const T0 = Date.UTC(2026, 0, 1);

/** A response as a test reads it: status, headers and the parsed JSON body. */
export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  readonly body: any;
  readonly text: string;
}

export interface TestServer {
  readonly engine: MemoryEngine;
  readonly server: RunningHttpServer;
  readonly clock: ReturnType<typeof createManualClock>;
  readonly spoolDirectory: string;
  /** A token for these agents and permissions (every permission by default). */
  token(agents: string[], permissions?: TokenPermission[]): Promise<string>;
  /** One request over real HTTP to the server on 127.0.0.1. */
  request(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> },
  ): Promise<Reply>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An engine on `:memory:` with a manual clock, served on 127.0.0.1 at a free port; closed after the test. */
export async function startServer(
  options: { engine?: Partial<MemoryEngineOptions>; http?: Omit<HttpServerOptions, 'engine'> } = {},
): Promise<TestServer> {
  const clock = createManualClock(T0);
  const spoolDirectory = mkdtempSync(join(tmpdir(), 'memory-http-'));
  const engine = await createMemoryEngine({
    database: { path: ':memory:' },
    clock,
    ids: createSequentialIds('id'),
    config: { imports: { spoolDirectory } },
    ...options.engine,
  });
  const server = await serveHttp({ engine, port: 0, clock, ...options.http });
  cleanups.push(async () => {
    await server.close();
    await engine.close();
    rmSync(spoolDirectory, { recursive: true, force: true, maxRetries: 5 });
  });
  return {
    engine,
    server,
    clock,
    spoolDirectory,
    token: async (agents, permissions = ['read', 'write', 'admin', 'analytics']) =>
      (await engine.tokens.create({ agents, permissions })).token,
    request: async (method, path, opts = {}) => {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      let body: string | undefined = opts.raw;
      if (opts.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(opts.body);
      }
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body, duplex: 'half' }),
      } as RequestInit);
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (response.ok) checkPublishedSchema(server, method, path, parsed);
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
  };
}

/**
 * Every successful response of every test must match the response schema `/openapi.json`
 * publishes for its route, so the document cannot promise what the engine no longer returns.
 */
function checkPublishedSchema(server: RunningHttpServer, method: string, path: string, body: unknown): void {
  const pathname = new URL(path, 'http://x').pathname;
  const route = server.api.routes.find(
    (r) => r.method === method.toLowerCase() && new RegExp(`^${r.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(pathname),
  );
  if (!route?.response) return;
  const parsed = route.response.safeParse(body);
  if (!parsed.success) {
    throw new Error(`${method} ${path}: the response does not match its published schema: ${parsed.error.message}`);
  }
}
