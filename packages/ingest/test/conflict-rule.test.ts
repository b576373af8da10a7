import { describe, expect, it } from 'vitest';
import { judgeConflict, textFacts } from '../src/conflict-rule.js';

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
});
