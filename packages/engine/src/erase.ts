import { agentIdSchema, createTimeSlicer, parseInput, throwIfAborted } from '@memory/core';
import { beginErasureProgram, eraseStepProgram, runWriterProgram } from '@memory/store';
import { z } from 'zod';
import type { EngineContext } from './context.js';
import { scrubDeletedText } from './maintenance.js';

/** `engine.erase`: a whole agent scope. */
export interface EraseInput {
  readonly agentId: string;
  /** Checked between batches; an aborted erase resumes where it stopped when called again. */
  readonly signal?: AbortSignal | undefined;
}

/** What an erase removed, per table (rows), over every run of it (a resumed erase included). */
export interface EraseResult {
  readonly agentId: string;
  readonly counts: Readonly<Record<string, number>>;
  /** Sum of `counts`. */
  readonly total: number;
  /** True when this call continued an erase a crash or abort had interrupted. */
  readonly resumed: boolean;
  readonly startedAt: number;
  readonly finishedAt: number;
}

const eraseSchema = z.strictObject({
  agentId: agentIdSchema,
  signal: z.instanceof(AbortSignal, { error: 'signal must be an AbortSignal' }).optional(),
});

// Rows per erase transaction: a few ms each, so the event loop stays free between them.
const ERASE_BATCH = 200;

/**
 * Removes every row of the scope from every table (memories, history, cold copies, tombstones,
 * transcripts, documents, imports, graph, Dreaming state, hints, vectors and their index, jobs,
 * telemetry), in bounded batches, each its own transaction that also saves the erase's position and
 * counts. Called again after a crash (or an abort), it continues and reports the counts of all runs.
 * On SQLite it ends by truncating the WAL, so removed text leaves the file; on PostgreSQL the
 * rows are gone at each commit and their old versions stay on disk until vacuum (docs/postgres.md).
 */
export async function eraseScope(ctx: EngineContext, input: unknown): Promise<EraseResult> {
  const { agentId, signal } = parseInput(eraseSchema, input, 'erase');
  const { portable: store } = ctx;
  const begun = await store.db.write(() => beginErasureProgram(agentId, store.clock.now()));
  // The vec0 index exists only on SQLite; PostgreSQL's pgvector mirror follows `embeddings` by cascade.
  const vectorAvailable = ctx.dialect === 'sqlite' && ctx.vector.available;
  const resumed = begun.step > 0 || Object.keys(begun.counts).length > 0;
  const slicer = createTimeSlicer();
  let state = begun;
  while (state.status === 'running') {
    throwIfAborted(signal, 'erase');
    // Holding the scope's lock keys: an erase step deletes the scope's memories and history, so it
    // takes its turn with the scope's other memory writers on PostgreSQL.
    state = await runWriterProgram(ctx.portable, { agentIds: [agentId] }, (target) =>
      eraseStepProgram(target, agentId, { limit: ERASE_BATCH, vectorAvailable, now: store.clock.now() }),
    );
    // The step deleted rows of the scope: conflict detection's index of it is rebuilt on next use.
    ctx.writer.conflictKeys?.dropScope(agentId);
    await slicer.yield();
  }
  await scrubDeletedText(ctx);
  const total = Object.values(state.counts).reduce((a, b) => a + b, 0);
  return {
    agentId,
    counts: state.counts,
    total,
    resumed,
    startedAt: state.startedAt,
    finishedAt: state.finishedAt ?? store.clock.now(),
  };
}
