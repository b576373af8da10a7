// LoCoMo turn-level retrieval (shared/data/README.md protocol): one scope per conversation, one
// memory per turn, the question as the query, gold = its evidence turn ids. Lexical channel only for
// now. The data is read at run time from ../shared/data and never copied into the repository.
//   npm run bench:locomo
//   npm run bench:locomo -- --data /path/to/shared/data
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createMemoryEngine } from '@memory/engine';
import { type QuestionScores, fmtCi, meanWithInterval, scoreRanking } from './retrieval-metrics.js';

const { values } = parseArgs({ allowPositionals: true, options: { data: { type: 'string', default: join(import.meta.dirname, '..', '..', '..', 'shared', 'data') } } });

interface Turn { speaker: string; dia_id: string; text: string; blip_caption?: string }
interface Qa { question: string; category: number; evidence?: string[] }
interface Sample { sample_id: string; conversation: Record<string, unknown>; qa: Qa[] }

const samples = JSON.parse(readFileSync(join(values.data, 'locomo', 'locomo10.json'), 'utf8')) as Sample[];

/** "1:56 pm on 8 May, 2023" → epoch ms (UTC). */
function sessionTime(text: unknown): number | undefined {
  const m = typeof text === 'string' ? text.match(/(\d+):(\d+)\s*(am|pm)\s+on\s+(\d+)\s+(\w+),?\s+(\d{4})/i) : null;
  if (!m) return undefined;
  const months = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
  const month = months.indexOf((m[5] ?? '').toLowerCase());
  let hour = Number(m[1]) % 12;
  if ((m[3] ?? '').toLowerCase() === 'pm') hour += 12;
  return month < 0 ? undefined : Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

/** Evidence ids normalised as the protocol says: split on ';' and spaces, `D:11:26` → `D11:26`, no leading zeros. */
function normaliseEvidence(evidence: readonly string[]): string[] {
  return evidence
    .flatMap((e) => e.split(/[;\s]+/))
    .map((e) => e.replace(/^D:/, 'D').replace(/^D(\d+):0*(\d+)$/, (_x, s: string, t: string) => `D${Number(s)}:${Number(t)}`))
    .filter((e) => /^D\d+:\d+$/.test(e));
}

const byCategory = new Map<number, QuestionScores[]>();
const adversarial: QuestionScores[] = [];
let skipped = 0;
const started = performance.now();
for (const sample of samples) {
  const engine = await createMemoryEngine({ database: { path: ':memory:' }, config: { limits: { maxBatchInputs: 100_000 } } });
  const agentId = sample.sample_id;
  const turns: Array<{ dia: string; content: string; at: number | undefined }> = [];
  for (let n = 1; ; n++) {
    const session = sample.conversation[`session_${n}`];
    if (session === undefined && sample.conversation[`session_${n}_date_time`] === undefined) break;
    if (!Array.isArray(session)) continue;
    const at = sessionTime(sample.conversation[`session_${n}_date_time`]);
    for (const t of session as Turn[]) {
      turns.push({ dia: t.dia_id, content: `${t.speaker}: ${t.text}${t.blip_caption ? ` [photo: ${t.blip_caption}]` : ''}`, at });
    }
  }
  const results = await engine.rememberMany(turns.map((t) => ({ agentId, content: t.content, source: { type: 'locomo', id: t.dia }, ...(t.at ? { createdAt: t.at } : {}) })));
  // Identical turns deduplicate into one memory: it stands for every turn id it came from.
  const diasOf = new Map<string, string[]>();
  results.forEach((r, i) => diasOf.set(r.id, [...(diasOf.get(r.id) ?? []), turns[i]?.dia ?? '']));
  const known = new Set(turns.map((t) => t.dia));
  for (const qa of sample.qa) {
    const gold = new Set(normaliseEvidence(qa.evidence ?? []).filter((d) => known.has(d)));
    if (gold.size === 0) {
      skipped++;
      continue;
    }
    const { results: hits } = await engine.recall({ agentId, query: qa.question, limit: 50 });
    const scores = scoreRanking(hits.map((h) => diasOf.get(h.id) ?? []), gold);
    if (qa.category === 5) adversarial.push(scores);
    else byCategory.set(qa.category, [...(byCategory.get(qa.category) ?? []), scores]);
  }
  await engine.close();
}
const seconds = (performance.now() - started) / 1000;

const NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };
const all = [...byCategory.values()].flat();
const row = (label: string, scores: QuestionScores[]) =>
  console.log(
    `${label.padEnd(22)} n=${String(scores.length).padStart(4)}  R@5 ${fmtCi(meanWithInterval(scores.map((s) => s.recall5)))}  R@10 ${fmtCi(meanWithInterval(scores.map((s) => s.recall10)))}  Hit@10 ${meanWithInterval(scores.map((s) => s.hit10)).mean.toFixed(3)}  MRR ${meanWithInterval(scores.map((s) => s.mrr)).mean.toFixed(3)}  nDCG@10 ${meanWithInterval(scores.map((s) => s.ndcg10)).mean.toFixed(3)}`,
  );
console.log(`LoCoMo turn-level retrieval, lexical channel (BM25 over FTS5), ${samples.length} conversations, ${seconds.toFixed(1)} s`);
row('categories 1-4', all);
for (const c of [1, 2, 3, 4]) row(`  ${c} ${NAMES[c]}`, byCategory.get(c) ?? []);
row('5 adversarial', adversarial);
console.log(`questions without resolvable evidence (skipped): ${skipped}`);
