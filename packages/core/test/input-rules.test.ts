import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  agentIdSchema,
  contentProblem,
  contentSchema,
  identifierProblem,
  keySchema,
  labelSchema,
  parseTime,
  TIME_RANGE,
  timeSchema,
  versionProblem,
} from '../src/index.js';

const ok = (schema: z.ZodType, value: unknown) => schema.safeParse(value).success;

describe('the shared content rule', () => {
  it.each([
    ['NUL only', '\u0000\u0000'],
    ['zero-width only', '\u200b\u200c\u200d\u2060\ufeff'],
    ['bidi controls only', '\u202e\u2066\u2069\u200f\u061c'],
    ['Hangul fillers', '\u3164\u115f'],
    ['variation selectors', '\ufe0f\ufe0e'],
    ['soft hyphens', '\u00ad\u00ad'],
    ['punctuation only', ' ?!. … -- '],
    ['whitespace', ' \n\t '],
    ['empty', ''],
    ['lone surrogate', 'broken \uD800 text'],
  ])('refuses %s', (_name, text) => {
    expect(contentProblem(text)).toBeDefined();
    expect(ok(contentSchema(1000), text)).toBe(false);
  });

  it.each(['ok', 'Ünïcödé', '42', '🙂', '€', 'مرحبا\u200f', 'a\u0000b', '日本語'])('accepts %s', (text) => {
    expect(contentProblem(text)).toBeUndefined();
    expect(ok(contentSchema(1000), text)).toBe(true);
  });

  it('counts the cap in UTF-8 bytes', () => {
    expect(ok(contentSchema(8), '🙂🙂')).toBe(true);
    expect(ok(contentSchema(8), '🙂🙂🙂')).toBe(false);
  });
});

describe('identifiers, keys and labels', () => {
  it.each([
    ['a lone high surrogate', 'bot\uD800'],
    ['a lone low surrogate', '\uDC00bot'],
    ['a NUL', 'a\u0000b'],
    ['a line feed', 'a\nb'],
    ['a C1 control', 'a\u0085b'],
    ['a bidi override', 'admin\u202egnp'],
    ['only zero-width characters', '\u200b\u200b'],
  ])('agent ids and keys refuse %s', (_name, text) => {
    expect(identifierProblem(text)).toBeDefined();
    expect(ok(agentIdSchema, text)).toBe(false);
    expect(ok(keySchema(512, 'sessionKey'), text)).toBe(false);
  });

  it('agent ids keep their old rules and accept any visible script', () => {
    for (const id of ['bot', 'Team', 'agent:42', 'ботик', '用户-7', '🙂']) expect(ok(agentIdSchema, id)).toBe(true);
    for (const id of ['', ' x', 'x ', 'x'.repeat(257)]) expect(ok(agentIdSchema, id)).toBe(false);
  });

  it('labels refuse lone surrogates and invisible-only text but keep free-text line breaks and bidi marks', () => {
    expect(ok(labelSchema(100, 'tag'), 'x\uD800')).toBe(false);
    expect(ok(labelSchema(100, 'tag'), '\u200b')).toBe(false);
    expect(ok(labelSchema(100, 'reason'), 'line one\nline two')).toBe(true);
    expect(ok(labelSchema(100, 'project'), 'שלום\u200f')).toBe(true);
  });
});

describe('times', () => {
  it.each([1e300, -1e300, 8.64e15, TIME_RANGE.max + 1, TIME_RANGE.min - 1, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses %s',
    (value) => {
      expect(parseTime(value)).toBeUndefined();
      expect(ok(timeSchema, value)).toBe(false);
    },
  );

  it.each(['yesterday-ish', 'March 7', '1', '2026-13-45', '+275760-09-13T00:00:00Z', '10000-01-01'])(
    'refuses the string %s',
    (value) => {
      expect(parseTime(value)).toBeUndefined();
    },
  );

  it('accepts numbers, Dates and ISO-8601 strings within 0001-01-01 .. 9999-12-31', () => {
    expect(parseTime('2026-01-02T00:00:00Z')).toBe(Date.UTC(2026, 0, 2));
    expect(parseTime('2026-01-02')).toBe(Date.UTC(2026, 0, 2));
    expect(parseTime('2026-01-02T10:30:00.123+02:00')).toBe(Date.UTC(2026, 0, 2, 8, 30, 0, 123));
    expect(parseTime('0001-01-01T00:00:00Z')).toBe(TIME_RANGE.min);
    expect(parseTime('9999-12-31T23:59:59.999Z')).toBe(TIME_RANGE.max);
    expect(parseTime(new Date(0))).toBe(0);
    expect(parseTime(-1)).toBe(-1);
    expect(parseTime(new Date(Number.NaN))).toBeUndefined();
  });
});

describe('record versions', () => {
  it('accepts an absent or supported version and names an unknown one', () => {
    expect(versionProblem(undefined, [1])).toBeUndefined();
    expect(versionProblem(1, [1])).toBeUndefined();
    expect(versionProblem('1', [1])).toBeUndefined();
    expect(versionProblem(2, [1])).toMatch(/version 2 is not supported/);
    expect(versionProblem('v2', [1])).toMatch(/not supported/);
    expect(versionProblem({ major: 1 }, [1])).toMatch(/not supported/);
  });
});
