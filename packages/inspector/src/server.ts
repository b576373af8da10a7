import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isMemoryError, type MemoryEngine } from '@memory/engine';
import { html, page } from './html.js';
import type { PageContext, PageResult } from './pages/context.js';
import { entitiesPage, entityPage } from './pages/graph.js';
import { healthPage } from './pages/health.js';
import { mapPage } from './pages/map.js';
import { memoryPage } from './pages/memory.js';
import { passesPage, passPage, revertPass } from './pages/passes.js';
import { decideProposal, proposalsPage } from './pages/proposals.js';
import { searchPage } from './pages/search.js';

/** How to start an inspector. */
export interface InspectorOptions {
  /** The engine to read (the inspector never closes it). */
  readonly engine: MemoryEngine;
  /** The one agent whose memory is shown. */
  readonly agentId: string;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** @default 0 (any free port) */
  readonly port?: number;
  /**
   * With a token, a browser that opens any page with `?token=<it>` once gets a cookie that allows
   * accepting and rejecting proposals. Without one the inspector is read-only.
   */
  readonly writeToken?: string;
}

/** A running inspector. */
export interface Inspector {
  /** `http://host:port` */
  readonly url: string;
  /** Stops listening and ends open connections. Idempotent. */
  close(): Promise<void>;
}

const COOKIE = 'memory_inspector_token';
const MAX_FORM_BYTES = 16 * 1024;
const HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  // same-origin, not no-referrer: with no-referrer a browser posts forms with `Origin: null`.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
} as const;

function sameSecret(given: string | undefined, token: string | undefined): boolean {
  if (given === undefined || token === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookie(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw new RangeError('form too large');
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function route(ctx: PageContext, method: string, path: string[]): (() => Promise<PageResult>) | undefined {
  const [head, id, action] = path;
  if (method === 'GET') {
    if (head === undefined) return () => searchPage(ctx);
    if (head === 'memories' && id && !action) return () => memoryPage(ctx, id);
    if (head === 'entities' && !id) return () => entitiesPage(ctx);
    if (head === 'entities' && id && !action) return () => entityPage(ctx, id);
    if (head === 'passes' && !id) return () => passesPage(ctx);
    if (head === 'passes' && id && !action) return () => passPage(ctx, id);
    if (head === 'proposals' && !id) return () => proposalsPage(ctx);
    if (head === 'map' && !id) return () => mapPage(ctx);
    if (head === 'health' && !id) return () => healthPage(ctx);
  }
  return undefined;
}

function send(response: ServerResponse, status: number, body: string, extra: Record<string, string> = {}): void {
  response.writeHead(status, { ...HEADERS, 'content-type': 'text/html; charset=utf-8', ...extra });
  response.end(body);
}

/**
 * Starts the inspector: plain server-rendered pages (no scripts, nothing fetched from elsewhere) for
 * one agent's memory, on 127.0.0.1 by default. Read-only unless started with a `writeToken`.
 *
 * @example
 * ```ts
 * const inspector = await startInspector({ engine, agentId: 'support-bot', writeToken: 's3cret' });
 * // open `${inspector.url}/?token=s3cret` once to accept or reject proposals
 * await inspector.close();
 * ```
 */
export async function startInspector(options: InspectorOptions): Promise<Inspector> {
  const { engine, agentId, writeToken } = options;
  const host = options.host ?? '127.0.0.1';
  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, 'internal error');
      else response.destroy(error instanceof Error ? error : undefined);
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://inspector.local');
    const method = request.method ?? 'GET';
    // A token in the address logs the browser in: it gets the cookie and the address without it.
    const given = url.searchParams.get('token');
    if (method === 'GET' && given !== null) {
      url.searchParams.delete('token');
      const location = `${url.pathname}${url.search}`;
      if (!sameSecret(given, writeToken)) return send(response, 403, page403(agentId));
      return send(response, 303, '', {
        location,
        'set-cookie': `${COOKIE}=${encodeURIComponent(given)}; HttpOnly; SameSite=Strict; Path=/`,
      });
    }
    const canWrite = sameSecret(cookie(request, COOKIE), writeToken);
    const ctx: PageContext = { engine, agentId, canWrite, query: url.searchParams };
    let path: string[];
    try {
      path = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      // A malformed escape names nothing here.
      return send(response, 404, page({ title: 'Not found', agentId, canWrite, body: html`<p>Nothing here.</p>` }));
    }
    let handler = route(ctx, method, path);
    const write =
      method === 'POST' &&
      path[1] !== undefined &&
      ((path[0] === 'proposals' && (path[2] === 'accept' || path[2] === 'reject')) ||
        (path[0] === 'passes' && path[2] === 'revert'));
    if (write) {
      // Writes (proposal decisions, reverts) need the token's cookie (SameSite=Strict) and, when the browser says where the form
      // came from, this inspector.
      const origin = request.headers.origin;
      if (!canWrite || (origin !== undefined && origin !== `http://${request.headers.host}`))
        return send(response, 403, page403(agentId));
      const id = path[1] ?? '';
      const form = await readForm(request);
      if (path[0] === 'passes') handler = () => revertPass(ctx, id, form);
      else {
        const decision = path[2] === 'accept' ? 'accept' : 'reject';
        handler = () => decideProposal(ctx, id, decision, form);
      }
    }
    if (!handler)
      return send(
        response,
        method === 'GET' || method === 'POST' ? 404 : 405,
        page({ title: 'Not found', agentId, canWrite, body: html`<p>Nothing here.</p>` }),
      );
    let result: PageResult;
    try {
      result = await handler();
    } catch (error) {
      if (!isMemoryError(error)) throw error;
      const status = error.code === 'INVALID_INPUT' ? 400 : error.code === 'NOT_FOUND' ? 404 : 409;
      return send(
        response,
        status,
        page({ title: 'Error', agentId, canWrite, body: html`<p class="error">${error.message}</p>` }),
      );
    }
    if (result.kind === 'redirect') return send(response, 303, '', { location: result.location });
    send(response, result.status ?? 200, page({ title: result.title, agentId, canWrite, body: result.body }));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function page403(agentId: string): string {
  return page({
    title: 'Not allowed',
    agentId,
    canWrite: false,
    body: html`<p>That needs the inspector's write token.</p>`,
  });
}
