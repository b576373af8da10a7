/** Bytes to text in the given charset, falling back to UTF-8 for a charset the runtime does not know. */
export function decodeText(bytes: Uint8Array, charset = 'utf-8'): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}
