/**
 * Category names of the entity registry: one comparison form, and the rule that keeps a model's
 * proposals broad ("Personal Finance") rather than granular or dated ("Tuesday Tasks").
 */

/**
 * The comparison form of a category name: Unicode NFKC, lower case, `&` read as `and`, punctuation
 * other than inner hyphens and apostrophes dropped, whitespace collapsed. "Health & Fitness",
 * "health and fitness" and " HEALTH  AND FITNESS. " are one category.
 */
export function normalizeCategoryName(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[’`]/g, "'")
    .replace(/[^\p{L}\p{N}'\- ]+/gu, ' ')
    .replace(/(^|\s)['-]+|['-]+(?=\s|$)/gu, '$1')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** Shortest and longest category name, in characters of the display form. */
export const CATEGORY_NAME_MIN = 3;
export const CATEGORY_NAME_MAX = 60;
/** A broad category is a short noun phrase; a sentence is not a name (nor an injected instruction). */
export const CATEGORY_NAME_MAX_WORDS = 6;

// Words that make a name a point in time rather than an area of life: weekdays, relative days,
// and calendar periods. "Tuesday Tasks", "Today", "Next Week Plans" are refused.
const TIME_WORDS = new Set([
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
  'mon',
  'tue',
  'tues',
  'wed',
  'thu',
  'thur',
  'thurs',
  'fri',
  'sat',
  'sun',
  'today',
  'tonight',
  'tomorrow',
  'yesterday',
  'weekend',
  'weekly',
  'daily',
  'morning',
  'afternoon',
  'evening',
]);
const RELATIVE_PERIOD = /\b(?:this|next|last|past|coming) (?:week|month|year|quarter|weekend)\b/u;
// 2026-03-01, 3/1, 01.03.2026, 2026, Q3 2026.
const NUMERIC_DATE = /\b\d{1,4}[-/.]\d{1,2}(?:[-/.]\d{1,4})?\b|\b(?:19|20)\d{2}\b|\bq[1-4]\b/u;

// Words that say nothing about an area of life; a name made only of them is refused ("Misc",
// "General Notes", "Other Stuff", "Tasks").
const GENERIC_WORDS = new Set([
  'misc',
  'miscellaneous',
  'other',
  'others',
  'general',
  'stuff',
  'things',
  'thing',
  'task',
  'tasks',
  'note',
  'notes',
  'item',
  'items',
  'todo',
  'todos',
  'to-do',
  'to-dos',
  'memory',
  'memories',
  'info',
  'information',
  'random',
  'uncategorized',
  'unsorted',
  'category',
  'categories',
  'new',
  'various',
  'topic',
  'topics',
  'data',
  'object',
  'objects',
  'untitled',
  'unknown',
  'none',
  'null',
  'undefined',
  'default',
  'entity',
  'entities',
  'list',
  'lists',
  'and',
  'the',
  'of',
  'a',
  'an',
  'my',
  'user',
]);

// Characters a category name may use: letters, digits, spaces and light punctuation. Markup,
// braces, quotes and control characters mean the model echoed something that is not a name.
const ALLOWED = /^[\p{L}\p{N}\p{M} &'’\-.,/()+]+$/u;

/**
 * Why a proposed category name is refused, or undefined when it is acceptable. The rule, applied
 * to names a model proposes (hosts and operators name categories freely within the length limit):
 * 1. 3–60 characters and at most 6 words, made of letters, digits, spaces and `& ' - . , / ( ) +`;
 * 2. no weekday, relative day ("today", "tomorrow", "this week") or date ("2026-03-01", "2026", "Q3");
 * 3. not made only of generic words ("Misc", "General Notes", "Tasks").
 */
export function categoryNameProblem(name: string): string | undefined {
  const display = name.trim();
  if (display.length < CATEGORY_NAME_MIN || display.length > CATEGORY_NAME_MAX)
    return `must be ${CATEGORY_NAME_MIN}–${CATEGORY_NAME_MAX} characters`;
  if (!ALLOWED.test(display)) return 'has characters a category name does not use';
  const normalized = normalizeCategoryName(display);
  const words = normalized.split(' ').filter((w) => w.length > 0);
  if (words.length === 0 || !/\p{L}/u.test(normalized)) return 'has no letters';
  if (words.length > CATEGORY_NAME_MAX_WORDS) return `has more than ${CATEGORY_NAME_MAX_WORDS} words`;
  if (words.some((w) => TIME_WORDS.has(w)) || RELATIVE_PERIOD.test(normalized) || NUMERIC_DATE.test(normalized))
    return 'names a day or date, not a broad area';
  if (words.every((w) => GENERIC_WORDS.has(w))) return 'is too generic';
  return undefined;
}
