import { type Clock, createTimerScheduler, MemoryError, type Scheduler, systemClock } from '@memory/core';

export interface HttpClientOptions {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` (Ollama), `http://localhost:8000/v1` (vLLM). */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; local servers usually need none. */
  readonly apiKey?: string;
  /** Extra headers (organization, project, a proxy's key). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-attempt timeout. @default 60000 */
  readonly timeoutMs?: number;
  /** Retries after a 408, 409, 429 or 5xx answer or a network error. @default 3 */
  readonly maxRetries?: number;
  /** First retry delay; doubles per retry, capped at 30 s; a `Retry-After` header wins (≤ 60 s). @default 500 */
  readonly retryBaseMs?: number;
  /** Timers for timeouts and backoff. @default Node timers */
  readonly scheduler?: Scheduler;
  /** Reads `Retry-After` dates against it. @default the system clock */
  readonly clock?: Clock;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

const RETRYABLE = new Set([408, 409, 429, 500, 502, 503, 504]);

function sleep(scheduler: Scheduler, ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(aborted(signal));
      return;
    }
    const onAbort = (): void => {
      handle.cancel();
      reject(aborted(signal));
    };
    const handle = scheduler.schedule(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function aborted(signal: AbortSignal | undefined): MemoryError {
  return new MemoryError('ABORTED', 'the provider request was aborted', {
    cause: signal?.reason,
    details: { reason: 'aborted' },
  });
}

function retryAfterMs(response: Response, clock: Clock): number | undefined {
  const header = response.headers.get('retry-after');
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.min(60_000, Math.max(0, seconds * 1000));
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.min(60_000, Math.max(0, date - clock.now()));
}

/** Network error fields Node puts on `fetch`'s cause (or on each error of an AggregateError). */
interface SocketError {
  readonly code?: unknown;
  readonly address?: unknown;
  readonly port?: unknown;
  readonly errors?: unknown;
  readonly cause?: unknown;
}

/** The first socket-level error (ECONNREFUSED, ENOTFOUND, ...) in an error's cause chain. */
function socketError(error: unknown): { code: string; address?: string; port?: number } | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current !== null && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const e = current as SocketError;
    if (typeof e.code === 'string' && /^E[A-Z_]+$/.test(e.code)) {
      return {
        code: e.code,
        ...(typeof e.address === 'string' ? { address: e.address } : {}),
        ...(typeof e.port === 'number' ? { port: e.port } : {}),
      };
    }
    // Node tries every address of `localhost` and reports an AggregateError of them.
    const first = Array.isArray(e.errors) ? (e.errors[0] as unknown) : undefined;
    current = first ?? e.cause;
  }
  return undefined;
}

const SOCKET_HINTS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'nothing is listening there; is the server running, and is the port right?',
  ENOTFOUND: 'the host name does not resolve; check baseUrl',
  EAI_AGAIN: 'the host name could not be resolved right now (DNS)',
  ECONNRESET: 'the server closed the connection',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
};

/** A failed request in words a host can act on: where it went, what the socket said, what to check. */
function networkFailure(url: URL, error: unknown): { text: string; details: Record<string, string | number> } {
  const socket = socketError(error);
  const host = socket?.address ?? url.hostname;
  const port = socket?.port ?? (url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port));
  if (!socket) {
    const reason = error instanceof Error ? error.message : String(error);
    return { text: `request to ${url.origin} failed: ${reason}`, details: { host, port } };
  }
  const hint = SOCKET_HINTS[socket.code];
  return {
    text: `cannot reach ${host}:${port} (${socket.code}) for ${url.origin}${url.pathname}${hint ? `: ${hint}` : ''}`,
    details: { code: socket.code, host, port },
  };
}

/** An answer that should have been JSON, described: status, content type and the start of the body. */
function notJson(url: URL, response: Response, text: string): string {
  const type = response.headers.get('content-type') ?? 'no content type';
  const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 120);
  const html = /html/i.test(type) || /^<(!doctype|html)/i.test(excerpt);
  return (
    `${url.origin}${url.pathname} answered ${response.status} with ${type}, not JSON: "${excerpt}"` +
    (html
      ? '; an HTML page usually means baseUrl points at a web page, not the API (OpenAI-compatible servers end in /v1)'
      : '')
  );
}

/** What a server said, without echoing anything that could be a credential. */
function bodyExcerpt(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string };
    const message = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message;
    if (typeof message === 'string') return message.slice(0, 300);
  } catch {
    // not JSON
  }
  return text.slice(0, 300);
}

/** A JSON POST client with per-attempt timeouts, retries with backoff, and abort. */
export function createHttpClient(options: HttpClientOptions, name: string) {
  let base: URL;
  try {
    base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  } catch (cause) {
    throw new MemoryError('INVALID_CONFIG', `${name}: baseUrl is not a valid URL`, { cause });
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new MemoryError('INVALID_CONFIG', `${name}: baseUrl must be http or https`);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxRetries = options.maxRetries ?? 3;
  const retryBaseMs = options.retryBaseMs ?? 500;
  const scheduler = options.scheduler ?? createTimerScheduler();
  const doFetch = options.fetch ?? globalThis.fetch;
  const clock = options.clock ?? systemClock;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (options.apiKey) headers['authorization'] = `Bearer ${options.apiKey}`;

  async function attempt(
    path: string,
    body: unknown,
    signal: AbortSignal | undefined,
  ): Promise<{ response?: Response; text?: string; error?: unknown }> {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = scheduler.schedule(() => {
      timedOut = true;
      controller.abort(new Error('timeout'));
    }, timeoutMs);
    try {
      const response = await doFetch(new URL(path, base), {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      const text = await response.text();
      return { response, text };
    } catch (error) {
      if (signal?.aborted) throw aborted(signal);
      return { error: timedOut ? new Error(`timed out after ${timeoutMs} ms`) : error };
    } finally {
      timer.cancel();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * The error for a request that failed for good. 401 and 403 say `retryable: false`: a wrong or
   * missing key does not fix itself, so a queued job fails at once instead of retrying.
   */
  function failure(
    url: URL,
    outcome: { response?: Response | undefined; text?: string | undefined; error?: unknown },
    attempts: number,
  ): MemoryError {
    const { response, text, error } = outcome;
    if (!response) {
      const { text: what, details } = networkFailure(url, error);
      return new MemoryError('PROVIDER_ERROR', `${name}: ${what}`, {
        cause: error,
        details: { status: null, attempts, ...details },
      });
    }
    const status = response.status;
    const type = response.headers.get('content-type') ?? '';
    const said = /json/i.test(type) || type === '' ? bodyExcerpt(text ?? '') : notJson(url, response, text ?? '');
    const auth = status === 401 || status === 403;
    const hint = auth ? ` (${status === 401 ? 'check apiKey' : 'the key lacks access to this model or endpoint'})` : '';
    return new MemoryError('PROVIDER_ERROR', `${name}: HTTP ${status}${hint}: ${said}`, {
      details: { status, attempts, ...(auth ? { retryable: false, reason: 'unauthorized' } : {}) },
    });
  }

  return {
    /** POSTs JSON and returns the parsed JSON answer; throws `MemoryError('PROVIDER_ERROR')`. */
    async post(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
      const url = new URL(path, base);
      for (let retry = 0; ; retry++) {
        const { response, text, error } = await attempt(path, body, signal);
        const status = response?.status;
        if (response?.ok && text !== undefined) {
          try {
            return JSON.parse(text) as unknown;
          } catch (cause) {
            throw new MemoryError('PROVIDER_ERROR', `${name}: ${notJson(url, response, text)}`, {
              cause,
              details: { status: response.status, contentType: response.headers.get('content-type') },
            });
          }
        }
        const retryable = error !== undefined || (status !== undefined && RETRYABLE.has(status));
        if (!retryable || retry >= maxRetries) throw failure(url, { response, text, error }, retry + 1);
        const backoff = Math.min(30_000, retryBaseMs * 2 ** retry);
        await sleep(scheduler, (response && retryAfterMs(response, clock)) ?? backoff, signal);
      }
    },
  };
}
