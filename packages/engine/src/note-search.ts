import { contentHash, parseInput, toVector } from '@memory/core';
import {
  findNoteProgram,
  findNotesByIdProgram,
  ftsTokens,
  listNotePageProgram,
  type NoteRow,
  nearestNoteVectorsProgram,
  noteVectorCosinesProgram,
  type Program,
  rankNotesByTextProgram,
  upsertNoteVectorProgram,
} from '@memory/store';
import type { EngineContext } from './context.js';
import { type Note, toNote } from './note-view.js';
import type { NotesContext } from './notes.js';

/** The text a note is embedded and indexed by. */
export const noteText = (row: Pick<NoteRow, 'title' | 'content'>): string => `${row.title}\n${row.content}`;

/** The note's vector, if the embedder gives a usable one (a failure is a warning: the note stays searchable by text). */
async function embedOne(
  ctx: EngineContext,
  text: string,
  purpose: 'index' | 'query',
): Promise<Float32Array | undefined> {
  const embedder = ctx.embedder;
  if (!embedder) return undefined;
  try {
    const output: unknown = await embedder.embed([text], { purpose });
    const vector = Array.isArray(output) ? toVector(output[0], embedder.dimensions) : 'not an array of vectors';
    if (typeof vector !== 'string') return unit(vector);
    ctx.portable.logger.warn('notes: the embedder returned an unusable vector', { reason: vector });
  } catch (error) {
    ctx.portable.logger.warn('notes: embedding failed', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  return undefined;
}

function unit(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  if (sum === 0) return v;
  const n = Math.sqrt(sum);
  return v.map((x) => x / n);
}

/**
 * Embeds a note's title and content (with an embedder) and stores the vector, unless the note
 * changed meanwhile (its newer write embeds its own text). Best-effort: never fails the write.
 */
export async function indexNoteVector(ctx: EngineContext, row: NoteRow): Promise<void> {
  const embedder = ctx.embedder;
  if (!embedder) return;
  const text = noteText(row);
  const vector = await embedOne(ctx, text, 'index');
  if (!vector) return;
  const hash = contentHash(text);
  const { clock } = ctx.portable;
  await ctx.portable.db.write(function* () {
    const current = yield* findNoteProgram(row.agent_id, row.id);
    if (!current || contentHash(noteText(current)) !== hash) return;
    yield* upsertNoteVectorProgram({
      noteId: row.id,
      agentId: row.agent_id,
      model: embedder.model,
      contentHash: hash,
      vector,
      now: clock.now(),
    });
  });
}

/** One search hit. */
export interface NoteSearchHit {
  readonly note: Note;
  /** 0..1: the fused text and vector score (1 for every match of a filter-only search). */
  readonly score: number;
}

/** The evidence for one note, as recall uses it: BM25 normalized by the best match, and cosine. */
export interface NoteEvidence {
  readonly row: NoteRow;
  lexical?: number;
  semantic?: number;
}

/**
 * Text and vector evidence for the agent's notes matching `query`, from the agent's own rows only
 * (its scoped text index, its vectors): another agent's notes cannot enter, crowd out, or move
 * these scores. `keep` filters rows (status) before anything is cut; `linked`, when given, limits
 * text and vectors to those notes. Candidates: the best `pool` by text and the `pool`
 * nearest by vector.
 */
export function noteEvidence(
  ctx: EngineContext,
  agentId: string,
  query: string,
  vector: Float32Array | undefined,
  filter: {
    keep: (row: NoteRow) => boolean;
    /** The entity filter's notes (from the link index): only these are scored. */
    linked?: ReadonlyArray<Pick<NoteRow, 'id' | 'seq'>> | undefined;
    pool: number;
  },
): Promise<NoteEvidence[]> {
  const { keep, linked, pool } = filter;
  const model = ctx.embedder?.model;
  // sqlite-vec exists on SQLite only; PostgreSQL compares the agent's note vectors in JavaScript.
  const vectorAvailable = ctx.dialect === 'sqlite' && ctx.vector.available;
  return ctx.portable.db.read(function* (): Program<NoteEvidence[]> {
    const byId = new Map<string, NoteEvidence>();
    const within = linked?.map((n) => n.seq);
    const ranked = yield* rankNotesByTextProgram(agentId, ftsTokens(query), pool, keep, within);
    // Normalized by the best note the filters keep: a filtered-out note must not set the scale.
    const best = ranked[0]?.score ?? 0;
    for (const { row, score } of ranked) byId.set(row.id, { row, lexical: best > 0 ? score / best : 0 });
    if (vector && model !== undefined) {
      const q = { agentId, model, query: vector, vectorAvailable };
      const near = yield* nearestNoteVectorsProgram(
        q,
        pool,
        linked?.map((n) => n.id),
      );
      const missing = near.filter((h) => !byId.has(h.noteId)).map((h) => h.noteId);
      for (const row of yield* findNotesByIdProgram(agentId, missing)) if (keep(row)) byId.set(row.id, { row });
      // Text matches get their cosine whatever its rank.
      const nearIds = new Set(near.map((h) => h.noteId));
      const unscored = [...byId.keys()].filter((id) => !nearIds.has(id));
      const cosines = new Map(
        [...near, ...(yield* noteVectorCosinesProgram(q, unscored))].map((h) => [h.noteId, h.cosine]),
      );
      for (const e of byId.values()) {
        const c = cosines.get(e.row.id);
        if (c !== undefined) e.semantic = Math.max(0, c);
      }
    }
    return [...byId.values()];
  });
}

/** The query's unit vector, or undefined without an embedder (or when it fails). */
export function queryNoteVector(ctx: EngineContext, query: string): Promise<Float32Array | undefined> {
  return embedOne(ctx, query, 'query');
}

/** Weighted fusion as recall's default: semantic and lexical weights when the note has a vector, else lexical. */
export function fuseNoteScore(ctx: EngineContext, e: Pick<NoteEvidence, 'lexical' | 'semantic'>): number {
  const { semanticWeight, lexicalWeight } = ctx.config.recall;
  const lexical = e.lexical ?? 0;
  return e.semantic === undefined ? lexical : semanticWeight * e.semantic + lexicalWeight * lexical;
}

/** The most notes of one entity a search scores (the newest, when an entity has more). */
const MAX_LINKED_NOTES = 10_000;

/**
 * `notes.search`: by text (scoped BM25, fused with vector similarity when an embedder is present),
 * filtered by entity and status. Without a query, the filtered notes newest first, each scoring 1.
 */
export async function searchNotes(nc: NotesContext, input: unknown): Promise<NoteSearchHit[]> {
  const { ctx } = nc;
  const q = parseInput(nc.schemas.search, input, 'notes.search');
  const limit = q.limit ?? 10;
  if (q.query === undefined) {
    const rows = await ctx.portable.db.read(() =>
      listNotePageProgram({ agentId: q.agentId, status: q.status, entity: q.entity, limit }),
    );
    return rows.map((row) => ({ note: toNote(row), score: 1 }));
  }
  // An entity filter starts from the link index: only that entity's notes are scored.
  const linked = q.entity
    ? await ctx.portable.db.read(() =>
        listNotePageProgram({ agentId: q.agentId, entity: q.entity, status: q.status, limit: MAX_LINKED_NOTES }),
      )
    : undefined;
  const keep = (row: NoteRow) => q.status === undefined || row.status === q.status;
  const vector = await queryNoteVector(ctx, q.query);
  const minScore = ctx.config.recall.minScore;
  return (
    // Vector candidates: five per result asked for, at least 50 (as recall's semantic pool).
    (await noteEvidence(ctx, q.agentId, q.query, vector, { keep, linked, pool: Math.max(50, limit * 5) }))
      .map((e) => ({ e, score: fuseNoteScore(ctx, e) }))
      // A text match always counts; a note found by meaning alone must clear recall's relevance floor.
      .filter(({ e, score }) => (e.lexical ?? 0) > 0 || score >= minScore)
      .sort((a, b) => b.score - a.score || b.e.row.seq - a.e.row.seq)
      .slice(0, limit)
      .map(({ e, score }) => ({ note: toNote(e.row), score: Math.min(1, Math.max(0, score)) }))
  );
}
