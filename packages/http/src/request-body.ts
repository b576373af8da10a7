import { HttpError } from './errors.js';

/** The 413 for a body over `max` bytes. */
export const tooLarge = (max: number): HttpError =>
  new HttpError('PAYLOAD_TOO_LARGE', `the request body is larger than ${max} bytes`, { details: { maxBytes: max } });

/** Refuses at once a body whose declared length is over the cap, before reading any of it. */
export function checkDeclaredLength(request: Request, max: number): void {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > max) throw tooLarge(max);
}

/**
 * Reads and parses a JSON body of at most `max` bytes. The cap is counted on the bytes as they
 * arrive, so a chunked body without a length cannot get past it either. With `optional`, an empty
 * body reads as `undefined` (for routes whose body only adds an actor and a reason).
 */
export async function readJsonBody(request: Request, max: number, optional = false): Promise<unknown> {
  checkDeclaredLength(request, max);
  if (!request.body) {
    if (optional) return undefined;
    throw new HttpError('INVALID_INPUT', 'a JSON body is required');
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > max) throw tooLarge(max);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') {
    if (optional) return undefined;
    throw new HttpError('INVALID_INPUT', 'a JSON body is required');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError('INVALID_INPUT', 'the request body is not valid JSON');
  }
}

/** An upload stream capped at `max` bytes; `state.exceeded` tells the caller why the stream failed. */
export async function* cappedUpload(
  body: AsyncIterable<Uint8Array>,
  max: number,
  state: { exceeded: boolean },
): AsyncGenerator<Uint8Array> {
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > max) {
      state.exceeded = true;
      throw tooLarge(max);
    }
    yield chunk;
  }
}
