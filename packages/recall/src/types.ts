import type { MemoryId } from '@memory/core';
import type { MemoryType } from '@memory/store';
import type { VectorCompleteness, VectorSearchReport } from './channels/semantic.js';
import type { SessionExcerpt } from './expand.js';
import type { LexicalPlan } from './query.js';
import type { Adjustments } from './shaping.js';

/** Per-channel scores in 0..1; a channel that did not find the memory is absent. */
export interface ChannelScores {
  readonly lexical?: number;
  readonly semantic?: number;
  readonly hint?: number;
  readonly traversal?: number;
  readonly linked?: number;
}

/** Why a result scored what it did (`explain: true`). */
export interface RecallExplanation {
  /** Score after fusion and caps, before dampening. */
  readonly fused: number;
  /** Multipliers (gravity, hub, resolution, currentness) and additions (recency, graph boost) applied after fusion. */
  readonly adjustments: Adjustments & { graphBoost?: number };
  /** Found by the lexical or semantic channel (anchored in the query's text or meaning). */
  readonly anchored: boolean;
  /** Graph path: the entity it was reached from and the hop count. */
  readonly path?: { readonly entityId: string; readonly hops: number; readonly claimId?: string };
  /** Host references that linked it. */
  readonly linkedBy?: ReadonlyArray<{ readonly type: string; readonly refId: string }>;
}

export interface RecallResult {
  /** What the result is: a durable memory (notes are {@link NoteRecallResult}). */
  readonly kind: 'memory';
  readonly id: MemoryId;
  readonly content: string;
  readonly type: MemoryType;
  /** 0..1, higher is better; results are sorted by it. */
  readonly score: number;
  /** `linked`: reached structurally — a host reference or the knowledge graph (verified); `related`: found by text or meaning (a hypothesis). */
  readonly tier: 'linked' | 'related';
  readonly channels: ChannelScores;
  readonly tags: readonly string[];
  readonly project: string | null;
  readonly who: string | null;
  readonly importance: number;
  readonly pinned: boolean;
  readonly createdAt: number;
  /** Where the memory came from (`{ type: 'transcript', id: sessionKey }` for a session). */
  readonly source?: { readonly type: string; readonly id: string };
  /** Knowledge-graph entities the memory mentions. */
  readonly entities?: ReadonlyArray<{ readonly id: string; readonly name: string }>;
  readonly explanation?: RecallExplanation;
}

/**
 * A working note in a recall that asked for notes (`include: ['notes']`): scored by the same fusion
 * and recency as memories (lexical and semantic evidence, host links), tiered the same way.
 */
export interface NoteRecallResult {
  readonly kind: 'note';
  readonly id: string;
  readonly title: string;
  readonly content: string;
  /** Recall includes active and resolved notes (archived ones are history, not context). */
  readonly status: 'active' | 'resolved';
  /** 0..1, on the memories' scale; results are sorted by it. */
  readonly score: number;
  /** `linked`: linked to a host reference given in the query; `related`: found by text or meaning. */
  readonly tier: 'linked' | 'related';
  readonly channels: Pick<ChannelScores, 'lexical' | 'semantic' | 'linked'>;
  readonly tags: readonly string[];
  readonly linkedEntities: ReadonlyArray<{ readonly type: string; readonly refId: string; readonly label?: string }>;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly explanation?: RecallExplanation;
}

/** What a recall can return: memories, and notes when asked for. */
export type RecallItem = RecallResult | NoteRecallResult;

/** What `include` can ask for. */
export type RecallKind = 'memories' | 'notes';

/**
 * The result type a recall input asks for: {@link RecallItem} when its `include` names notes (pass
 * it literally: `include: ['memories', 'notes']`), else {@link RecallResult} (memories).
 */
export type RecallResultsOf<I> = I extends { readonly include: ReadonlyArray<infer K> }
  ? 'notes' extends K
    ? RecallItem
    : RecallResult
  : RecallResult;

/** A next step the caller (or its agent) can take to see more. */
export type DrillDown =
  | { readonly kind: 'expand_session'; readonly sessionKey: string; readonly reason: string }
  | { readonly kind: 'open_entity'; readonly entityId: string; readonly name: string; readonly reason: string }
  | { readonly kind: 'narrower_query'; readonly query: string; readonly reason: string }
  | {
      readonly kind: 'widen_window';
      /** Recall again with this `windowDays` (null: no window) to include the memories the window left out. */
      readonly windowDays: null;
      readonly excluded: number;
      readonly reason: string;
    };

/** The search window a recall applied, and what it left out. */
export interface RecallWindow {
  /** Memories created before this were searched only when pinned; null when no window applied. */
  readonly since: number | null;
  /** The window's length in days (null: none). */
  readonly days: number | null;
  /** The query time the window ends at (the request's `now`, or the engine clock's). */
  readonly now: number;
  /**
   * Memories matching the query (by text, or offered by the semantic channel above the score floor)
   * that the window left out, counted up to {@link WINDOW_EXCLUDED_CAP}. 0 when no window applied.
   */
  readonly excluded: number;
}

/** `window.excluded` counts at most this many. */
export const WINDOW_EXCLUDED_CAP = 1000;

export interface RecallTimings {
  readonly totalMs: number;
  readonly lexicalMs: number;
  readonly hintsMs: number;
  readonly traversalMs: number;
  readonly linkedMs: number;
  /** Waiting for the query embedding after the other channels finished. */
  readonly embedWaitMs: number;
  readonly semanticMs: number;
  readonly fusionMs: number;
  readonly expandMs: number;
}

/** A recall's answer; `R` is {@link RecallItem} when the request's `include` asked for notes. */
export interface RecallResponse<R extends RecallItem = RecallResult> {
  readonly results: readonly R[];
  /** How the query text was searched. */
  readonly query: LexicalPlan;
  /** How much of the agent's vectors the semantic channel searched. */
  readonly vectorCompleteness: VectorCompleteness;
  /** With `recent-window`: how many of the newest vectors were searched. */
  readonly searchedWindow?: number;
  /**
   * With `approximate`: the vector index's neighbour recall@10 (the share of the exact ten nearest
   * vectors it finds), measured on sample queries when the agent's index partition was built.
   */
  readonly vectorRecall?: number;
  /** With `explain: true`: how the semantic channel searched (layout, vectors compared, candidate pool). */
  readonly vectorSearch?: VectorSearchReport;
  /** The search window applied (created_at ≥ since), and how many matches it left out. */
  readonly window: RecallWindow;
  readonly drillDown: readonly DrillDown[];
  /** Transcript excerpts, with `expand: true`. */
  readonly expansions?: readonly SessionExcerpt[];
  /** Stages that failed and were skipped (recall itself never fails for them). */
  readonly warnings: readonly string[];
  /** Milliseconds per stage. */
  readonly timings: RecallTimings;
}
