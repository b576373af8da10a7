import { describe, expect, it } from 'vitest';
import { buildHintsPrompt, parseHints } from '../src/hints.js';

const options = { max: 5, maxChars: 300, memoryContent: 'Alice prefers green tea over coffee' };

describe('parseHints (messy model output)', () => {
  it('strips think blocks, numbering, bullets, quotes and residue', () => {
    const output = `<think>The user wants questions. Let me think about tea...
1. What does Alice drink?</think>
Sure! Here are some questions:
1. What does Alice prefer to drink?
2) "When did Alice start preferring tea?"
- Who prefers green tea over coffee?
* **Does Alice like coffee?**
Q5: What kind of tea does Alice like?
6. Is there anything else Alice avoids in the morning?
I hope these help!`;
    expect(parseHints(output, options)).toEqual([
      'What does Alice prefer to drink?',
      'When did Alice start preferring tea?',
      'Who prefers green tea over coffee?',
      'Does Alice like coffee?',
      'What kind of tea does Alice like?',
    ]);
  });

  it('drops duplicates, echoes of the memory, fragments and over-long lines', () => {
    const output = [
      'What does Alice drink?',
      'what does alice  drink?',
      'Alice prefers green tea over coffee',
      'Tea?',
      'ok',
      'x'.repeat(400),
      '```',
      'Which drink does Alice choose at breakfast?',
      '```',
    ].join('\n');
    expect(parseHints(output, options)).toEqual([
      'What does Alice drink?',
      'Which drink does Alice choose at breakfast?',
    ]);
  });

  it('returns nothing for output with no usable line, and never throws', () => {
    expect(parseHints('<think>only thinking, never closed', options)).toEqual([]);
    expect(parseHints('', options)).toEqual([]);
    expect(parseHints('{"questions": 3}', options)).toEqual([]);
  });

  it('keeps at most max hints', () => {
    const output = Array.from({ length: 12 }, (_, i) => `Question number ${i} about the tea habits?`).join('\n');
    expect(parseHints(output, { ...options, max: 3 })).toHaveLength(3);
  });

  it('asks for diverse questions without numbering', () => {
    const prompt = buildHintsPrompt('Alice prefers tea', 5);
    expect(prompt).toContain('Alice prefers tea');
    expect(prompt).toMatch(/up to 5/);
    expect(prompt).toMatch(/no numbering/);
  });
});
