import { hash } from 'node:crypto';

/** The storage form of content: trimmed, with every run of whitespace collapsed to one space. */
export function normalizeForStorage(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

// Trailing sentence punctuation (ASCII and common Unicode forms) does not change what a memory says.
const TRAILING_PUNCTUATION = /[\s.,;:!?…。！？、"'”’»)\]]+$/u;

/**
 * The normalized form used for deduplication: the storage form, Unicode NFC, lower-cased, with
 * trailing punctuation removed. "Alice prefers tea." and "  alice   PREFERS tea" normalize alike.
 */
export function normalizeForHash(text: string): string {
  return foldStoredForHash(normalizeForStorage(text));
}

/**
 * {@link normalizeForHash} of text already in {@link normalizeForStorage} form (which that form
 * leaves as it is): writers that store the storage form fold it without normalizing it twice.
 */
export function foldStoredForHash(stored: string): string {
  return stored.normalize('NFC').toLowerCase().replace(TRAILING_PUNCTUATION, '');
}

/** sha256 (hex) of the normalized form: the dedup key for content within one agent's scope. */
export function contentHash(text: string): string {
  return hashNormalized(normalizeForHash(text));
}

/** sha256 (hex) of text already in {@link normalizeForHash} form (saves normalizing twice). */
export function hashNormalized(normalized: string): string {
  // One call (UTF-8 like `createHash().update(text, 'utf8')`, without a Hash object per text).
  return hash('sha256', normalized, 'hex');
}

/** UTF-8 byte length of a string, for byte caps. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u;

/**
 * False for strings holding a lone UTF-16 surrogate. SQLite stores UTF-8, where such a string cannot
 * round-trip (it would come back with U+FFFD), so stored text must be well-formed.
 */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}
