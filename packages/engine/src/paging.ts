import { MemoryError } from '@memory/core';
import { z } from 'zod';

/** One page of a keyset-paged list. Pass `nextCursor` back as `cursor` for the next page; absent on the last. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor?: string;
}

/** The `limit` and `cursor` every paged list takes. */
export const pageSchema = (maxLimit: number) => ({
  /** Items per page, 1..maxLimit. */
  limit: z.number().int().min(1).max(maxLimit).optional(),
  /** The `nextCursor` of the previous page. */
  cursor: z.string().min(1).max(2000).optional(),
});

/**
 * The keyset of the last item, as an opaque cursor. It names a position in one list's order, not
 * a row: a page after a deleted row still starts where it should.
 */
export function encodeCursor(keys: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(keys), 'utf8').toString('base64url');
}

/** The keyset a cursor holds, checked against the list's shape (`INVALID_INPUT` when it is not one of its cursors). */
export function decodeCursor<T>(cursor: string | undefined, shape: z.ZodType<T>, operation: string): T | null {
  if (cursor === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  const parsed = shape.safeParse(value);
  if (!parsed.success)
    throw new MemoryError('INVALID_INPUT', `invalid input to ${operation}: cursor is not a cursor of this list`, {
      details: { operation, issues: ['cursor: not a cursor of this list'] },
    });
  return parsed.data;
}

/**
 * Builds a page from up to `limit + 1` rows (the extra row only says whether there is more): the
 * cursor is the keyset of the last row shown.
 */
export function toPage<R, T>(
  rows: readonly R[],
  limit: number,
  keys: (row: R) => readonly (string | number)[],
  view: (row: R) => T,
): Page<T> {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return {
    items: shown.map(view),
    ...(rows.length > limit && last !== undefined ? { nextCursor: encodeCursor(keys(last)) } : {}),
  };
}
