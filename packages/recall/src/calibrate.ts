import { type MemoryConfig, STOP_WORDS } from '@memory/core';
import { termOf } from '@memory/store';
import type { Candidate } from './results.js';

/** Calibrated semantic scores by candidate id, and the semantic-only candidates under the admission margin. */
export interface SemanticCalibration {
  readonly semantic: ReadonlyMap<string, number>;
  readonly drop: ReadonlySet<string>;
}

/**
 * Calibrates the candidates' cosines within the query's candidate pool for fusion (see
 * `recall.calibration`): with `pool`, cosine → (cosine − median) / max(best − median, minSpread),
 * clamped to 0..1; a semantic-only candidate under `admitAbove` is dropped. The evidence itself
 * keeps the cosine (gravity and `explain` read it). `raw` changes nothing.
 */
export function calibrateSemantic(
  candidates: Iterable<Candidate>,
  recall: MemoryConfig['recall'],
): SemanticCalibration {
  const drop = new Set<string>();
  const calibratedOf = new Map<string, number>();
  const out = { semantic: calibratedOf, drop };
  const { semantic, minSpread, admitAbove } = recall.calibration;
  if (semantic === 'raw') return out;
  const scored = [...candidates].filter((c) => c.evidence.semantic !== undefined);
  if (scored.length === 0) return out;
  const cosines = Float64Array.from(scored, (c) => c.evidence.semantic as number).sort();
  const median = cosines[Math.floor((cosines.length - 1) / 2)] as number;
  const best = cosines[cosines.length - 1] as number;
  const spread = Math.max(best - median, minSpread);
  for (const c of scored) {
    const e = c.evidence;
    const calibrated = spread > 0 ? Math.min(1, Math.max(0, ((e.semantic as number) - median) / spread)) : 0;
    calibratedOf.set(c.id, calibrated);
    const semanticOnly = (e.lexical ?? 0) === 0 && (e.hint ?? 0) === 0;
    if (semanticOnly && calibrated < admitAbove && e.linked === undefined && c.path === undefined) drop.add(c.id);
  }
  return out;
}

const TOKEN = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * The share (0..1) of the query's index terms that the best lexical match contains: 1 when it
 * matches them all (or the query has none), so `coverage` changes nothing for a complete match.
 */
export function lexicalCoverage(candidates: Iterable<Candidate>, queryTerms: readonly string[]): number {
  if (queryTerms.length === 0) return 1;
  let best: Candidate | undefined;
  for (const c of candidates)
    if ((c.evidence.lexical ?? 0) > (best?.evidence.lexical ?? 0) && c.row !== undefined) best = c;
  if (!best?.row) return 1;
  const terms = new Set<string>();
  for (const m of best.row.content.normalize('NFKC').toLowerCase().matchAll(TOKEN))
    if (!STOP_WORDS.has(m[0])) terms.add(termOf(m[0]));
  return queryTerms.filter((t) => terms.has(t)).length / queryTerms.length;
}
