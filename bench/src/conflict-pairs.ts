// The labelled pair set for conflict detection (issue 13): pairs of memories of one kind, each
// labelled `merge` (the second restates or updates the first: it should replace it) or not (both
// facts must stay). Built from templates with fixed fillers, so it is deterministic and reviewable;
// every template has several fillers, and pairs alternate between the dev split (to tune
// thresholds) and the test split (to report). Hard negatives follow the issue: different people or
// things in the same sentence, opposite directions, negations, identifiers, the same topic with a
// different decision or value, antonyms.

export interface ConflictPair {
  readonly a: string;
  readonly b: string;
  readonly type: string;
  readonly merge: boolean;
  /** The template family, for per-family error reports. */
  readonly family: string;
  readonly split: 'dev' | 'test';
}

const PEOPLE = ['Alice', 'Bob', 'Dana Whitfield', 'Priya', 'Marco', 'Chen Wei', 'Fatima', 'Olu', 'Sven', 'Keiko'];
const CITIES = ['Lisbon', 'Porto', 'Berlin', 'Nairobi', 'Osaka', 'Denver', 'Lyon', 'Austin', 'Krakow', 'Hanoi'];
const PROJECTS = ['Atlas', 'Borealis', 'Cobalt', 'Delta', 'Ember', 'Falcon', 'Granite', 'Helix', 'Iris', 'Juniper'];
const TIMES = ['9:00', '9:30', '10:00', '10:15', '11:00', '13:30', '14:00', '15:45', '16:00', '17:30'];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const FOODS = ['green tea', 'black coffee', 'oat milk', 'sparkling water', 'espresso', 'chai', 'mango juice'];
const DBS = ['Postgres', 'MySQL', 'SQLite', 'Redis', 'MongoDB', 'Cassandra', 'DynamoDB'];

type Template = {
  readonly family: string;
  readonly type: string;
  readonly merge: boolean;
  readonly make: (i: number) => [string, string];
};

const at = <T>(list: readonly T[], i: number): T => list[((i % list.length) + list.length) % list.length] as T;

const TEMPLATES: readonly Template[] = [
  // --- Updates: the same statement with a changed value (time, day, amount, count, date).
  {
    family: 'update-time',
    type: 'decision',
    merge: true,
    make: (i) => [
      `The ${at(PROJECTS, i)} standup is at ${at(TIMES, i)}`,
      `The ${at(PROJECTS, i)} standup is at ${at(TIMES, i + 3)}`,
    ],
  },
  {
    family: 'update-day',
    type: 'agreement',
    merge: true,
    make: (i) => [
      `${at(PEOPLE, i)} is on call every ${at(DAYS, i)}`,
      `${at(PEOPLE, i)} is on call every ${at(DAYS, i + 2)}`,
    ],
  },
  {
    family: 'update-amount',
    type: 'decision',
    merge: true,
    make: (i) => [
      `The ${at(PROJECTS, i)} budget for this quarter is $${40 + i}k`,
      `The ${at(PROJECTS, i)} budget for this quarter is $${55 + i}k`,
    ],
  },
  {
    family: 'update-count',
    type: 'project_context',
    merge: true,
    make: (i) => [
      `The ${at(PROJECTS, i)} team has ${4 + (i % 5)} engineers`,
      `The ${at(PROJECTS, i)} team has ${6 + (i % 5)} engineers`,
    ],
  },
  {
    family: 'update-date',
    type: 'project_context',
    merge: true,
    make: (i) => [
      `${at(PROJECTS, i)} launch date is March ${3 + i}`,
      `${at(PROJECTS, i)} launch date is April ${10 + i}`,
    ],
  },
  {
    family: 'update-hours',
    type: 'operating_rule',
    merge: true,
    make: (i) => [
      `Deploys to production happen between ${at(TIMES, i)} and ${at(TIMES, i + 4)}`,
      `Deploys to production happen between ${at(TIMES, i + 1)} and ${at(TIMES, i + 6)}`,
    ],
  },
  {
    family: 'update-duration',
    type: 'operating_rule',
    merge: true,
    make: (i) => [
      `Incident postmortems are due within ${2 + (i % 4)} days`,
      `Incident postmortems are due within ${5 + (i % 4)} days`,
    ],
  },
  {
    family: 'update-percent',
    type: 'incident',
    merge: true,
    make: (i) => [
      `The ${at(PROJECTS, i)} outage affected ${10 + i}% of checkout requests`,
      `The ${at(PROJECTS, i)} outage affected ${30 + i}% of checkout requests`,
    ],
  },
  // --- Paraphrases: the same fact said again (fillers, inflection, punctuation, case, order of clauses).
  {
    family: 'paraphrase-filler',
    type: 'preference',
    merge: true,
    make: (i) => [
      `${at(PEOPLE, i)} prefers ${at(FOODS, i)} in the morning`,
      `${at(PEOPLE, i)} really prefers ${at(FOODS, i)} in the morning`,
    ],
  },
  {
    family: 'paraphrase-note',
    type: 'preference',
    merge: true,
    make: (i) => [
      `Note: ${at(PEOPLE, i)} prefers email over phone calls`,
      `${at(PEOPLE, i)} prefers email over phone calls`,
    ],
  },
  {
    family: 'paraphrase-currently',
    type: 'project_context',
    merge: true,
    make: (i) => [
      `${at(PEOPLE, i)} currently leads the ${at(PROJECTS, i)} migration`,
      `${at(PEOPLE, i)} leads the ${at(PROJECTS, i)} migration`,
    ],
  },
  {
    family: 'paraphrase-article',
    type: 'decision',
    merge: true,
    make: (i) => [
      `We use ${at(DBS, i)} for the ${at(PROJECTS, i)} service`,
      `We use ${at(DBS, i)} for ${at(PROJECTS, i)} service.`,
    ],
  },
  {
    family: 'paraphrase-plural',
    type: 'operating_rule',
    merge: true,
    make: (i) => [
      `Code reviews need two approvals for the ${at(PROJECTS, i)} repository`,
      `Code review needs two approvals for the ${at(PROJECTS, i)} repositories`,
    ],
  },
  {
    family: 'paraphrase-update-word',
    type: 'agreement',
    merge: true,
    make: (i) => [
      `${at(PEOPLE, i)} agreed to review the ${at(PROJECTS, i)} design doc`,
      `Update: ${at(PEOPLE, i)} agreed to review the ${at(PROJECTS, i)} design doc`,
    ],
  },
  {
    family: 'paraphrase-still',
    type: 'preference',
    merge: true,
    make: (i) => [
      `${at(PEOPLE, i)} likes ${at(FOODS, i + 2)} after lunch`,
      `${at(PEOPLE, i)} still likes ${at(FOODS, i + 2)} after lunch`,
    ],
  },
  // --- Hard negatives: both facts must stay.
  {
    family: 'neg-other-person',
    type: 'preference',
    merge: false,
    make: (i) => [`${at(PEOPLE, i)} lives in ${at(CITIES, i)}`, `${at(PEOPLE, i + 1)} lives in ${at(CITIES, i)}`],
  },
  {
    family: 'neg-other-city',
    type: 'project_context',
    merge: false,
    make: (i) => [
      `${at(PEOPLE, i)} works from the ${at(CITIES, i)} office`,
      `${at(PEOPLE, i)} works from the ${at(CITIES, i + 3)} office`,
    ],
  },
  {
    family: 'neg-direction',
    type: 'project_context',
    merge: false,
    make: (i) => [
      `${at(PEOPLE, i)} moved to ${at(CITIES, i)} last year`,
      `${at(PEOPLE, i)} moved from ${at(CITIES, i)} last year`,
    ],
  },
  {
    family: 'neg-negation',
    type: 'preference',
    merge: false,
    make: (i) => [`${at(PEOPLE, i)} drinks ${at(FOODS, i)}`, `${at(PEOPLE, i)} does not drink ${at(FOODS, i)}`],
  },
  {
    family: 'neg-never',
    type: 'operating_rule',
    merge: false,
    make: (i) => [
      `Deploy ${at(PROJECTS, i)} on ${at(DAYS, i)} afternoons`,
      `Never deploy ${at(PROJECTS, i)} on ${at(DAYS, i)} afternoons`,
    ],
  },
  {
    family: 'neg-decision',
    type: 'decision',
    merge: false,
    make: (i) => [
      `We chose ${at(DBS, i)} for the ${at(PROJECTS, i)} service`,
      `We chose ${at(DBS, i + 1)} for the ${at(PROJECTS, i)} service`,
    ],
  },
  {
    family: 'neg-other-project',
    type: 'decision',
    merge: false,
    make: (i) => [
      `The ${at(PROJECTS, i)} budget for this quarter is $${40 + i}k`,
      `The ${at(PROJECTS, i + 1)} budget for this quarter is $${40 + i}k`,
    ],
  },
  {
    family: 'neg-identifier',
    type: 'project_context',
    merge: false,
    make: (i) => [`Room ${101 + i} is the quiet room`, `Room ${201 + i} is the quiet room`],
  },
  {
    family: 'neg-flight',
    type: 'agreement',
    merge: false,
    make: (i) => [
      `Flight ${300 + i} to ${at(CITIES, i)} leaves at ${at(TIMES, i)}`,
      `Flight ${400 + i} to ${at(CITIES, i)} leaves at ${at(TIMES, i)}`,
    ],
  },
  {
    family: 'neg-antonym',
    type: 'preference',
    merge: false,
    make: (i) => [`${at(PEOPLE, i)} loves ${at(FOODS, i)}`, `${at(PEOPLE, i)} hates ${at(FOODS, i)}`],
  },
  {
    family: 'neg-other-value-word',
    type: 'preference',
    merge: false,
    make: (i) => [`${at(PEOPLE, i)} prefers ${at(FOODS, i)}`, `${at(PEOPLE, i)} prefers ${at(FOODS, i + 1)}`],
  },
  {
    family: 'neg-before-after',
    type: 'operating_rule',
    merge: false,
    make: (i) => [
      `Run the ${at(PROJECTS, i)} migrations before the release`,
      `Run the ${at(PROJECTS, i)} migrations after the release`,
    ],
  },
  {
    family: 'neg-more-less',
    type: 'incident',
    merge: false,
    make: (i) => [
      `The ${at(PROJECTS, i)} outage cost more than the ${at(PROJECTS, i + 1)} outage`,
      `The ${at(PROJECTS, i)} outage cost less than the ${at(PROJECTS, i + 1)} outage`,
    ],
  },
  {
    family: 'neg-other-attribute',
    type: 'project_context',
    merge: false,
    make: (i) => [
      `${at(PEOPLE, i)}'s manager is ${at(PEOPLE, i + 2)}`,
      `${at(PEOPLE, i)}'s mentor is ${at(PEOPLE, i + 2)}`,
    ],
  },
  {
    family: 'neg-role-swap',
    type: 'project_context',
    merge: false,
    make: (i) => [
      `${at(PEOPLE, i)} reports to ${at(PEOPLE, i + 1)}`,
      `${at(PEOPLE, i + 1)} reports to ${at(PEOPLE, i)}`,
    ],
  },
  {
    family: 'neg-stop-start',
    type: 'decision',
    merge: false,
    make: (i) => [`We started using ${at(DBS, i)} for caching`, `We stopped using ${at(DBS, i)} for caching`],
  },
  {
    family: 'neg-incident-other-service',
    type: 'incident',
    merge: false,
    make: (i) => [
      `The ${at(PROJECTS, i)} API was down for ${20 + i} minutes on ${at(DAYS, i)}`,
      `The ${at(PROJECTS, i + 2)} API was down for ${20 + i} minutes on ${at(DAYS, i)}`,
    ],
  },
];

const FILLS = 10;

/** Every pair, in a fixed order: each template's fillers alternate between the dev and test splits. */
export function conflictPairs(): ConflictPair[] {
  const pairs: ConflictPair[] = [];
  for (const t of TEMPLATES) {
    for (let i = 0; i < FILLS; i++) {
      const [a, b] = t.make(i);
      pairs.push({ a, b, type: t.type, merge: t.merge, family: t.family, split: i % 2 === 0 ? 'dev' : 'test' });
    }
  }
  return pairs;
}
