import { type MemoryEngine, MemoryError } from '@memory/engine';
import { startMcpHttpServer } from './http-server.js';
import { openEngineForHost } from './open-engine.js';
import type { ServerArgs } from './server-args.js';
import { serveMcpStdio } from './stdio-server.js';

/** A server started by `runMcpServer`. */
export interface RunningServer {
  /** The HTTP endpoint, or undefined on stdio. */
  readonly url?: string;
  /** Settles when a stdio client disconnects (never on HTTP: stop it with `stop`). */
  readonly closed: Promise<void>;
  /** Stops serving and closes the engine. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Opens the database, checks the agent id through the engine, starts background work (document
 * ingest, imports) and serves MCP over stdio or HTTP as `args` says.
 *
 * @example
 * ```ts
 * const running = await runMcpServer(parseServerArgs(process.argv.slice(2)));
 * await running.closed;
 * await running.stop();
 * ```
 */
export async function runMcpServer(args: ServerArgs): Promise<RunningServer> {
  const engine: MemoryEngine = await openEngineForHost({ db: args.db, embedder: args.embedder });
  try {
    // The engine validates the id, so a bad --agent fails now instead of on every tool call.
    if (args.agentId !== undefined) await engine.memoryHead({ agentId: args.agentId });
    await engine.start();
    if (args.http) {
      const http = await startMcpHttpServer({
        engine,
        ...(args.agentId === undefined ? {} : { agentId: args.agentId }),
        ...(args.requireToken === undefined ? {} : { requireToken: args.requireToken }),
        host: args.http.host,
        port: args.http.port,
      });
      let stopping: Promise<void> | undefined;
      return {
        url: http.url,
        closed: new Promise<void>(() => {}),
        stop: () => {
          stopping ??= http.close().finally(() => engine.close());
          return stopping;
        },
      };
    }
    if (args.agentId === undefined) throw new MemoryError('INVALID_INPUT', 'give the agent scope with --agent');
    const { closed } = await serveMcpStdio({ engine, agentId: args.agentId });
    return { closed, stop: () => engine.close() };
  } catch (error) {
    await engine.close();
    throw error;
  }
}
