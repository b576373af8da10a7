// SciFact calibration of the lexical and semantic channels: one scope holding the 5,183 abstracts,
// the 300 dev claims as queries, relevance = cited_doc_ids. A correct BM25 lands at nDCG@10
// 0.665–0.68. The semantic row uses the offline GloVe SIF embedder with the lexical channel off.
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
import { fmtCi, meanWithInterval, scoreRanking } from './retrieval-metrics.js';

const { values } = parseArgs({
  allowPositionals: true,
  options: {
    data: { type: 'string', default: DEFAULT_DATA_DIR },
    modes: { type: 'string', default: 'lexical,semantic' },
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
const [claimHeader, ...claimRows] = parseCsv(readFileSync(join(dir, 'claims_validation.csv'), 'utf8'));
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
type Mode = 'lexical' | 'semantic';
const MODES: Record<Mode, { embed: boolean; config: MemoryConfigInput }> = {
  lexical: { embed: false, config: {} },
  // Gravity dampening exists to demote semantic-only matches; off here so this row measures the channel itself.
  semantic: { embed: true, config: { recall: { channels: { lexical: false }, dampening: { gravity: false } } } },
};
const embedder = createOfflineEmbedder();

for (const mode of values.modes.split(',').filter((m): m is Mode => m in MODES)) {
  const engine = await createMemoryEngine({
    database: { path: ':memory:' },
    ...(MODES[mode].embed ? { embedder } : {}),
    config: { ...MODES[mode].config, limits: { maxContentBytes: 1024 * 1024 } },
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
  const scores = [];
  for (const { text, gold } of claims.values()) {
    if (gold.size === 0) continue;
    // recall() returns at most 50; Recall@100 is therefore reported as Recall@50.
    const { results: hits } = await engine.recall({ agentId: 'scifact', query: text, limit: 50 });
    scores.push(
      scoreRanking(
        hits.map((h) => docOf.get(h.id) ?? []),
        gold,
      ),
    );
  }
  await engine.close();
  console.log(`SciFact (${docs.length} abstracts, ${scores.length} claims), ${mode} channel`);
  console.log(
    `nDCG@10 ${fmtCi(meanWithInterval(scores.map((s) => s.ndcg10)))}   Recall@50 ${fmtCi(meanWithInterval(scores.map((s) => s.recall100)))}   MRR ${meanWithInterval(scores.map((s) => s.mrr)).mean.toFixed(3)}`,
  );
}
