// LoCoMo turn-level retrieval (shared/data/README.md protocol): one scope per conversation, one
// memory per turn (`speaker: text`, the session date as its time), the question as the query,
// gold = its evidence turn ids. Three configurations on the same data: lexical only, semantic only
// (offline GloVe SIF embedder) and hybrid (both, fused and dampened with the defaults), plus paired
// bootstrap differences. The data is read at run time from ../shared/data, never copied.
//   npm run bench:locomo
//   npm run bench:locomo -- --data /path/to/shared/data --modes hybrid
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
const embedder = createOfflineEmbedder(values.vectors ? { vectorsPath: values.vectors } : {});

interface Run {
  byCategory: Map<number, QuestionScores[]>;
  adversarial: QuestionScores[];
  skipped: number;
  seconds: number;
  latencies: number[];
}

async function run(mode: Mode): Promise<Run> {
  const byCategory = new Map<number, QuestionScores[]>();
  const adversarial: QuestionScores[] = [];
  const latencies: number[] = [];
  let skipped = 0;
  const started = performance.now();
  for (const sample of samples) {
    const engine = await createMemoryEngine({
      database: { path: ':memory:' },
      ...(MODES[mode].embed ? { embedder } : {}),
      // LoCoMo's sessions are from 2023: search every date, not the default 90-day window.
      config: {
        ...MODES[mode].config,
        recall: { searchWindowDays: null, ...MODES[mode].config.recall },
        limits: { maxBatchInputs: 100_000 },
      },
    });
    const agentId = sample.sample_id;
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
    const results = await engine.rememberMany({
      agentId,
      memories: turns.map((t) => ({
        content: t.content,
        source: { type: 'locomo', id: t.dia },
        ...(t.at ? { createdAt: t.at } : {}),
      })),
    });
    // Identical turns deduplicate into one memory: it stands for every turn id it came from.
    const diasOf = new Map<string, string[]>();
    for (const [i, r] of results.entries()) diasOf.set(r.id, [...(diasOf.get(r.id) ?? []), turns[i]?.dia ?? '']);
    const known = new Set(turns.map((t) => t.dia));
    for (const qa of sample.qa) {
      const gold = new Set(normaliseEvidence(qa.evidence ?? []).filter((d) => known.has(d)));
      if (gold.size === 0) {
        skipped++;
        continue;
      }
      const response = await engine.recall({ agentId, query: qa.question, limit: 50 });
      latencies.push(response.timings.totalMs);
      const scores = scoreRanking(
        response.results.map((h) => diasOf.get(h.id) ?? []),
        gold,
      );
      if (qa.category === 5) adversarial.push(scores);
      else byCategory.set(qa.category, [...(byCategory.get(qa.category) ?? []), scores]);
    }
    await engine.close();
  }
  return { byCategory, adversarial, skipped, seconds: (performance.now() - started) / 1000, latencies };
}

const runs = new Map<Mode, Run>();
for (const mode of modes) runs.set(mode, await run(mode));

const NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };
const row = (label: string, scores: QuestionScores[]) =>
  console.log(
    `${label.padEnd(22)} n=${String(scores.length).padStart(4)}  R@5 ${fmtCi(meanWithInterval(scores.map((s) => s.recall5)))}  R@10 ${fmtCi(meanWithInterval(scores.map((s) => s.recall10)))}  Hit@10 ${meanWithInterval(scores.map((s) => s.hit10)).mean.toFixed(3)}  MRR ${meanWithInterval(scores.map((s) => s.mrr)).mean.toFixed(3)}  nDCG@10 ${meanWithInterval(scores.map((s) => s.ndcg10)).mean.toFixed(3)}`,
  );
const allOf = (r: Run): QuestionScores[] => [1, 2, 3, 4].flatMap((c) => r.byCategory.get(c) ?? []);
const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
for (const [mode, r] of runs) {
  const lat = sorted(r.latencies);
  console.log(
    `\nLoCoMo turn-level retrieval — ${mode}, ${samples.length} conversations, ${r.seconds.toFixed(1)} s; recall p50 ${(lat[Math.floor(lat.length / 2)] ?? 0).toFixed(2)} ms, p95 ${(lat[Math.floor(lat.length * 0.95)] ?? 0).toFixed(2)} ms`,
  );
  row('categories 1-4', allOf(r));
  for (const c of [1, 2, 3, 4]) row(`  ${c} ${NAMES[c]}`, r.byCategory.get(c) ?? []);
  row('5 adversarial', r.adversarial);
  console.log(`questions without resolvable evidence (skipped): ${r.skipped}`);
}
const hybrid = runs.get('hybrid');
if (hybrid) {
  console.log(
    '\nPaired bootstrap, hybrid minus single channel, categories 1-4 (95% interval; above 0 = hybrid better):',
  );
  for (const other of ['lexical', 'semantic'] as const) {
    const r = runs.get(other);
    if (!r) continue;
    const a = allOf(hybrid);
    const b = allOf(r);
    for (const metric of ['recall10', 'ndcg10', 'mrr'] as const) {
      console.log(
        `  vs ${other.padEnd(8)} ${metric.padEnd(8)} ${fmtCi(
          pairedDifference(
            a.map((s) => s[metric]),
            b.map((s) => s[metric]),
          ),
        )}`,
      );
    }
  }
}
