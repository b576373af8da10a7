import type { MemoryConfig } from '@memory/core';
import { ftsTokens } from '@memory/store';

/**
 * Pure, deterministic scoring: fusion of channel scores, the caps, post-fusion dampening and the
 * recency boost. Every constant comes from the configuration (`recall.*`, `traversal.*`).
 */

/** Per-channel evidence for one candidate, every score in 0..1. */
export interface ChannelEvidence {
  /** BM25, normalized by the best lexical match of the query. */
  lexical?: number;
  /** Cosine similarity to the query (negative clamped to 0). */
  semantic?: number;
  /** BM25 of the best matching prospective hint, normalized like `lexical`. */
  hint?: number;
  /** 0.7·cosine + 0.3·importance for memories reached through the knowledge graph. */
  traversal?: number;
  /** 1 when the memory is linked to a host reference given in the query. */
  linked?: number;
  /** Ranks (1-based) within each channel, for reciprocal-rank fusion. */
  ranks?: Partial<Record<'lexical' | 'semantic' | 'hint' | 'traversal', number>>;
  /** True when the lexical or semantic channel ranked it (it is anchored in the query's text or meaning). */
  anchored?: boolean;
}

export interface FusionOptions {
  readonly recall: MemoryConfig['recall'];
  readonly traversal: MemoryConfig['traversal'];
  /** Whether the semantic channel ran for this query (a query vector exists). */
  readonly semanticRan: boolean;
}

/** A linked memory scores at least this: it is structurally verified, whatever its text says. */
export const LINKED_FLOOR = 0.5;

/**
 * The fused 0..1 score of one candidate before dampening.
 * - weighted: 0.7·semantic + 0.3·lexical when the memory has a vector, else lexical; a hint
 *   counts as lexical evidence discounted by `hintOnlyCap`, and a hint-only match is capped at it;
 * - rrf: Σ 1/(k + rank) over channels, scaled so rank 1 in every flat channel scores 1;
 * - traversal: max with the flat score; traversal-only without an anchor is capped at `unanchoredCap`;
 * - linked: at least {@link LINKED_FLOOR}.
 */
export function fuseScore(e: ChannelEvidence, o: FusionOptions): number {
  const { recall } = o;
  // A hint is a question the memory may answer: weaker evidence than the memory's own words.
  const lexical = Math.max(e.lexical ?? 0, (e.hint ?? 0) * recall.hintOnlyCap);
  let flat: number;
  if (recall.fusion === 'rrf') {
    const channels = o.semanticRan ? (['lexical', 'semantic', 'hint'] as const) : (['lexical', 'hint'] as const);
    const best = (o.semanticRan ? 2 : 1) / (recall.rrfK + 1);
    let sum = 0;
    for (const channel of channels) {
      const rank = e.ranks?.[channel];
      if (rank !== undefined) sum += 1 / (recall.rrfK + rank);
    }
    flat = Math.min(1, sum / best);
  } else if (o.semanticRan && e.semantic !== undefined) {
    flat = recall.semanticWeight * (e.semantic ?? 0) + recall.lexicalWeight * lexical;
  } else {
    flat = lexical;
  }
  const hintOnly = (e.hint ?? 0) > 0 && !e.anchored && (e.lexical ?? 0) === 0;
  if (hintOnly) flat = Math.min(flat, recall.hintOnlyCap);
  let score = flat;
  if (e.traversal !== undefined) {
    const traversal = e.anchored ? e.traversal : Math.min(e.traversal, o.traversal.unanchoredCap);
    score = Math.max(score, traversal);
  }
  if (e.linked) score = Math.max(score, LINKED_FLOOR);
  return clamp01(score);
}

export function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

/** The inputs dampening looks at for one result. */
export interface DampeningSubject {
  readonly content: string;
  readonly type: string;
  readonly createdAt: number;
  readonly semantic?: number | undefined;
  /** Degrees of the entities the memory mentions (empty when none). */
  readonly entityDegrees: readonly number[];
  /** The memory backs knowledge-graph claims, all of them superseded. */
  readonly superseded?: boolean | undefined;
}

export interface DampeningContext {
  readonly queryTokens: readonly string[];
  /** The agent's P90 entity degree; undefined when it has no entities. */
  readonly hubThreshold?: number | undefined;
  readonly now: number;
}

/** Which corrections applied to a result, as multipliers and additions (for `explain`). */
export interface Adjustments {
  gravity?: number;
  hub?: number;
  resolution?: number;
  currentness?: number;
  recency?: number;
}

const DATE_PATTERN =
  /\b(?:\d{4}-\d{2}-\d{2}|\d{1,2}\/\d{1,2}\/\d{2,4}|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?|\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*|(?:19|20)\d{2})\b/i;

/** True when the text carries a calendar date or a year. */
export function isDated(text: string): boolean {
  return DATE_PATTERN.test(text);
}

/**
 * Two tokens match when equal, or when one is a prefix of the other that is at least 4 letters
 * long or one letter short of it: "paint" ~ "painting", "tea" ~ "teas".
 */
function tokensMatch(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return (short.length >= 4 || long.length === short.length + 1) && long.startsWith(short);
}

/** True when the content shares at least one query token. */
export function sharesQueryTerm(content: string, queryTokens: readonly string[]): boolean {
  if (queryTokens.length === 0) return true;
  const words = new Set(ftsTokens(content));
  for (const q of queryTokens) {
    if (words.has(q)) return true;
    for (const w of words) if (tokensMatch(q, w)) return true;
  }
  return false;
}

/**
 * Post-fusion dampening and recency. Gravity: a result whose cosine is at least `gravityCosine` but
 * shares no query term is multiplied by `gravityFactor` (semantic drift). Hub: a result whose
 * entities are all at or above the P90 degree is multiplied by `hubFactor` (hubs match everything).
 * Resolution: constraints, decisions and dated memories are multiplied by `resolutionFactor`.
 * Currentness: a memory whose claims were all superseded is multiplied by `currentnessFactor`.
 * Recency: + recencyBoost · max(0, 1 − age / recencyDays). `score` is clamped to 0..1; `raw` is
 * not, and ranks results whose boosts took them past 1.
 */
export function dampen(
  score: number,
  s: DampeningSubject,
  c: DampeningContext,
  recall: MemoryConfig['recall'],
): { score: number; raw: number; adjustments: Adjustments } {
  const d = recall.dampening;
  const adjustments: Adjustments = {};
  let out = score;
  if (d.gravity && (s.semantic ?? 0) >= d.gravityCosine && !sharesQueryTerm(s.content, c.queryTokens)) {
    out *= d.gravityFactor;
    adjustments.gravity = d.gravityFactor;
  }
  if (
    d.hub &&
    c.hubThreshold !== undefined &&
    s.entityDegrees.length > 0 &&
    s.entityDegrees.every((deg) => deg >= (c.hubThreshold ?? Infinity))
  ) {
    out *= d.hubFactor;
    adjustments.hub = d.hubFactor;
  }
  if (d.resolution && (s.type === 'constraint' || s.type === 'decision' || isDated(s.content))) {
    out *= d.resolutionFactor;
    adjustments.resolution = d.resolutionFactor;
  }
  if (d.currentness && s.superseded) {
    out *= d.currentnessFactor;
    adjustments.currentness = d.currentnessFactor;
  }
  if (recall.recencyBoost > 0) {
    const ageDays = Math.max(0, c.now - s.createdAt) / 86_400_000;
    const boost = recall.recencyBoost * Math.max(0, 1 - ageDays / recall.recencyDays);
    if (boost > 0) {
      out += boost;
      adjustments.recency = boost;
    }
  }
  return { score: clamp01(out), raw: out, adjustments };
}
