import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Scheduler } from '@memory/core';
import { decodeText } from '../extract/decode-text.js';
import { REFUSED_TYPES } from '../extract/extract-types.js';
import { blockedReason, isAllowed } from './address-guard.js';

export type FetchFailure =
  | 'bad-url'
  | 'refused-address'
  | 'too-many-redirects'
  | 'too-large'
  | 'unsupported-type'
  | 'http-status'
  | 'timeout'
  | 'network';

/** Why a document could not be fetched. `permanent` failures are not retried. */
export class DocumentFetchError extends Error {
  override readonly name = 'DocumentFetchError';
  constructor(
    readonly reason: FetchFailure,
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

export interface FetchOptions {
  /** Largest body, checked on Content-Length and while streaming. */
  readonly maxBytes: number;
  /** Whole fetch, redirects included. */
  readonly timeoutMs: number;
  readonly maxRedirects: number;
  /** Addresses, CIDRs or host names allowed despite the private-address guard (tests, intranets). */
  readonly allowList: readonly string[];
  readonly scheduler: Scheduler;
  readonly signal?: AbortSignal | undefined;
}

export interface FetchedDocument {
  readonly url: string;
  /** The media type without parameters, lower-cased. */
  readonly contentType: string;
  /** The body decoded as text in its charset (meaningful for text types only). */
  readonly body: string;
  /** The body as received, for byte hashes and binary formats (PDF, DOCX). */
  readonly bytes: Uint8Array;
  /** The Content-Type's charset, when it named one. */
  readonly charset: string | undefined;
}

const ACCEPTED =
  /^(text\/(plain|markdown|x-markdown|html)|application\/(xhtml\+xml|json|[\w.+-]+\+json|pdf|vnd\.openxmlformats-officedocument\.wordprocessingml\.document))$/;

function guardedLookup(hostname: string, allowList: readonly string[]): LookupFunction {
  return (host, options, callback) => {
    dnsLookup(host, { all: true, family: options.family ?? 0 }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find(
        (a) => blockedReason(a.address) !== undefined && !isAllowed(a.address, hostname, allowList),
      );
      if (refused) {
        const reason = blockedReason(refused.address) ?? 'refused';
        return callback(
          new DocumentFetchError('refused-address', `${hostname} resolves to ${refused.address} (${reason})`, true),
          '',
          0,
        );
      }
      // Node asks for every address when it races address families (autoSelectFamily).
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new DocumentFetchError('network', `${hostname} has no addresses`, false), '', 0);
      return callback(null, first.address, first.family);
    });
  };
}

function checkUrl(raw: string, allowList: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DocumentFetchError('bad-url', `not a URL: ${raw}`, true);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new DocumentFetchError('bad-url', `only http and https URLs are fetched, not ${url.protocol}`, true);
  if (url.username || url.password)
    throw new DocumentFetchError('bad-url', 'URLs with credentials are not fetched', true);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // IP literals are connected to without a lookup, so they are checked here.
  if (isIP(host) !== 0) {
    const reason = blockedReason(host);
    if (reason && !isAllowed(host, host, allowList))
      throw new DocumentFetchError('refused-address', `${host} is a ${reason} address`, true);
  }
  return url;
}

function once(url: URL, options: FetchOptions, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(url, {
      method: 'GET',
      lookup: guardedLookup(url.hostname, options.allowList),
      signal,
      headers: {
        accept:
          'text/html, text/markdown, text/plain, application/pdf, application/vnd.openxmlformats-officedocument.wordprocessingml.document, application/json;q=0.9, */*;q=0.1',
        'user-agent': '@memory/ingest',
      },
    });
    req.on('response', resolve);
    req.on('error', (error) => {
      if (error instanceof DocumentFetchError) reject(error);
      else if (signal.aborted)
        reject(
          signal.reason instanceof DocumentFetchError
            ? signal.reason
            : new DocumentFetchError('timeout', 'fetch aborted', false),
        );
      else reject(new DocumentFetchError('network', `${url.host}: ${error.message}`, false));
    });
    req.end();
  });
}

async function readBody(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) {
      response.destroy();
      throw new DocumentFetchError('too-large', `body is larger than ${maxBytes} bytes`, true);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Fetches a document over http(s) with the SSRF guard applied at connect time (every resolved
 * address, every redirect), a byte limit, an overall timeout on the injected scheduler, and a
 * content-type allow-list.
 */
export async function fetchDocument(rawUrl: string, options: FetchOptions): Promise<FetchedDocument> {
  const controller = new AbortController();
  const timer = options.scheduler.schedule(
    () =>
      controller.abort(new DocumentFetchError('timeout', `no complete response within ${options.timeoutMs} ms`, false)),
    options.timeoutMs,
  );
  const onAbort = (): void => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    let url = checkUrl(rawUrl, options.allowList);
    for (let redirects = 0; ; redirects++) {
      const response = await once(url, options, controller.signal);
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location) {
        response.resume();
        if (redirects >= options.maxRedirects)
          throw new DocumentFetchError('too-many-redirects', `more than ${options.maxRedirects} redirects`, true);
        url = checkUrl(new URL(response.headers.location, url).toString(), options.allowList);
        continue;
      }
      if (status < 200 || status >= 300) {
        response.resume();
        throw new DocumentFetchError(
          'http-status',
          `HTTP ${status} from ${url.host}`,
          status >= 400 && status < 500 && status !== 408 && status !== 429,
        );
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        response.destroy();
        throw new DocumentFetchError(
          'too-large',
          `Content-Length ${declared} is over the ${options.maxBytes}-byte limit`,
          true,
        );
      }
      const [mediaType = '', ...params] = (response.headers['content-type'] ?? 'text/plain')
        .split(';')
        .map((p) => p.trim());
      const contentType = mediaType.toLowerCase();
      if (!ACCEPTED.test(contentType)) {
        response.destroy();
        throw new DocumentFetchError(
          'unsupported-type',
          REFUSED_TYPES[contentType]
            ? `content type ${contentType} is refused: ${REFUSED_TYPES[contentType]}`
            : `content type ${contentType || 'unknown'} is not ingested (text, HTML, Markdown, JSON, PDF and DOCX are)`,
          true,
        );
      }
      const charset = params
        .find((p) => p.toLowerCase().startsWith('charset='))
        ?.slice(8)
        .replace(/"/g, '');
      const bytes = await readBody(response, options.maxBytes);
      const binary = contentType === 'application/pdf' || contentType.startsWith('application/vnd.');
      const body = binary ? '' : decodeText(bytes, charset);
      return { url: url.toString(), contentType, body, bytes, charset };
    }
  } catch (error) {
    if (error instanceof DocumentFetchError) throw error;
    if (controller.signal.reason instanceof DocumentFetchError) throw controller.signal.reason;
    throw new DocumentFetchError('network', error instanceof Error ? error.message : String(error), false);
  } finally {
    timer.cancel();
    options.signal?.removeEventListener('abort', onAbort);
  }
}
