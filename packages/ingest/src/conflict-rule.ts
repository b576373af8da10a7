import { STOP_WORDS } from '@memory/core';

// When a new memory may update an existing one (seed 003's conflict detection), judged without a
// model. A false merge loses a fact, so the rule is built for precision: cosine alone never merges
// (the offline embedders' cosines crowd high: "tea" ~ "coffee", "likes" ~ "hates"). Two texts
// merge only when they are about the same subjects and say the same thing up to a changed value:
//
// 1. The same named subjects: capitalized names (weekday and month names are values, not
//    subjects), host links, and identifier numbers ("Room 101", "#42") must be equal.
// 2. No word that flips meaning differs: negations, directions and comparisons ("to"/"from",
//    "not", "before"/"after", "more"/"less", ...).
// 3. Every other differing content word is a value (a number, a time, a date word, a currency
//    amount) or a filler word ("really", "now"), so what remains is a paraphrase or a value update.
// 4. The embedder agrees: cosine at or above its threshold.

/** Words whose presence on one side only changes what a sentence says. */
const MEANING_WORDS: ReadonlySet<string> = new Set([
  'not',
  'no',
  'never',
  'nor',
  'none',
  'nobody',
  'nothing',
  'without',
  'cannot',
  "can't",
  "don't",
  "doesn't",
  "didn't",
  "isn't",
  "aren't",
  "wasn't",
  "weren't",
  "won't",
  "wouldn't",
  "shouldn't",
  'to',
  'from',
  'into',
  'out',
  'off',
  'on',
  'up',
  'down',
  'in',
  'before',
  'after',
  'above',
  'below',
  'over',
  'under',
  'more',
  'less',
  'most',
  'least',
  'against',
  'for',
  'except',
  'only',
  'all',
  'every',
  'some',
  'any',
  'stop',
  'stopped',
  'start',
  'started',
  'un',
  'dis',
  'ex',
  'former',
  'formerly',
  'previous',
  'next',
  'last',
  'first',
  'until',
  'since',
]);

/** Words a paraphrase may add or drop without changing the fact. */
const FILLER_WORDS: ReadonlySet<string> = new Set([
  'really',
  'very',
  'actually',
  'definitely',
  'just',
  'also',
  'now',
  'currently',
  'still',
  'indeed',
  'truly',
  'quite',
  'please',
  'note',
  'fyi',
  'reminder',
  'update',
  'updated',
  'correction',
]);

const DATE_WORDS: ReadonlySet<string> = new Set([
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
  'today',
  'tomorrow',
  'yesterday',
  'tonight',
  'morning',
  'afternoon',
  'evening',
  'noon',
  'midnight',
  'am',
  'pm',
]);

// Nouns after which a number names a thing rather than giving a value.
const IDENTIFIER_NOUNS: ReadonlySet<string> = new Set([
  'room',
  'flight',
  'ticket',
  'order',
  'issue',
  'version',
  'v',
  'no',
  'number',
  'apartment',
  'apt',
  'suite',
  'floor',
  'gate',
  'platform',
  'building',
  'bus',
  'route',
  'line',
  'table',
  'seat',
  'pr',
  'case',
  'invoice',
  'account',
]);

const TOKEN = /[\p{L}\p{N}][\p{L}\p{N}'’.:,-]*[\p{L}\p{N}]|[\p{L}\p{N}]|[#$€£]/gu;

/** Whether the word holds an ASCII digit (what `/\d/u` matches). */
const isNumeric = (word: string): boolean => {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
};
// Crude inflection folding ("prefers" ~ "prefer", "meetings" ~ "meeting"): enough for paraphrases.
const fold = (word: string): string => {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  return word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
};

/** What the rule compares of one text. */
export interface TextFacts {
  /** Capitalized content words (names), in order of first appearance. */
  readonly names: readonly string[];
  /** Numbers that name things ("room 101", "#42"). */
  readonly identifiers: ReadonlySet<string>;
  /** Meaning-changing words present. */
  readonly meaning: ReadonlySet<string>;
  /** Content words: not stop, filler, date, or number tokens; inflection folded. */
  readonly content: ReadonlySet<string>;
}

const CAPITAL = /^\p{Lu}/u;

/**
 * The facts of a text the conflict rule compares. A token starts and ends with a letter or digit
 * (or is one of `#$€£`), so its word is the token lower-cased (no `.,:` can be left at its end).
 */
export function textFacts(text: string): TextFacts {
  const names: string[] = [];
  const identifiers = new Set<string>();
  const meaning = new Set<string>();
  const content = new Set<string>();
  let previousRaw: string | undefined;
  let previousWord = '';
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(text); match !== null; match = TOKEN.exec(text)) {
    const raw = match[0].includes('’') ? match[0].replace(/[’]/g, "'") : match[0];
    const word = raw.toLowerCase();
    const beforeRaw = previousRaw;
    const beforeWord = previousWord;
    previousRaw = raw;
    previousWord = word;
    const meaningWord = MEANING_WORDS.has(word);
    if (meaningWord) meaning.add(word);
    if (isNumeric(word)) {
      if (beforeRaw === undefined) continue;
      const named = CAPITAL.test(beforeRaw) && !DATE_WORDS.has(beforeWord);
      if (IDENTIFIER_NOUNS.has(beforeWord) || beforeRaw === '#' || named) identifiers.add(`${beforeWord} ${word}`);
      continue;
    }
    if (raw === '#' || raw === '$' || raw === '€' || raw === '£') continue;
    if (meaningWord || STOP_WORDS.has(word) || FILLER_WORDS.has(word) || DATE_WORDS.has(word)) continue;
    const folded = fold(word);
    content.add(folded);
    // Capitalized content words are names; a sentence's first word counts too (it is a content word
    // either way), so "Alice reports to Bob" and "Bob reports to Alice" differ in their order.
    if (CAPITAL.test(raw) && !names.includes(folded)) names.push(folded);
  }
  return { names, identifiers, meaning, content };
}

const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean =>
  a.size === b.size && [...a].every((x) => b.has(x));

/** The rule's verdict and, when it does not merge, the first reason why not. */
export type ConflictVerdict =
  | { readonly merge: true }
  | {
      readonly merge: false;
      readonly reason: 'cosine' | 'subjects' | 'links' | 'identifiers' | 'meaning' | 'content';
    };

/**
 * Whether `incoming` should update `existing` instead of being stored beside it. `links` are the
 * host references (`type:refId`) of each; `cosine` their embedding similarity; `threshold` the
 * embedder's (declared or configured) cut.
 */
export function judgeConflict(
  existing: { readonly content: string; readonly links: readonly string[] },
  incoming: { readonly content: string; readonly links: readonly string[] },
  cosine: number,
  threshold: number,
): ConflictVerdict {
  if (!(cosine >= threshold)) return { merge: false, reason: 'cosine' };
  if (!sameSet(new Set(existing.links), new Set(incoming.links))) return { merge: false, reason: 'links' };
  const a = textFacts(existing.content);
  const b = textFacts(incoming.content);
  if (a.names.join('\u0000') !== b.names.join('\u0000')) return { merge: false, reason: 'subjects' };
  if (!sameSet(a.identifiers, b.identifiers)) return { merge: false, reason: 'identifiers' };
  if (!sameSet(a.meaning, b.meaning)) return { merge: false, reason: 'meaning' };
  // Something of substance must be shared, and nothing of substance may differ.
  if (a.content.size === 0 || !sameSet(a.content, b.content)) return { merge: false, reason: 'content' };
  return { merge: true };
}

const joinSorted = (values: ReadonlySet<string>): string =>
  values.size === 0
    ? ''
    : values.size === 1
      ? (values.values().next().value as string)
      : [...values].sort().join('\u0001');

/**
 * Everything {@link judgeConflict} compares apart from the cosine, as one string: two texts the rule
 * merges always have the same key (equal links, subjects, identifiers, meaning words and content
 * words), so the memories an input may update are found by key rather than by a vector search.
 * Undefined for a text without content words, which the rule never merges.
 */
export function conflictKey(content: string, links: readonly string[]): string | undefined {
  const facts = textFacts(content);
  if (facts.content.size === 0) return undefined;
  return [
    joinSorted(new Set(links)),
    facts.names.join('\u0001'),
    joinSorted(facts.identifiers),
    joinSorted(facts.meaning),
    joinSorted(facts.content),
  ].join('\u0000');
}
