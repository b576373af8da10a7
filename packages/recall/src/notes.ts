import {
  findLinkedNotes,
  findNotesById,
  findNotesBySeq,
  type NoteRow,
  noteVectors,
  rankNotesByText,
  type SqlExecutor,
} from '@memory/store';
import { tiedRanks } from './gather.js';
import type { RecallContext, RecallRun } from './recall-context.js';
import { stage } from './recall-context.js';
import { type ChannelEvidence, clamp01, dampen, fuseScore } from './shaping.js';
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

function cosine(query: Float32Array, v: Float32Array): number {
  const n = Math.min(query.length, v.length);
  let dot = 0;
  let norm = 0;
  for (let i = 0; i < n; i++) {
    dot += (query[i] as number) * (v[i] as number);
    norm += (v[i] as number) * (v[i] as number);
  }
  return norm === 0 ? 0 : dot / Math.sqrt(norm);
}

/**
 * The agent's notes for this recall, from its own rows only: its scoped BM25 over note titles and
 * contents, an exact scan of its note vectors, and the host references the request passed.
 */
function gatherNotes(ctx: RecallContext, run: RecallRun, sql: SqlExecutor, vector: Float32Array | undefined) {
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
  const ranked = stage(
    run,
    'notes',
    () => rankNotesByText(sql, agentId, run.query.plan.tokens, Number.MAX_SAFE_INTEGER),
    [],
  );
  const lexicalRanks = tiedRanks(ranked.map((r) => r.score));
  const lexical = new Map(ranked.map((r, i) => [r.row, { score: r.score, rank: lexicalRanks[i] }]));
  const matched: NoteCandidate[] = [];
  for (const row of stage(run, 'notes', () => findNotesBySeq(sql, agentId, [...lexical.keys()]), [])) {
    const c = take(row);
    if (c) matched.push(c);
  }
  // Normalized by the best note this recall can return (an archived note's score must not set the scale).
  const best = matched.reduce((m, c) => Math.max(m, lexical.get(c.row.seq)?.score ?? 0), 0);
  for (const c of matched) {
    const hit = lexical.get(c.row.seq);
    if (!hit) continue;
    c.evidence.lexical = best > 0 ? clamp01(hit.score / best) : 0;
    c.evidence.ranks = { lexical: hit.rank ?? 1 };
    c.evidence.anchored = true;
  }
  if (vector && ctx.embedder) {
    const model = ctx.embedder.model;
    const cosines = stage(run, 'notes', () => noteVectors(sql, agentId, model), []).map((v) => ({
      id: v.noteId,
      cosine: clamp01(cosine(vector, v.vector)),
    }));
    cosines.sort((a, b) => b.cosine - a.cosine);
    const ranks = tiedRanks(cosines.map((c) => c.cosine));
    const unseen = cosines.filter((c) => !candidates.has(c.id)).map((c) => c.id);
    for (const row of stage(run, 'notes', () => findNotesById(sql, agentId, unseen), [])) take(row);
    cosines.forEach((hit, i) => {
      const c = candidates.get(hit.id);
      if (!c) return;
      c.evidence.semantic = hit.cosine;
      c.evidence.ranks = { ...c.evidence.ranks, semantic: ranks[i] ?? i + 1 };
      c.evidence.anchored = true;
    });
  }
  const refs = run.request.linkedEntities ?? [];
  if (refs.length > 0) {
    const links = stage(
      run,
      'notes',
      () => findLinkedNotes(sql, agentId, refs, ctx.config.recall.linkedCandidates),
      [],
    );
    const rows = stage(run, 'notes', () => findNotesById(sql, agentId, [...new Set(links.map((l) => l.noteId))]), []);
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
export function rankNotes(ctx: RecallContext, run: RecallRun, vector: Float32Array | undefined): RankedNote[] {
  const { config } = ctx;
  const candidates = ctx.store.read((sql) => gatherNotes(ctx, run, sql, vector));
  const out: RankedNote[] = [];
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
    out.push({ raw, result: toNoteResult(c, score, fused, adjustments, run.request.explain === true) });
  }
  out.sort((a, b) => b.raw - a.raw || b.result.updatedAt - a.result.updatedAt || (a.result.id < b.result.id ? -1 : 1));
  return out.slice(0, run.limit);
}

function toNoteResult(
  c: NoteCandidate,
  score: number,
  fused: number,
  adjustments: ReturnType<typeof dampen>['adjustments'],
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
