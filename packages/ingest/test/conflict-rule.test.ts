import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conflictKey, judgeConflict, textFacts } from '../src/conflict-rule.js';

const judge = (a: string, b: string, cosine = 0.9, links: [string[], string[]] = [[], []]) =>
  judgeConflict({ content: a, links: links[0] }, { content: b, links: links[1] }, cosine, 0.5);

describe('the conflict rule', () => {
  it('merges value updates and paraphrases', () => {
    expect(judge('The standup is at 9:30 on Monday', 'The standup is at 10:00 on Tuesday')).toEqual({ merge: true });
    expect(judge('The Atlas budget is $40k', 'The Atlas budget is $45k')).toEqual({ merge: true });
    expect(judge('Note: Dana prefers email', 'Dana really prefers email.')).toEqual({ merge: true });
    expect(judge('Reviews need two approvals per repository', 'Review needs two approvals per repositories')).toEqual({
      merge: true,
    });
  });

  it('keeps both when subjects, links, identifiers, meaning or substance differ, or the cosine is low', () => {
    expect(judge('Alice lives in Lisbon', 'Bob lives in Lisbon')).toMatchObject({ merge: false });
    expect(judge('Alice reports to Bob', 'Bob reports to Alice')).toEqual({ merge: false, reason: 'subjects' });
    expect(judge('Dana moved to Porto', 'Dana moved from Porto')).toEqual({ merge: false, reason: 'meaning' });
    expect(judge('Dana eats meat', 'Dana does not eat meat')).toEqual({ merge: false, reason: 'meaning' });
    expect(judge('Room 101 is quiet', 'Room 102 is quiet')).toEqual({ merge: false, reason: 'identifiers' });
    expect(judge('We chose Postgres', 'We chose Redis')).toMatchObject({ merge: false });
    expect(judge('Dana likes tea', 'Dana hates tea')).toEqual({ merge: false, reason: 'content' });
    expect(judge('Call at 9am', 'Call at 10am', 0.9, [['contact:1'], ['contact:2']])).toEqual({
      merge: false,
      reason: 'links',
    });
    expect(judge('The standup is at 9:30', 'The standup is at 10:00', 0.4)).toEqual({ merge: false, reason: 'cosine' });
    // Nothing of substance in common: never a merge, however close the vectors.
    expect(judge('at 9', 'at 10')).toEqual({ merge: false, reason: 'content' });
  });

  it('reads names in order, dates and numbers as values, and numbers after names as identifiers', () => {
    const facts = textFacts('Flight 300 to Lisbon leaves Monday at 9:00 with Dana');
    expect(facts.names).toEqual(['flight', 'lisbon', 'dana']);
    expect([...facts.identifiers]).toEqual(['flight 300']);
    expect([...facts.content]).not.toContain('monday');
    expect(textFacts('Launch is March 3').identifiers.size).toBe(0);
  });

  it('merges exactly the texts that share a conflict key (what finds the candidates)', () => {
    // Sentences from words of every class the rule reads: names, identifier nouns and numbers,
    // meaning words, fillers, date words, values, plain content words, punctuation, plurals.
    const word = fc.constantFrom(
      'Alice',
      'Bob',
      'Lisbon',
      'Room',
      'room',
      '101',
      '102',
      '#',
      '42',
      'to',
      'from',
      'not',
      'before',
      'really',
      'now',
      'Monday',
      'tuesday',
      'March',
      '9:30',
      '10:00',
      '$40k',
      'standup',
      'standups',
      'policy',
      'policies',
      'is',
      'the',
      'at',
      'on',
      'weekly',
      'Note:',
      'meets',
      "don't",
      'tea.',
    );
    const text = fc.array(word, { minLength: 1, maxLength: 8 }).map((w) => w.join(' '));
    const links = fc.subarray(['contact:1', 'contact:2', 'deal:9']);
    fc.assert(
      fc.property(text, text, links, links, (a, b, la, lb) => {
        const merge = judgeConflict({ content: a, links: la }, { content: b, links: lb }, 1, 0.5).merge;
        const key = conflictKey(a, la);
        expect(merge).toBe(key !== undefined && key === conflictKey(b, lb));
      }),
      { numRuns: 2000, seed: 20 },
    );
    expect(conflictKey('The standup is at 9:30 on Monday', [])).toBe(
      conflictKey('The standup is at 10:00 on Tuesday', []),
    );
    expect(conflictKey('at 9', [])).toBeUndefined();
  });

  it('reads every token whole: lower-casing a token never leaves the `.,:` an older tokenizer stripped', () => {
    // textFacts takes a token's word as the token lower-cased; it used to strip trailing `.,:` as
    // well, which changes nothing when a token starts and ends with a letter or digit (or is one of
    // `#$€£`), whatever the script. The tokenizer's expression, as conflict-rule.ts has it:
    const TOKEN = /[\p{L}\p{N}][\p{L}\p{N}'’.:,-]*[\p{L}\p{N}]|[\p{L}\p{N}]|[#$€£]/gu;
    const word = fc.oneof(
      fc.constantFrom(
        'e.g.',
        'U.S.',
        'a,b',
        'x:',
        'end.',
        'co-op',
        'it’s',
        'İSTANBUL',
        'ǅemal',
        'ﬁne',
        'ΣΊΣΥΦΟΣ',
        'Ⅻ',
        '½',
      ),
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.string({ unit: 'grapheme', maxLength: 6 }),
    );
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 8 }).map((w) => w.join(' ')),
        (text) => {
          for (const match of text.matchAll(TOKEN)) {
            const lower = match[0].replace(/[’]/g, "'").toLowerCase();
            expect(lower.replace(/[.,:]+$/u, '')).toBe(lower);
          }
        },
      ),
      { numRuns: 2000 },
    );
    // Tokens with inner punctuation and curly apostrophes read as before.
    expect(textFacts('Dana’s e.g. U.S. co-op, end. Room 101: #42').names).toEqual(["dana'", 'u.s', 'room']);
  });
});
