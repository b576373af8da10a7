import { MemoryError } from '@memory/core';

/**
 * A stand-in for a part that has no PostgreSQL form yet: the values in `keep` read through, and
 * every other property is a function that throws `UNSUPPORTED` naming what was asked for, so a
 * feature not yet on PostgreSQL fails loudly and changes nothing, instead of running SQLite code.
 */
export function unsupportedOnPostgres<T extends object>(what: string, keep: Partial<T> = {}): T {
  return new Proxy(keep as T, {
    get(target, property) {
      if (property in target) return target[property as keyof T];
      // Not a thenable: awaiting the stand-in must not call `then`.
      if (property === 'then' || typeof property === 'symbol') return undefined;
      return () => {
        throw new MemoryError('UNSUPPORTED', `${what}.${property} is not available on PostgreSQL yet; use SQLite`, {
          details: { feature: `${what}.${property}` },
        });
      };
    },
  });
}
