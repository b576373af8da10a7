import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { decodeText } from './decode-text.js';
import { extractDocx } from './extract-docx.js';
import { extractHtml } from './extract-html.js';
import { extractPdf } from './extract-pdf.js';
import { ExtractError, type ExtractLimits, type ExtractResult, MEDIA } from './extract-types.js';

/** One extraction asked of the worker. */
export interface ExtractRequest {
  readonly bytes: Uint8Array;
  readonly mediaType: string;
  readonly limits: ExtractLimits;
  /** The charset of a text type (HTML), from its Content-Type. @default 'utf-8' */
  readonly charset?: string | undefined;
}

/** The worker's answer. */
export type ExtractResponse =
  | { readonly ok: true; readonly result: ExtractResult }
  | { readonly ok: false; readonly reason: ExtractError['reason'] | 'crash'; readonly message: string };

/** Runs one extraction in this thread (the worker's body; also usable in-process). */
export async function runExtraction(request: ExtractRequest): Promise<ExtractResult> {
  const { bytes, mediaType, limits } = request;
  if (mediaType === MEDIA.pdf) return extractPdf(bytes);
  if (mediaType === MEDIA.docx) return extractDocx(bytes, limits);
  if (mediaType === MEDIA.html || mediaType === MEDIA.xhtml) return extractHtml(decodeText(bytes, request.charset));
  throw new ExtractError('unsupported-type', `no worker extractor for ${mediaType}`);
}

if (parentPort) {
  // On Linux a nice value is per thread: this lowers only the worker's, so on a busy machine the
  // host's event loop (requests, timers) wins the CPU over a long extraction.
  try {
    setPriority(0, 10);
  } catch {
    // Not permitted or not supported here: extraction still runs, at the normal priority.
  }
}

// One request at a time, as many as the pool sends: a pooled worker serves one document after another.
parentPort?.on('message', (request: ExtractRequest) => {
  runExtraction(request).then(
    (result) => parentPort?.postMessage({ ok: true, result } satisfies ExtractResponse),
    (error: unknown) =>
      parentPort?.postMessage({
        ok: false,
        reason: error instanceof ExtractError ? error.reason : 'crash',
        message: error instanceof Error ? error.message : String(error),
      } satisfies ExtractResponse),
  );
});
