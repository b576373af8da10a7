/**
 * The times every entry point accepts, in epoch milliseconds: from 0001-01-01T00:00:00.000Z to
 * 9999-12-31T23:59:59.999Z, the years an ISO-8601 string writes with four digits. Anything outside
 * (`1e300`, `-8.64e15`) is a mistake, not a date, and would sort every other row away.
 */
export const TIME_RANGE = Object.freeze({ min: -62_135_596_800_000, max: 253_402_300_799_999 });

// ISO-8601 calendar dates and date-times (`2026-01-02`, `2026-01-02T10:30Z`,
// `2026-01-02T10:30:00.123+02:00`). Looser forms that Date.parse also reads (`March 7`, `1`) are
// guesses about the host's locale and are refused.
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** Why `value` is not an accepted time, or undefined when it is (see {@link parseTime}). */
export function timeProblem(value: unknown): string | undefined {
  return parseTimeResult(value).problem;
}

/**
 * A point in time as epoch milliseconds: a finite number, a valid `Date`, or an ISO-8601 string,
 * within {@link TIME_RANGE}. Undefined for anything else.
 *
 * @example
 * ```ts
 * parseTime('2026-01-02T00:00:00Z'); // 1767312000000
 * parseTime(1e300);                  // undefined
 * ```
 */
export function parseTime(value: unknown): number | undefined {
  return parseTimeResult(value).ms;
}

function parseTimeResult(value: unknown): { ms?: number; problem?: string } {
  let ms: number;
  if (typeof value === 'number') ms = value;
  else if (value instanceof Date) ms = value.getTime();
  else if (typeof value === 'string') {
    if (!ISO_8601.test(value.trim())) return { problem: 'expected an ISO-8601 date or date-time' };
    ms = Date.parse(value.trim().replace(',', '.'));
  } else return { problem: 'expected epoch milliseconds, a Date or an ISO-8601 string' };
  if (!Number.isFinite(ms)) return { problem: 'not a valid time' };
  if (ms < TIME_RANGE.min || ms > TIME_RANGE.max)
    return { problem: 'must be between 0001-01-01 and 9999-12-31 (epoch milliseconds)' };
  return { ms };
}
