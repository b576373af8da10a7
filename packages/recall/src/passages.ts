import type { RecallContext, RecallRun } from './recall-context.js';
import { clamp01 } from './shaping.js';

/** Sentence ends: split after . ! ? followed by space. */
const SENTENCE_END = /(?<=[.!?])\s+/;

/** `text` cut at sentence ends into passages of about `chars` characters (a long sentence stays whole). */
export function passagesOf(text: string, chars: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const sentence of text.split(SENTENCE_END)) {
    if (current && current.length + sentence.length > chars) {
      out.push(current);
      current = '';
    }
    current = current ? `${current} ${sentence}` : sentence;
  }
  if (current) out.push(current);
  return out;
}

/**
 * Long memories scored by their best passage: one mean vector per long text is nearly the same for
 * every text. The `maxCandidates` long candidates with the most evidence so far have their
 * passages embedded at query time, and their semantic evidence becomes the best of the stored
 * cosine and the passages' cosines. Off at 0. A failure leaves the stored cosines.
 */
export async function scorePassages(ctx: RecallContext, run: RecallRun, vector: Float32Array): Promise<void> {
  const { maxCandidates, chars } = ctx.config.recall.passages;
  const { embedder } = ctx;
  if (maxCandidates <= 0 || !embedder) return;
  const long = [...run.candidates.values()]
    .filter((c) => c.row !== undefined && c.row.content.length > chars * 1.5)
    .sort(
      (a, b) =>
        (b.evidence.lexical ?? 0) + (b.evidence.semantic ?? 0) - (a.evidence.lexical ?? 0) - (a.evidence.semantic ?? 0),
    )
    .slice(0, maxCandidates);
  if (long.length === 0) return;
  const texts: string[] = [];
  const owner: number[] = [];
  long.forEach((c, i) => {
    for (const p of passagesOf(c.row?.content ?? '', chars)) {
      texts.push(p);
      owner.push(i);
    }
  });
  let vectors: Float32Array[];
  try {
    vectors = await embedder.embed(texts, { purpose: 'index' });
  } catch (error) {
    run.warnings.push(`passages: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  const best = new Float64Array(long.length).fill(-1);
  vectors.forEach((v, k) => {
    let dot = 0;
    let norm = 0;
    for (let j = 0; j < Math.min(v.length, vector.length); j++) {
      const x = v[j] as number;
      dot += x * (vector[j] as number);
      norm += x * x;
    }
    const i = owner[k] as number;
    if (norm > 0) best[i] = Math.max(best[i] as number, dot / Math.sqrt(norm));
  });
  long.forEach((c, i) => {
    const b = best[i] as number;
    if (b > (c.evidence.semantic ?? 0)) c.evidence.semantic = clamp01(b);
  });
}
