import {
  findLinkedNotesProgram,
  findNotesByIdProgram,
  type NoteRow,
  nearestNoteVectorsProgram,
  noteVectorCosinesProgram,
  type Program,
  rankNotesByTextProgram,
} from '@memory/store';
import { tiedRanks } from './gather.js';
import type { RecallContext, RecallRun } from './recall-context.js';
import { readStage, sqliteStoreOf, stageProgram } from './recall-context.js';
import { type Adjustments, type ChannelEvidence, clamp01, dampen, fuseScore } from './shaping.js';
import type { NoteRecallResult } from './types.js';

interface NoteCandidate {
  readonly row: NoteRow;
  readonly evidence: ChannelEvidence;
  linkedBy?: Array<{ type: string; refId: string }>;
}

/** Notes a recall may return: not archived, and the request's filters that notes have (tags, times, window). */
function eligible(run: RecallRun, row: NoteRow): boolean {
  const f = run.filters;
  // Filters on what only memories have (type, project, who, pinned, importance) match no note.
  if (f.types || f.project !== undefined || f.who !== undefined || f.pinned !== undefined) return false;
  if (f.importanceMin !== undefined) return false;
  if (row.status === 'archived') return false;
  if (f.since !== undefined && row.created_at < f.since) return false;
  if (f.until !== undefined && row.created_at >= f.until) return false;
  // The window is about currency: a note counts as current when it was last updated inside it.
  if (f.windowStart !== undefined && row.updated_at < f.windowStart) return false;
  if (f.tags && f.tags.length > 0) {
    const tags = parseStrings(row.tags);
    if (!f.tags.every((t) => tags.includes(t))) return false;
  }
  return true;
}

function parseStrings(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The agent's notes for this recall, from its own rows only: its scoped BM25 over note titles and
 * contents, an exact scan of its note vectors, and the host references the request passed.
 */
function* gatherNotes(
  ctx: RecallContext,
  run: RecallRun,
  vector: Float32Array | undefined,
  vectorAvailable: boolean,
): Program<Map<string, NoteCandidate>> {
  const { agentId } = run.request;
  const candidates = new Map<string, NoteCandidate>();
  const take = (row: NoteRow): NoteCandidate | undefined => {
    let c = candidates.get(row.id);
    if (!c && eligible(run, row)) {
      c = { row, evidence: {} };
      candidates.set(row.id, c);
    }
    return c;
  };
  const pool = Math.max(50, run.limit * 5);
  const ranked = yield* stageProgram(
    run,
    'notes',
    () => rankNotesByTextProgram(agentId, run.query.plan.tokens, pool, (row) => eligible(run, row)),
    [],
  );
  // Normalized by the best note this recall can return (an archived note's score must not set the scale).
  const best = ranked[0]?.score ?? 0;
  const lexicalRanks = tiedRanks(ranked.map((r) => r.score));
  ranked.forEach(({ row, score }, i) => {
    const c = take(row);
    if (!c) return;
    c.evidence.lexical = best > 0 ? clamp01(score / best) : 0;
    c.evidence.ranks = { lexical: lexicalRanks[i] ?? i + 1 };
    c.evidence.anchored = true;
  });
  const refs = run.request.linkedEntities ?? [];
  if (refs.length > 0) {
    const links = yield* stageProgram(
      run,
      'notes',
      () => findLinkedNotesProgram(agentId, refs, ctx.config.recall.linkedCandidates),
      [],
    );
    const linkedIds = [...new Set(links.map((l) => l.noteId))];
    const rows = yield* stageProgram(run, 'notes', () => findNotesByIdProgram(agentId, linkedIds), []);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const link of links) {
      const row = byId.get(link.noteId);
      const c = row ? take(row) : undefined;
      if (!c) continue;
      c.evidence.linked = 1;
      c.linkedBy ??= [];
      if (!c.linkedBy.some((l) => l.type === link.refType && l.refId === link.refId))
        c.linkedBy.push({ type: link.refType, refId: link.refId });
    }
  }
  if (vector && ctx.embedder) {
    const q = { agentId, model: ctx.embedder.model, query: vector, vectorAvailable };
    // The nearest pool (as recall's semantic pool) become candidates; text and link matches get their cosine too.
    const near = yield* stageProgram(run, 'notes', () => nearestNoteVectorsProgram(q, pool), []);
    const ranks = tiedRanks(near.map((h) => h.cosine));
    const unseen = near.filter((h) => !candidates.has(h.noteId)).map((h) => h.noteId);
    const nearIds = new Set(near.map((h) => h.noteId));
    const unscored = [...candidates.keys()].filter((id) => !nearIds.has(id));
    for (const row of yield* stageProgram(run, 'notes', () => findNotesByIdProgram(agentId, unseen), [])) take(row);
    near.forEach((hit, i) => {
      const c = candidates.get(hit.noteId);
      if (!c) return;
      c.evidence.semantic = clamp01(hit.cosine);
      c.evidence.ranks = { ...c.evidence.ranks, semantic: ranks[i] ?? i + 1 };
      c.evidence.anchored = true;
    });
    for (const hit of yield* stageProgram(run, 'notes', () => noteVectorCosinesProgram(q, unscored), [])) {
      const c = candidates.get(hit.noteId);
      if (c) c.evidence.semantic = clamp01(hit.cosine);
    }
  }
  return candidates;
}

/** A ranked note and the sort key it ranks by. */
export interface RankedNote {
  readonly result: NoteRecallResult;
  /** The unclamped final score (as memories' `raw`). */
  readonly raw: number;
}

/**
 * Notes for a recall that asked for them, ranked like memories: the same fusion (weighted or rrf),
 * the same floor on the fused score (linked notes are kept whatever it is), the same dampening and
 * recency boost (from the note's last update). The top `limit`, best first.
 */
export async function rankNotes(
  ctx: RecallContext,
  run: RecallRun,
  vector: Float32Array | undefined,
): Promise<RankedNote[]> {
  const { config } = ctx;
  // sqlite-vec's note index on SQLite; on PostgreSQL note vectors are compared exactly in JavaScript.
  const vectorAvailable = sqliteStoreOf(ctx.store)?.vector.available ?? false;
  const candidates = await readStage(
    ctx,
    run,
    'notes',
    () => gatherNotes(ctx, run, vector, vectorAvailable),
    new Map(),
  );
  const scored: Array<{ c: NoteCandidate; raw: number; score: number; fused: number; adjustments: Adjustments }> = [];
  for (const c of candidates.values()) {
    const e = c.evidence;
    const fused = fuseScore(e, {
      recall: config.recall,
      traversal: config.traversal,
      semanticRan: vector !== undefined,
    });
    if (fused < config.recall.minScore && e.linked === undefined) continue;
    const text = `${c.row.title}\n${c.row.content}`;
    const { score, raw, adjustments } = dampen(
      fused,
      { content: text, type: 'note', createdAt: c.row.updated_at, semantic: e.semantic, entityDegrees: [] },
      { queryTokens: run.query.plan.tokens, now: run.now },
      config.recall,
    );
    scored.push({ c, raw, score, fused, adjustments });
  }
  scored.sort((a, b) => b.raw - a.raw || b.c.row.updated_at - a.c.row.updated_at || a.c.row.seq - b.c.row.seq);
  const explain = run.request.explain === true;
  return scored
    .slice(0, run.limit)
    .map((s) => ({ raw: s.raw, result: toNoteResult(s.c, s.score, s.fused, s.adjustments, explain) }));
}

function toNoteResult(
  c: NoteCandidate,
  score: number,
  fused: number,
  adjustments: Adjustments,
  explain: boolean,
): NoteRecallResult {
  const e = c.evidence;
  const links = (() => {
    try {
      const value: unknown = JSON.parse(c.row.linked_entities);
      return Array.isArray(value) ? (value as NoteRecallResult['linkedEntities']) : [];
    } catch {
      return [];
    }
  })();
  return {
    kind: 'note',
    id: c.row.id,
    title: c.row.title,
    content: c.row.content,
    status: c.row.status === 'resolved' ? 'resolved' : 'active',
    score,
    tier: e.linked !== undefined ? 'linked' : 'related',
    channels: {
      ...(e.lexical !== undefined ? { lexical: e.lexical } : {}),
      ...(e.semantic !== undefined ? { semantic: e.semantic } : {}),
      ...(e.linked !== undefined ? { linked: e.linked } : {}),
    },
    tags: parseStrings(c.row.tags),
    linkedEntities: links,
    createdAt: c.row.created_at,
    updatedAt: c.row.updated_at,
    ...(explain
      ? {
          explanation: {
            fused,
            adjustments,
            anchored: e.anchored === true,
            ...(c.linkedBy ? { linkedBy: c.linkedBy } : {}),
          },
        }
      : {}),
  };
}
