import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLenientJson, stripThinkBlocks } from '../src/index.js';

describe('stripThinkBlocks', () => {
  it.each([
    ['<think>hmm</think>answer', 'answer'],
    ['<think>\nline\n</think>\n\n1. a', '1. a'],
    ['<thinking a="b">x</thinking>y<reasoning>z</reasoning>', 'y'],
    ['before <THINK>never closed', 'before'],
    ['leftover reasoning</think> the answer', 'the answer'],
    ['no tags at all', 'no tags at all'],
  ])('%j → %j', (input, expected) => {
    expect(stripThinkBlocks(input)).toBe(expected);
  });
});

describe('parseLenientJson', () => {
  it.each([
    ['{"a":1}', { a: 1 }],
    ['<think>{"no": "this"}</think>```json\n{"a": [1, 2,],}\n```', { a: [1, 2] }],
    ['Sure! Here is the JSON: {"ops": [{"x": "}"}]} hope it helps', { ops: [{ x: '}' }] }],
    ['[1, 2, 3] trailing words', [1, 2, 3]],
    ['not json', undefined],
    ['{"a": }', undefined],
  ])('%j', (input, expected) => {
    expect(parseLenientJson(input)).toEqual(expected);
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        parseLenientJson(text);
        stripThinkBlocks(text);
      }),
    );
  });
});
