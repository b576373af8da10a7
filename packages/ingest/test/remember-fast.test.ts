import { resolveConfig } from '@memory/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createInputSchemas } from '../src/inputs.js';
import { parseRememberFast } from '../src/remember-fast.js';

// rememberMany and remember take the common input without the zod schema (parseRememberFast); the
// schema stays the contract: whatever the fast path returns, the schema returns too, key for key and
// in the same order, and whatever the schema refuses, the fast path leaves to it.

const config = resolveConfig({ limits: { maxContentBytes: 64 } });
const schema = createInputSchemas(config).remember;

const strings = fc.oneof(
  fc.constantFrom('a', 'agent-1', ' padded ', '', 'Dana prefers tea', '\u0000', '\u202e', 'x'.repeat(300), '?!', 'é'),
  fc.constantFrom('\ud800', 'tab\there', '🙂🙂🙂', 'ü'.repeat(40), 'line\nbreak', '   '),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
);
const values = fc.oneof(
  strings,
  fc.constantFrom('fact', 'decision', 'preference', 'nope', 'Fact'),
  fc.constantFrom(0, 1, 0.5, -0, -0.1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 10),
  fc.boolean(),
  fc.constantFrom(undefined, null, [], {}, ['t'], new Date(0)),
);
const keys = fc.constantFrom(
  'agentId',
  'content',
  'type',
  'importance',
  'confidence',
  'category',
  'project',
  'who',
  'why',
  'pinned',
  'conflict',
  'sessionId',
  'requestId',
  'tags',
  'source',
  'unknown',
);
const valid = fc.record(
  {
    agentId: fc.constantFrom('a', 'agent-1'),
    content: fc.constantFrom('Dana prefers tea', 'The standup is at 9:30', 'é'),
    type: fc.constantFrom('fact', 'decision', 'preference'),
    importance: fc.double({ min: 0, max: 1, noNaN: true }),
    who: fc.constantFrom('dana', 'bob'),
    project: fc.constantFrom('atlas'),
    pinned: fc.boolean(),
  },
  { requiredKeys: ['agentId', 'content'] },
);
const anything = fc.oneof(
  valid,
  valid.chain((base) => fc.tuple(keys, values).map(([key, value]) => ({ ...base, [key]: value }))),
  fc.dictionary(keys, values),
  values,
);

describe('the fast remember parse', () => {
  it('returns what the schema returns, or leaves the input to the schema', () => {
    let taken = 0;
    fc.assert(
      fc.property(anything, (input) => {
        const fast = parseRememberFast(input, config);
        if (fast === undefined) return;
        taken++;
        const parsed = schema.safeParse(input);
        expect(parsed.success).toBe(true);
        expect(fast).toStrictEqual(parsed.data);
        expect(Object.keys(fast)).toEqual(Object.keys(parsed.data ?? {}));
      }),
      { numRuns: 4000 },
    );
    // The common inputs do take the fast path.
    expect(taken).toBeGreaterThan(1000);
  });

  it('takes plain inputs and leaves the rest (other fields, classes, undefined values) to the schema', () => {
    expect(parseRememberFast({ agentId: 'a', content: 'Dana prefers tea' }, config)).toStrictEqual({
      agentId: 'a',
      content: 'Dana prefers tea',
      type: 'fact',
    });
    expect(parseRememberFast({ agentId: 'a', content: 'x', tags: ['t'] }, config)).toBeUndefined();
    expect(parseRememberFast({ agentId: 'a', content: 'x', who: undefined }, config)).toBeUndefined();
    expect(parseRememberFast({ agentId: 'a', content: '?!' }, config)).toBeUndefined();
    expect(parseRememberFast({ agentId: 'a', content: 'x'.repeat(65) }, config)).toBeUndefined();
    expect(
      parseRememberFast(
        new (class {
          agentId = 'a';
          content = 'x';
        })(),
        config,
      ),
    ).toBeUndefined();
  });
});
