// LoCoMo turn-level retrieval (shared/data/README.md protocol): one memory per turn (`speaker: text`,
// the session date as its time), the question as the query in its conversation's scope, gold = its
// evidence turn ids. Two store layouts: one store per conversation, and the ten conversations as ten
// agents in one store. Three configurations on the same data: lexical only, semantic only (offline
// GloVe SIF embedder) and hybrid (the defaults), each scored on the dev split (first five
// conversations: tune here) and the test split (last five: report here), side by side, with
// bootstrap 95% intervals and paired differences. Protocol: bench/README.md. The data is read at
// run time from ../shared/data, never copied.
//   npm run bench:locomo
//   npm run bench:locomo -- --modes lexical,hybrid --layouts shared --hybrid '{"recall":{"fusion":"rrf"}}'
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { MemoryConfigInput } from '@memory/core';
import { createMemoryEngine } from '@memory/engine';
import { createOfflineEmbedder } from '@memory/providers';
import { DEFAULT_DATA_DIR, exitUnlessBenchData } from './bench-data.js';
import { fmtCi, meanWithInterval, pairedDifference, type QuestionScores, scoreRanking } from './retrieval-metrics.js';

const { values } = parseArgs({
  allowPositionals: true,
  options: {
    data: { type: 'string', default: DEFAULT_DATA_DIR },
    modes: { type: 'string', default: 'lexical,semantic,hybrid' },
    /** JSON merged into the hybrid configuration, to compare settings: --hybrid '{"recall":{"fusion":"rrf"}}' */
    hybrid: { type: 'string', default: '{}' },
    vectors: { type: 'string' },
    /** `per-conversation` (one store each) and/or `shared` (ten agents in one store). */
    layouts: { type: 'string', default: 'per-conversation,shared' },
    /** JSON merged into every mode's configuration (e.g. a dampening step off for all). */
    config: { type: 'string', default: '{}' },
    /** Print categories 1-4 one by one for the test split. */
    categories: { type: 'boolean', default: false },
    /** `dev` while tuning (test conversations are then neither loaded nor asked), `dev,test` to report. */
    splits: { type: 'string', default: 'dev,test' },
  },
});
exitUnlessBenchData(values.data, ['locomo/locomo10.json'], 'bench:locomo');

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface Qa {
  question: string;
  category: number;
  evidence?: string[];
}
interface Sample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Qa[];
}

const samples = JSON.parse(readFileSync(join(values.data, 'locomo', 'locomo10.json'), 'utf8')) as Sample[];

/** "1:56 pm on 8 May, 2023" → epoch ms (UTC). */
function sessionTime(text: unknown): number | undefined {
  const m = typeof text === 'string' ? text.match(/(\d+):(\d+)\s*(am|pm)\s+on\s+(\d+)\s+(\w+),?\s+(\d{4})/i) : null;
  if (!m) return undefined;
  const months = [
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
  ];
  const month = months.indexOf((m[5] ?? '').toLowerCase());
  let hour = Number(m[1]) % 12;
  if ((m[3] ?? '').toLowerCase() === 'pm') hour += 12;
  return month < 0 ? undefined : Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

/** Evidence ids normalised as the protocol says: split on ';' and spaces, `D:11:26` → `D11:26`, no leading zeros. */
function normaliseEvidence(evidence: readonly string[]): string[] {
  return evidence
    .flatMap((e) => e.split(/[;\s]+/))
    .map((e) =>
      e.replace(/^D:/, 'D').replace(/^D(\d+):0*(\d+)$/, (_x, s: string, t: string) => `D${Number(s)}:${Number(t)}`),
    )
    .filter((e) => /^D\d+:\d+$/.test(e));
}

type Mode = 'lexical' | 'semantic' | 'hybrid';
const MODES: Record<Mode, { embed: boolean; config: MemoryConfigInput }> = {
  lexical: { embed: false, config: {} },
  // Gravity dampening exists to demote semantic-only matches; off here so this row measures the channel itself.
  semantic: { embed: true, config: { recall: { channels: { lexical: false }, dampening: { gravity: false } } } },
  hybrid: { embed: true, config: JSON.parse(values.hybrid) as MemoryConfigInput },
};
const modes = values.modes.split(',').filter((m): m is Mode => m in MODES);
const layouts = values.layouts.split(',').filter((l): l is Layout => l === 'per-conversation' || l === 'shared');
const common = JSON.parse(values.config) as MemoryConfigInput;
const embedder = createOfflineEmbedder(values.vectors ? { vectorsPath: values.vectors } : {});

type Layout = 'per-conversation' | 'shared';
type Split = 'dev' | 'test';
/** The data README's split: the first five conversations in file order are dev, the last five test. */
const splitOf = new Map(samples.map((s, i) => [s.sample_id, (i < 5 ? 'dev' : 'test') as Split]));
const splits = (['dev', 'test'] as const).filter((s) => values.splits.split(',').includes(s));
/** The conversations of the splits asked for. */
const inSplits = samples.filter((s) => splits.includes(splitOf.get(s.sample_id) ?? 'test'));

function merge(a: MemoryConfigInput, b: MemoryConfigInput): MemoryConfigInput {
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const base = out[key];
    out[key] =
      base && typeof base === 'object' && value && typeof value === 'object' && !Array.isArray(value)
        ? merge(base as MemoryConfigInput, value as MemoryConfigInput)
        : value;
  }
  return out as MemoryConfigInput;
}

interface Scored {
  readonly split: Split;
  readonly category: number;
  readonly scores: QuestionScores;
}

interface Run {
  scored: Scored[];
  skipped: number;
  seconds: number;
  latencies: number[];
}

function turnsOf(sample: Sample): Array<{ dia: string; content: string; at: number | undefined }> {
  const turns: Array<{ dia: string; content: string; at: number | undefined }> = [];
  for (let n = 1; ; n++) {
    const session = sample.conversation[`session_${n}`];
    if (session === undefined && sample.conversation[`session_${n}_date_time`] === undefined) break;
    if (!Array.isArray(session)) continue;
    const at = sessionTime(sample.conversation[`session_${n}_date_time`]);
    for (const t of session as Turn[]) {
      turns.push({
        dia: t.dia_id,
        content: `${t.speaker}: ${t.text}${t.blip_caption ? ` [photo: ${t.blip_caption}]` : ''}`,
        at,
      });
    }
  }
  return turns;
}

async function openEngine(mode: Mode) {
  return createMemoryEngine({
    database: { path: ':memory:' },
    ...(MODES[mode].embed ? { embedder } : {}),
    // LoCoMo's sessions are from 2023: search every date, not the default 90-day window.
    config: merge(
      merge({ recall: { searchWindowDays: null }, limits: { maxBatchInputs: 100_000 } }, common),
      MODES[mode].config,
    ),
  });
}

type Engine = Awaited<ReturnType<typeof openEngine>>;

/** Loads one conversation into `engine` as agent `sample_id`; returns memory id → the turn ids it stands for. */
async function load(engine: Engine, sample: Sample): Promise<{ diasOf: Map<string, string[]>; known: Set<string> }> {
  const turns = turnsOf(sample);
  const results = await engine.rememberMany({
    agentId: sample.sample_id,
    memories: turns.map((t) => ({
      content: t.content,
      source: { type: 'locomo', id: t.dia },
      ...(t.at ? { createdAt: t.at } : {}),
    })),
  });
  // Identical turns deduplicate into one memory: it stands for every turn id it came from.
  const diasOf = new Map<string, string[]>();
  for (const [i, r] of results.entries()) diasOf.set(r.id, [...(diasOf.get(r.id) ?? []), turns[i]?.dia ?? '']);
  return { diasOf, known: new Set(turns.map((t) => t.dia)) };
}

async function ask(engine: Engine, sample: Sample, loaded: Awaited<ReturnType<typeof load>>, out: Run): Promise<void> {
  for (const qa of sample.qa) {
    const gold = new Set(normaliseEvidence(qa.evidence ?? []).filter((d) => loaded.known.has(d)));
    if (gold.size === 0) {
      out.skipped++;
      continue;
    }
    const response = await engine.recall({ agentId: sample.sample_id, query: qa.question, limit: 50 });
    out.latencies.push(response.timings.totalMs);
    const scores = scoreRanking(
      response.results.map((h) => loaded.diasOf.get(h.id) ?? []),
      gold,
    );
    out.scored.push({ split: splitOf.get(sample.sample_id) ?? 'test', category: qa.category, scores });
  }
}

async function run(mode: Mode, layout: Layout): Promise<Run> {
  const out: Run = { scored: [], skipped: 0, seconds: 0, latencies: [] };
  const started = performance.now();
  if (layout === 'per-conversation') {
    for (const sample of inSplits) {
      const engine = await openEngine(mode);
      await ask(engine, sample, await load(engine, sample), out);
      await engine.close();
    }
  } else {
    // Every conversation written first, then every question asked: each agent's neighbours are all there.
    const engine = await openEngine(mode);
    const loaded = [];
    for (const sample of inSplits) loaded.push(await load(engine, sample));
    for (const [i, sample] of inSplits.entries())
      await ask(engine, sample, loaded[i] as Awaited<ReturnType<typeof load>>, out);
    await engine.close();
  }
  out.seconds = (performance.now() - started) / 1000;
  return out;
}

const NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };
const of = (r: Run, split: Split, categories = [1, 2, 3, 4]) =>
  r.scored.filter((s) => s.split === split && categories.includes(s.category)).map((s) => s.scores);
const mean = (xs: readonly QuestionScores[], metric: keyof QuestionScores) =>
  meanWithInterval(xs.map((s) => s[metric]));
const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);

for (const layout of layouts) {
  const runs = new Map<Mode, Run>();
  for (const mode of modes) runs.set(mode, await run(mode, layout));
  console.log(
    `\nLoCoMo turn-level retrieval, ${layout === 'shared' ? 'ten agents in one store' : 'one store per conversation'}, categories 1-4 (dev = conv 1-5: tune; test = conv 6-10: report)`,
  );
  console.log('mode      split  n     R@5                   R@10                  Hit@10  MRR    nDCG@10  p50 ms');
  for (const [mode, r] of runs) {
    const lat = sorted(r.latencies);
    for (const split of splits) {
      const xs = of(r, split);
      console.log(
        `${mode.padEnd(9)} ${split.padEnd(5)}  ${String(xs.length).padEnd(4)}  ${fmtCi(mean(xs, 'recall5'))}  ${fmtCi(mean(xs, 'recall10'))}  ${mean(xs, 'hit10').mean.toFixed(3)}   ${mean(xs, 'mrr').mean.toFixed(3)}  ${mean(xs, 'ndcg10').mean.toFixed(3)}    ${(lat[Math.floor(lat.length / 2)] ?? 0).toFixed(1)}`,
      );
    }
    if (values.categories)
      for (const c of [1, 2, 3, 4]) {
        const xs = of(r, splits.at(-1) ?? 'test', [c]);
        console.log(
          `  ${splits.at(-1)} ${c} ${NAMES[c]?.padEnd(11)} n=${String(xs.length).padEnd(4)} R@10 ${fmtCi(mean(xs, 'recall10'))}  MRR ${mean(xs, 'mrr').mean.toFixed(3)}`,
        );
      }
    const adversarial = r.scored.filter((s) => s.category === 5).map((s) => s.scores);
    console.log(
      `          cat 5  ${String(adversarial.length).padEnd(4)}  (adversarial, both splits) R@10 ${fmtCi(mean(adversarial, 'recall10'))}; skipped without evidence: ${r.skipped}`,
    );
  }
  const hybrid = runs.get('hybrid');
  const lexical = runs.get('lexical');
  if (hybrid && lexical) {
    console.log('paired bootstrap, hybrid − lexical (95% interval; above 0 = hybrid better):');
    for (const split of splits) {
      const a = of(hybrid, split);
      const b = of(lexical, split);
      const diff = (metric: keyof QuestionScores) =>
        fmtCi(
          pairedDifference(
            a.map((s) => s[metric]),
            b.map((s) => s[metric]),
          ),
        );
      console.log(`  ${split.padEnd(5)} R@10 ${diff('recall10')}  nDCG@10 ${diff('ndcg10')}  MRR ${diff('mrr')}`);
    }
  }
}
