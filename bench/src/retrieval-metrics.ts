import { createSeededRandom } from '@memory/core';

/** Per-question retrieval metrics over a ranked list of item ids and a gold set. */
export interface QuestionScores {
  readonly recall5: number;
  readonly recall10: number;
  readonly hit10: number;
  readonly mrr: number;
  readonly ndcg10: number;
  readonly recall100: number;
}

export function scoreRanking(ranked: readonly (readonly string[])[], gold: ReadonlySet<string>): QuestionScores {
  // `ranked` is a list of results, each standing for one or more gold-comparable ids.
  const seen = new Set<string>();
  const recallAt = (k: number): number => {
    const found = new Set<string>();
    for (const ids of ranked.slice(0, k)) for (const id of ids) if (gold.has(id)) found.add(id);
    return found.size / gold.size;
  };
  let mrr = 0;
  let dcg = 0;
  for (const [i, ids] of ranked.entries()) {
    const relevant = ids.some((id) => gold.has(id) && !seen.has(id));
    for (const id of ids) seen.add(id);
    if (relevant && mrr === 0 && i < 50) mrr = 1 / (i + 1);
    if (relevant && i < 10) dcg += 1 / Math.log2(i + 2);
  }
  let idcg = 0;
  for (let i = 0; i < Math.min(10, gold.size); i++) idcg += 1 / Math.log2(i + 2);
  return {
    recall5: recallAt(5),
    recall10: recallAt(10),
    hit10: recallAt(10) > 0 ? 1 : 0,
    mrr,
    ndcg10: idcg > 0 ? dcg / idcg : 0,
    recall100: recallAt(100),
  };
}

/** Mean and a bootstrap 95% interval (1,000 resamples of questions, seeded). */
export function meanWithInterval(values: readonly number[], seed = 7): { mean: number; low: number; high: number } {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / Math.max(1, n);
  const random = createSeededRandom(seed);
  const means: number[] = [];
  for (let r = 0; r < 1000; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.floor(random.float() * n)] ?? 0;
    means.push(sum / Math.max(1, n));
  }
  means.sort((a, b) => a - b);
  return { mean, low: means[24] ?? mean, high: means[974] ?? mean };
}

export const fmtCi = (m: { mean: number; low: number; high: number }): string =>
  `${m.mean.toFixed(3)} [${m.low.toFixed(3)}, ${m.high.toFixed(3)}]`;

/** Paired bootstrap of mean(a − b) over the same questions: the difference and its 95% interval. */
export function pairedDifference(
  a: readonly number[],
  b: readonly number[],
  seed = 11,
): { mean: number; low: number; high: number } {
  if (a.length !== b.length) throw new Error('paired samples must have the same length');
  return meanWithInterval(
    a.map((x, i) => x - (b[i] ?? 0)),
    seed,
  );
}
