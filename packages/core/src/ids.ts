import type { Clock } from './clock.js';
import type { RandomSource } from './random.js';

declare const brand: unique symbol;
/** A string that the type system keeps apart from other strings. */
export type Brand<T, B extends string> = T & { readonly [brand]: B };

export type MemoryId = Brand<string, 'MemoryId'>;
export type EntityId = Brand<string, 'EntityId'>;
export type DocumentId = Brand<string, 'DocumentId'>;
export type JobId = Brand<string, 'JobId'>;
export type HistoryId = Brand<string, 'HistoryId'>;

/** Produces unique, roughly time-ordered ids. Injected so tests get stable ids. */
export interface IdGenerator {
  next(): string;
}

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/** Ids this library mints and accepts: 1–128 characters of letters, digits and `_ . : -`. */
export function isWellFormedId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}

/**
 * Time-ordered ids in the UUIDv7 layout: 48 bits of milliseconds from the injected clock, then 74
 * random bits from the injected source, so ids sort by creation time and never collide in practice.
 *
 * @example
 * ```ts
 * const ids = createIdGenerator({ clock: systemClock, random: cryptoRandom });
 * ids.next(); // '0192f7c1-5a3e-7c4d-9b1a-2f6e8d0c4b7a'
 * ```
 */
export function createIdGenerator(deps: { clock: Clock; random: RandomSource }): IdGenerator {
  return {
    next(): string {
      const ms = Math.max(0, Math.floor(deps.clock.now()));
      const bytes = new Uint8Array(16);
      deps.random.fill(bytes);
      // 48-bit big-endian timestamp in bytes 0..5.
      let t = ms;
      for (let i = 5; i >= 0; i--) {
        bytes[i] = t % 256;
        t = Math.floor(t / 256);
      }
      bytes[6] = 0x70 | ((bytes[6] ?? 0) & 0x0f); // version 7
      bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f); // RFC 4122 variant
      const hex = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    },
  };
}

/** Deterministic ids for tests: `${prefix}-000001`, `${prefix}-000002`, ... */
export function createSequentialIds(prefix = 'id'): IdGenerator {
  let n = 0;
  return { next: () => `${prefix}-${String(++n).padStart(6, '0')}` };
}
