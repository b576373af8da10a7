import { performance } from 'node:perf_hooks';
import {
  claimCurrentnessProgram,
  type EntityMatch,
  entitiesOfMemoriesProgram,
  entityDegreePercentileProgram,
  findLinkedMemoriesProgram,
  memoryVectorsProgram,
  type Program,
  readMemoryCandidatesProgram,
  resolveLinkLabelsProgram,
} from '@memory/store';
import { cosineWithBlob } from './channels/context.js';
import { hintsChannel } from './channels/hints.js';
import { lexicalChannel } from './channels/lexical.js';
import { refineLexical } from './channels/lexical-refine.js';
import { type SemanticOutcome, semanticChannel, type VectorCoverage, vectorCoverage } from './channels/semantic.js';
import { entityNameCandidates, resolveFocalEntities, traversalChannel } from './channels/traversal.js';
import {
  candidateFor,
  channelContext,
  type RecallContext,
  type RecallRun,
  readStage,
  stageProgram,
} from './recall-context.js';
import { clamp01 } from './shaping.js';
import { matchesOutsideWindow } from './window.js';

/** Host references a query may name by label. */
const MAX_NAMED_REFS = 16;

/** Candidates per flat channel: five per result asked for, at least 50, at most the configured cap. */
const poolSize = (cap: number, limit: number): number => Math.min(cap, Math.max(50, limit * 5));

/**
 * The channels that need no query vector — lexical, hints, traversal and host links — as one read
 * program (one snapshot). Returns the focal entities the query names (ranking boosts them when
 * traversal is off).
 */
export function* gatherFlatChannels(ctx: RecallContext, run: RecallRun): Program<EntityMatch[]> {
  const { config } = ctx;
  const { request, times } = run;
  const channels = config.recall.channels;
  const cc = channelContext(ctx, run);

  let mark = performance.now();
  const hits = channels.lexical
    ? yield* stageProgram(
        run,
        'lexical',
        () => lexicalChannel(cc, poolSize(config.recall.lexicalCandidates, run.limit)),
        [],
      )
    : [];
  const plain = () => hits.map((row) => ({ row, score: -row.bm25 }));
  const lexical = yield* stageProgram(run, 'lexical', () => refineLexical(cc, hits, request.query), plain());
  const bestLexical = Math.max(0, ...lexical.map((h) => h.score));
  const lexicalRanks = tiedRanks(lexical.map((h) => h.score));
  lexical.forEach((hit, i) => {
    const c = candidateFor(run, hit.row.id);
    c.row = hit.row;
    c.evidence.lexical = bestLexical > 0 ? clamp01(hit.score / bestLexical) : 0;
    c.evidence.ranks = { ...c.evidence.ranks, lexical: lexicalRanks[i] ?? i + 1 };
    c.evidence.anchored = true;
  });
  times.lexical = performance.now() - mark;

  mark = performance.now();
  const hints = channels.hints ? yield* stageProgram(run, 'hints', () => hintsChannel(cc), []) : [];
  const bestHint = Math.max(0, ...hints.map((h) => -h.bm25));
  const hintRanks = tiedRanks(hints.map((h) => -h.bm25));
  hints.forEach((hit, i) => {
    const c = candidateFor(run, hit.memoryId);
    c.evidence.hint = bestHint > 0 ? clamp01(-hit.bm25 / bestHint) : 0;
    c.evidence.ranks = { ...c.evidence.ranks, hint: hintRanks[i] ?? i + 1 };
  });
  times.hints = performance.now() - mark;

  mark = performance.now();
  // Entity names and host-reference labels the query may name: runs of its words, computed once.
  const names = entityNameCandidates(run.query.words);
  const focal = yield* stageProgram(run, 'traversal', () => resolveFocalEntities(cc, names), []);
  if (config.traversal.enabled && focal.length > 0) {
    const budget = Math.floor(config.traversal.candidateBudget * (1 - config.traversal.flatReserve));
    const outcome = yield* stageProgram(
      run,
      'traversal',
      () => traversalChannel(cc, focal, budget, request.asOf ?? run.now),
      undefined,
    );
    for (const [memoryId, path] of outcome?.memories ?? []) candidateFor(run, memoryId).path = path;
    if (outcome?.truncated)
      run.warnings.push('traversal: stopped at a bound (entities, claims or time); results are partial');
  }
  times.traversal = performance.now() - mark;

  mark = performance.now();
  yield* gatherLinked(ctx, run, names);
  times.linked = performance.now() - mark;
  return focal;
}

/** Memories linked to the host references passed in, plus those the query names by their label (read-only). */
function* gatherLinked(ctx: RecallContext, run: RecallRun, names: readonly string[]): Program<void> {
  const { agentId } = run.request;
  const named = yield* stageProgram(run, 'linked', () => resolveLinkLabelsProgram(agentId, names, MAX_NAMED_REFS), []);
  const refs = [...(run.request.linkedEntities ?? []), ...named];
  if (refs.length === 0) return;
  const links = yield* stageProgram(
    run,
    'linked',
    () => findLinkedMemoriesProgram(agentId, refs, ctx.config.recall.linkedCandidates),
    [],
  );
  for (const link of links) {
    const c = candidateFor(run, link.memoryId);
    c.evidence.linked = 1;
    c.linkedBy ??= [];
    if (!c.linkedBy.some((l) => l.type === link.refType && l.refId === link.refId))
      c.linkedBy.push({ type: link.refType, refId: link.refId });
  }
}

/**
 * Nearest memories to the query vector, added to the candidates with their cosine. Its own reads
 * (a large ivf partition is searched in slices between event-loop turns); a failure becomes a
 * warning and no semantic evidence.
 */
export async function gatherSemantic(
  ctx: RecallContext,
  run: RecallRun,
  vector: Float32Array | undefined,
): Promise<SemanticOutcome> {
  const none: SemanticOutcome = { hits: [], completeness: 'none' };
  const { embedder } = ctx;
  if (!vector || !embedder) return none;
  const pool = poolSize(ctx.config.recall.semanticCandidates, run.limit);
  let semantic: SemanticOutcome;
  try {
    semantic = await semanticChannel(
      ctx.store,
      { agentId: run.request.agentId, config: ctx.config },
      vector,
      embedder.model,
      pool,
    );
  } catch (error) {
    run.warnings.push(`semantic: ${error instanceof Error ? error.message : String(error)}`);
    return none;
  }
  const coverage = await readStage<VectorCoverage | undefined>(
    ctx,
    run,
    'semantic',
    () => vectorCoverage(run.request.agentId, embedder.model),
    undefined,
  );
  if (coverage)
    semantic = {
      ...semantic,
      coverage,
      ...(coverage.embedded < coverage.total ? { completeness: 'partial' as const } : {}),
    };
  const semanticRanks = tiedRanks(semantic.hits.map((h) => h.cosine));
  semantic.hits.forEach((hit, i) => {
    const c = candidateFor(run, hit.memoryId);
    c.evidence.semantic = clamp01(hit.cosine);
    c.evidence.ranks = { ...c.evidence.ranks, semantic: semanticRanks[i] ?? i + 1 };
    c.evidence.anchored = true;
  });
  return semantic;
}

/**
 * 1-based ranks of scores listed best first, equal scores sharing the better rank: the order of a
 * tie comes from random ids, so rank fusion must not see it.
 */
export function tiedRanks(scores: readonly number[]): number[] {
  const ranks: number[] = [];
  scores.forEach((score, i) => {
    ranks.push(i > 0 && score === scores[i - 1] ? (ranks[i - 1] as number) : i + 1);
  });
  return ranks;
}

/** What ranking needs to know about the candidates besides their channel evidence. */
export interface CandidateFacts {
  readonly entitiesOf: ReadonlyMap<string, Array<{ id: string; name: string; degree: number }>>;
  readonly hubThreshold: number | undefined;
  /** Memories whose claims were all superseded. */
  readonly superseded: ReadonlySet<string>;
  /** Matches the search window left out (see {@link matchesOutsideWindow}). */
  readonly outsideWindow: number;
}

/**
 * Rows for candidates other channels found, with scope and filters applied here, so anything that
 * does not pass (another agent's id, a deleted memory, a filter) is dropped; then the cosine of
 * candidates the semantic channel did not score, their entities, the hub threshold and currentness.
 */
export function* completeCandidates(
  ctx: RecallContext,
  run: RecallRun,
  vector: Float32Array | undefined,
): Program<CandidateFacts> {
  const { config, embedder } = ctx;
  const { agentId } = run.request;
  const { candidates } = run;
  const missing = [...candidates.values()].filter((c) => !c.row).map((c) => c.id);
  const rows = yield* stageProgram(
    run,
    'candidates',
    () => readMemoryCandidatesProgram(agentId, missing, run.filters, run.now),
    [],
  );
  for (const row of rows) {
    const c = candidates.get(row.id);
    if (c) c.row = row;
  }
  const dropped: Array<{ id: string; cosine: number }> = [];
  for (const [id, c] of candidates) {
    if (c.row) continue;
    if (c.evidence.semantic !== undefined) dropped.push({ id, cosine: c.evidence.semantic });
    candidates.delete(id);
  }
  const outsideWindow = (yield* matchesOutsideWindow(ctx, run, dropped)).size;
  if (vector && embedder) {
    const unscored = [...candidates.values()].filter((c) => c.evidence.semantic === undefined).map((c) => c.id);
    const vectors = yield* stageProgram(
      run,
      'semantic',
      () => memoryVectorsProgram(agentId, embedder.model, unscored),
      [],
    );
    for (const v of vectors) {
      const c = candidates.get(v.memoryId);
      if (c) c.evidence.semantic = clamp01(cosineWithBlob(vector, v.vector));
    }
  }
  const ids = [...candidates.keys()];
  const entitiesOf = new Map<string, Array<{ id: string; name: string; degree: number }>>();
  for (const e of yield* stageProgram(run, 'entities', () => entitiesOfMemoriesProgram(agentId, ids), [])) {
    const list = entitiesOf.get(e.memoryId) ?? [];
    list.push({ id: e.entityId, name: e.name, degree: e.degree });
    entitiesOf.set(e.memoryId, list);
  }
  let hubThreshold: number | undefined;
  if (entitiesOf.size > 0 && config.recall.dampening.hub) {
    hubThreshold = yield* stageProgram(
      run,
      'hub',
      () => entityDegreePercentileProgram(agentId, config.recall.dampening.hubPercentile),
      undefined,
    );
  }
  const superseded = new Set<string>();
  for (const c of yield* stageProgram(run, 'currentness', () => claimCurrentnessProgram(agentId, ids), [])) {
    if (c.active === 0 && c.superseded > 0) superseded.add(c.memoryId);
  }
  return { entitiesOf, hubThreshold, superseded, outsideWindow };
}
