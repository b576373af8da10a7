// SciFact calibration of the lexical channel: one scope holding the 5,183 abstracts, the 300 dev
// claims as queries, relevance = cited_doc_ids. A correct BM25 lands at nDCG@10 0.665–0.68.
//   npm run bench:scifact
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createMemoryEngine } from '@memory/engine';
import { parseCsv } from './csv.js';
import { fmtCi, meanWithInterval, scoreRanking } from './retrieval-metrics.js';

const { values } = parseArgs({
  allowPositionals: true,
  options: { data: { type: 'string', default: join(import.meta.dirname, '..', '..', '..', 'shared', 'data') } },
});
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

const engine = await createMemoryEngine({
  database: { path: ':memory:' },
  config: { limits: { maxContentBytes: 1024 * 1024 } },
});
const docs = corpusRows.filter((r) => r.length > abstractCol && r[docCol]);
const results = await engine.rememberMany({
  agentId: 'scifact',
  memories: docs.map((r) => ({
    content: `${r[titleCol]} ${sentences(r[abstractCol] ?? '').join(' ')}`,
    source: { type: 'scifact', id: r[docCol] ?? '' },
  })),
});
const docOf = new Map<string, string[]>();
for (const [i, r] of results.entries()) docOf.set(r.id, [...(docOf.get(r.id) ?? []), docs[i]?.[docCol] ?? '']);

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
console.log(`SciFact (${docs.length} abstracts, ${scores.length} claims), lexical channel`);
console.log(
  `nDCG@10 ${fmtCi(meanWithInterval(scores.map((s) => s.ndcg10)))}   Recall@50 ${fmtCi(meanWithInterval(scores.map((s) => s.recall100)))}   MRR ${meanWithInterval(scores.map((s) => s.mrr)).mean.toFixed(3)}`,
);
