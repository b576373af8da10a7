// SciFact calibration of the lexical and semantic channels: one scope holding the 5,183 abstracts,
// claims as queries, relevance = cited_doc_ids. Dev = the train claims with cited documents (tune
// here), test = the 300 validation claims (the BEIR test set: report here), side by side. A correct
// BM25 lands at nDCG@10 0.665–0.68 on test. The semantic row uses the offline GloVe SIF embedder
// with the lexical channel off; hybrid is the defaults with it. Protocol: bench/README.md.
//   npm run bench:scifact
//   npm run bench:scifact -- --modes semantic
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { MemoryConfigInput } from '@memory/core';
import { createMemoryEngine } from '@memory/engine';
import { createOfflineEmbedder } from '@memory/providers';
import { DEFAULT_DATA_DIR, exitUnlessBenchData } from './bench-data.js';
import { parseCsv } from './csv.js';
import { fmtCi, meanWithInterval, pairedDifference, type QuestionScores, scoreRanking } from './retrieval-metrics.js';

const { values } = parseArgs({
  allowPositionals: true,
  options: {
    data: { type: 'string', default: DEFAULT_DATA_DIR },
    modes: { type: 'string', default: 'lexical,semantic,hybrid' },
    /** JSON merged into the hybrid configuration. */
    hybrid: { type: 'string', default: '{}' },
    /** JSON merged into every mode's configuration. */
    config: { type: 'string', default: '{}' },
    /** `dev` while tuning (test claims are not asked), `dev,test` to report. */
    splits: { type: 'string', default: 'dev,test' },
  },
});
exitUnlessBenchData(values.data, ['scifact/corpus_train.csv', 'scifact/claims_validation.csv'], 'bench:scifact');
const dir = join(values.data, 'scifact');

const [corpusHeader, ...corpusRows] = parseCsv(readFileSync(join(dir, 'corpus_train.csv'), 'utf8'));
const col = (header: string[] | undefined, name: string) => header?.indexOf(name) ?? -1;
const [docCol, titleCol, abstractCol] = ['doc_id', 'title', 'abstract'].map((n) => col(corpusHeader, n)) as [
  number,
  number,
  number,
];
/** The abstract column is a Python list of sentence strings. */
const sentences = (text: string): string[] =>
  [...text.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)].map((m) =>
    (m[1] ?? m[2] ?? '').replace(/\\(.)/g, '$1'),
  );

const docs = corpusRows.filter((r) => r.length > abstractCol && r[docCol]);
/** Claims with their cited documents, from one claims file. */
function claimsOf(file: string): Array<{ text: string; gold: Set<string> }> {
  const [claimHeader, ...claimRows] = parseCsv(readFileSync(join(dir, file), 'utf8'));
  const [idCol, claimCol, citedCol] = ['id', 'claim', 'cited_doc_ids'].map((n) => col(claimHeader, n)) as [
    number,
    number,
    number,
  ];
  const claims = new Map<string, { text: string; gold: Set<string> }>();
  for (const r of claimRows) {
    const id = r[idCol];
    if (!id) continue;
    const entry = claims.get(id) ?? { text: r[claimCol] ?? '', gold: new Set<string>() };
    for (const d of (r[citedCol] ?? '').match(/\d+/g) ?? []) entry.gold.add(d);
    claims.set(id, entry);
  }
  return [...claims.values()].filter((c) => c.gold.size > 0);
}
const splits = { dev: claimsOf('claims_train.csv'), test: claimsOf('claims_validation.csv') };
const asked = (['dev', 'test'] as const).filter((s) => values.splits.split(',').includes(s));

type Mode = 'lexical' | 'semantic' | 'hybrid';
const MODES: Record<Mode, { embed: boolean; config: MemoryConfigInput }> = {
  lexical: { embed: false, config: {} },
  // Gravity dampening exists to demote semantic-only matches; off here so this row measures the channel itself.
  semantic: { embed: true, config: { recall: { channels: { lexical: false }, dampening: { gravity: false } } } },
  hybrid: { embed: true, config: JSON.parse(values.hybrid) as MemoryConfigInput },
};
const embedder = createOfflineEmbedder();
const common = JSON.parse(values.config) as MemoryConfigInput;

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

console.log(
  `SciFact (${docs.length} abstracts): dev = ${splits.dev.length} train claims (tune), test = ${splits.test.length} validation claims (report)`,
);
console.log('mode      split  n     nDCG@10               Recall@50             MRR');
const perQuery = new Map<string, QuestionScores[]>();
for (const mode of values.modes.split(',').filter((m): m is Mode => m in MODES)) {
  const engine = await createMemoryEngine({
    database: { path: ':memory:' },
    ...(MODES[mode].embed ? { embedder } : {}),
    config: merge(merge({ limits: { maxContentBytes: 1024 * 1024 } }, common), MODES[mode].config),
  });
  const results = await engine.rememberMany({
    agentId: 'scifact',
    memories: docs.map((r) => ({
      content: `${r[titleCol]} ${sentences(r[abstractCol] ?? '').join(' ')}`,
      source: { type: 'scifact', id: r[docCol] ?? '' },
    })),
  });
  const docOf = new Map<string, string[]>();
  for (const [i, r] of results.entries()) docOf.set(r.id, [...(docOf.get(r.id) ?? []), docs[i]?.[docCol] ?? '']);
  for (const split of asked) {
    const scores: QuestionScores[] = [];
    for (const { text, gold } of splits[split]) {
      // recall() returns at most 50; Recall@100 is therefore reported as Recall@50.
      const { results: hits } = await engine.recall({ agentId: 'scifact', query: text, limit: 50 });
      scores.push(
        scoreRanking(
          hits.map((h) => docOf.get(h.id) ?? []),
          gold,
        ),
      );
    }
    perQuery.set(`${mode} ${split}`, scores);
    console.log(
      `${mode.padEnd(9)} ${split.padEnd(5)}  ${String(scores.length).padEnd(4)}  ${fmtCi(meanWithInterval(scores.map((s) => s.ndcg10)))}  ${fmtCi(meanWithInterval(scores.map((s) => s.recall100)))}  ${meanWithInterval(scores.map((s) => s.mrr)).mean.toFixed(3)}`,
    );
  }
  await engine.close();
}
for (const split of asked) {
  const a = perQuery.get(`hybrid ${split}`);
  const b = perQuery.get(`lexical ${split}`);
  if (a && b)
    console.log(
      `paired bootstrap, hybrid − lexical, ${split}: nDCG@10 ${fmtCi(
        pairedDifference(
          a.map((s) => s.ndcg10),
          b.map((s) => s.ndcg10),
        ),
      )}`,
    );
}
