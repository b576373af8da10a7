import { Server as NodeHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { MemoryError } from '@memory/engine';
import { createHttpServer, type HttpServer } from './create-http-server.js';
import type { HttpServerOptions } from './options.js';

/** Options of {@link serveHttp}: the server's, plus where to listen. */
export interface ServeHttpOptions extends HttpServerOptions {
  /** `0` picks a free port. @default 8787 */
  readonly port?: number;
  /** Loopback unless the host decides otherwise. @default '127.0.0.1' */
  readonly hostname?: string;
  /**
   * How long an idle keep-alive connection stays open. Longer than clients keep theirs (undici: 4 s),
   * so the client always closes first: a server closing first races a client reusing the
   * connection, and that request fails with ECONNRESET (seen on a loaded machine). @default 65000
   */
  readonly keepAliveTimeoutMs?: number;
}

/** A listening server. */
export interface RunningHttpServer {
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  readonly port: number;
  readonly hostname: string;
  readonly api: HttpServer;
  /** Stops accepting connections and waits for open ones to finish. Does not close the engine. Idempotent. */
  close(): Promise<void>;
}

/**
 * Listens on `hostname:port` with {@link createHttpServer}'s API (Node's HTTP server through
 * `@hono/node-server`).
 *
 * @example
 * ```ts
 * const server = await serveHttp({ engine, port: 8787 });
 * // ... later
 * await server.close();
 * ```
 */
export async function serveHttp(options: ServeHttpOptions): Promise<RunningHttpServer> {
  const { port = 8787, hostname = '127.0.0.1', keepAliveTimeoutMs = 65_000, ...serverOptions } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new MemoryError('INVALID_CONFIG', `port must be an integer 0..65535, got ${String(port)}`);
  }
  if (!Number.isInteger(keepAliveTimeoutMs) || keepAliveTimeoutMs < 1000 || keepAliveTimeoutMs > 3_600_000) {
    throw new MemoryError('INVALID_CONFIG', 'keepAliveTimeoutMs must be an integer 1000..3600000');
  }
  const api = createHttpServer(serverOptions);
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const started = serve({ fetch: api.fetch, port, hostname }, () => resolve(started));
    started.once('error', (error) =>
      reject(
        new MemoryError('INVALID_CONFIG', `could not listen on ${hostname}:${port}: ${error.message}`, {
          cause: error,
        }),
      ),
    );
  });
  if (server instanceof NodeHttpServer) {
    server.keepAliveTimeout = keepAliveTimeoutMs;
    // Node's advice: the header timeout above the keep-alive timeout.
    server.headersTimeout = keepAliveTimeoutMs + 1000;
  }
  const bound = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return Object.freeze({
    url: `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${bound}`,
    port: bound,
    hostname,
    api,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive connections would hold close() open until they time out.
        if ('closeIdleConnections' in server) server.closeIdleConnections();
      });
      return closing;
    },
  });
}
