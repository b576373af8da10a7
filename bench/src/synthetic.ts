// Deterministic, realistic-looking memories for benchmarks: people, projects, preferences, decisions,
// facts and procedures built from word lists with a seeded random source (never random strings).
import { createSeededRandom } from '@memory/core';

const FIRST = [
  'Alice',
  'Bob',
  'Carmen',
  'Dana',
  'Elif',
  'Farid',
  'Grace',
  'Hiro',
  'Ines',
  'Jonas',
  'Kemal',
  'Lena',
  'Mateo',
  'Nadia',
  'Omar',
  'Priya',
  'Quinn',
  'Rosa',
  'Sam',
  'Tariq',
  'Uma',
  'Viktor',
  'Wen',
  'Ximena',
  'Yusuf',
  'Zoe',
];
const LAST = [
  'Andersen',
  'Baker',
  'Chen',
  'Diaz',
  'Eriksen',
  'Fischer',
  'Garcia',
  'Haddad',
  'Ito',
  'Jensen',
  'Kowalski',
  'Lopez',
  'Moreau',
  'Nakamura',
  'Okafor',
  'Patel',
  'Rossi',
  'Silva',
  'Tanaka',
  'Ueda',
  'Varga',
  'Weber',
  'Yilmaz',
  'Zhang',
];
const PROJECTS = [
  'Atlas',
  'Beacon',
  'Cobalt',
  'Delta',
  'Ember',
  'Falcon',
  'Granite',
  'Harbor',
  'Iris',
  'Juniper',
  'Kestrel',
  'Lumen',
  'Meridian',
  'Nimbus',
  'Onyx',
  'Pioneer',
  'Quartz',
  'Redwood',
  'Summit',
  'Tundra',
];
const DRINKS = [
  'green tea',
  'black coffee',
  'oat milk lattes',
  'sparkling water',
  'chai',
  'espresso',
  'herbal tea',
  'cold brew',
];
const FOODS = [
  'vegetarian food',
  'sushi',
  'spicy ramen',
  'Mediterranean salads',
  'tacos',
  'dumplings',
  'pasta',
  'curry',
];
const CHANNELS = ['email', 'Slack', 'phone calls', 'short video calls', 'written memos', 'text messages'];
const TIMES = [
  'early mornings',
  'late afternoons',
  'Tuesdays',
  'Friday mornings',
  'after lunch',
  'the first week of the month',
];
const TECH = [
  'PostgreSQL',
  'SQLite',
  'Redis',
  'Kafka',
  'TypeScript',
  'Rust',
  'Go',
  'Python',
  'GraphQL',
  'gRPC',
  'Kubernetes',
  'Terraform',
];
const CITIES = [
  'Lisbon',
  'Berlin',
  'Nairobi',
  'Osaka',
  'Toronto',
  'Bogotá',
  'Istanbul',
  'Melbourne',
  'Warsaw',
  'Mumbai',
];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const TYPES = ['preference', 'decision', 'fact', 'procedural', 'constraint'] as const;

export type SyntheticType = (typeof TYPES)[number];
export interface SyntheticMemory {
  readonly content: string;
  readonly type: SyntheticType;
  readonly who: string;
  readonly project: string;
}

export function createGenerator(seed: number) {
  const rnd = createSeededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd.float() * xs.length)] as T;
  const int = (lo: number, hi: number) => lo + Math.floor(rnd.float() * (hi - lo + 1));
  const person = () => `${pick(FIRST)} ${pick(LAST)}`;

  const templates: Record<SyntheticType, () => string> = {
    preference: () =>
      pick([
        () => `${person()} prefers ${pick(DRINKS)} during ${pick(TIMES)} meetings about ${pick(PROJECTS)}.`,
        () => `${person()} likes ${pick(FOODS)} for team lunches and dislikes ${pick(FOODS)}.`,
        () => `${person()} wants ${pick(PROJECTS)} updates by ${pick(CHANNELS)}, ideally in ${pick(TIMES)}.`,
      ])(),
    decision: () =>
      pick([
        () =>
          `We decided to migrate ${pick(PROJECTS)} from ${pick(TECH)} to ${pick(TECH)} by ${pick(MONTHS)} ${int(2024, 2027)}.`,
        () => `Decision: ${pick(PROJECTS)} ships release ${int(1, 9)}.${int(0, 20)} only after ${person()} signs off.`,
        () => `The team agreed that ${pick(PROJECTS)} will hold its planning review every ${pick(TIMES)}.`,
      ])(),
    fact: () =>
      pick([
        () => `${person()} leads the ${pick(PROJECTS)} project from the ${pick(CITIES)} office.`,
        () => `${pick(PROJECTS)} stores about ${int(2, 900)} GB of data in ${pick(TECH)}.`,
        () =>
          `${person()} joined the ${pick(PROJECTS)} team in ${pick(MONTHS)} ${int(2015, 2026)} and speaks ${int(2, 4)} languages.`,
        () => `The ${pick(PROJECTS)} on-call rotation has ${int(3, 12)} engineers and pages ${person()} first.`,
      ])(),
    procedural: () =>
      pick([
        () => `To deploy ${pick(PROJECTS)}, run the ${pick(TECH)} migration, then ask ${person()} to flip the flag.`,
        () => `When ${pick(PROJECTS)} alerts fire, check the ${pick(TECH)} dashboard before paging ${person()}.`,
      ])(),
    constraint: () =>
      pick([
        () => `Never deploy ${pick(PROJECTS)} on ${pick(TIMES)} without approval from ${person()}.`,
        () => `${pick(PROJECTS)} must keep p95 latency under ${int(50, 900)} ms for customers in ${pick(CITIES)}.`,
      ])(),
  };

  return {
    memory(): SyntheticMemory {
      const type = pick(TYPES);
      return {
        content: templates[type](),
        type,
        who: pick(FIRST).toLowerCase(),
        project: pick(PROJECTS).toLowerCase(),
      };
    },
    query(): string {
      return pick([
        () => `What does ${pick(FIRST)} ${pick(LAST)} prefer to drink?`,
        () => `Who leads ${pick(PROJECTS)}?`,
        () => `${pick(PROJECTS)} migration ${pick(TECH)}`,
        () => `how do I deploy ${pick(PROJECTS)}`,
        () => `when does ${pick(PROJECTS)} hold its planning review`,
        () => `${pick(FIRST)} ${pick(FOODS)}`,
        () => `latency budget for ${pick(CITIES)} customers`,
        () => `who is paged first for ${pick(PROJECTS)} on-call`,
      ])();
    },
  };
}

/** A write bench's inputs: the first `count` distinct memories of the generator seeded `seed`. */
export function distinctMemories(
  count: number,
  seed = 42,
): Array<{ content: string; type: string; who: string; project: string }> {
  const gen = createGenerator(seed);
  const seen = new Set<string>();
  const inputs: Array<{ content: string; type: string; who: string; project: string }> = [];
  while (inputs.length < count) {
    const m = gen.memory();
    if (seen.has(m.content)) continue;
    seen.add(m.content);
    inputs.push({ content: m.content, type: m.type, who: m.who, project: m.project });
  }
  return inputs;
}
