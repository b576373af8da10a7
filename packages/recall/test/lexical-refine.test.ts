import { describe, expect, it } from 'vitest';
import { isTemporalQuestion, mentionsTime } from '../src/channels/lexical-refine.js';

describe('temporal questions', () => {
  it.each([
    ['When did Caroline go to the support group?', true],
    ['what year did they move?', true],
    ['How long ago was the trip?', true],
    ['Which month is her birthday?', true],
    ['What did Caroline research?', false],
    ['Where did they go when it rained?', false],
  ])('%s → %s', (q, expected) => {
    expect(isTemporalQuestion(q)).toBe(expected);
  });

  it.each([
    ['I went there yesterday', true],
    ['we met last week at the park', true],
    ['on Saturday we hiked', true],
    ['back in 2019 it was different', true],
    ['the meeting is on 3/14', true],
    ['I love painting landscapes', false],
    ['a week of rain', false],
  ])('%s mentions a time: %s', (text, expected) => {
    expect(mentionsTime(text)).toBe(expected);
  });
});
