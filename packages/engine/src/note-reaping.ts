import type { Clock, IdGenerator, MemoryConfig } from '@memory/core';
import {
  countStaleActiveNotesProgram,
  type Dialect,
  type PortableStore,
  type Program,
  runSqliteProgram,
  type Store,
  staleActiveNotesProgram,
  updateNoteProgram,
} from '@memory/store';
import { recordNoteEvent } from './notes.js';

const DAY_MS = 86_400_000;
/** Notes archived per reaping transaction (each is an update and an audit row). */
const NOTE_REAP_BATCH = 200;

/** Active notes last updated before this time are stale (seed 003: 60 days by default). */
export function noteStaleBefore(config: MemoryConfig, now: number): number {
  return now - config.notes.reapAfterDays * DAY_MS;
}

/** What note reaping would archive now. */
export interface NoteReapingPreview {
  readonly afterDays: number;
  readonly staleBefore: number;
  readonly candidates: number;
}

/** What note reaping would archive now (one range count of the partial index). */
export function previewNoteReaping(store: Store, config: MemoryConfig): NoteReapingPreview {
  const staleBefore = noteStaleBefore(config, store.clock.now());
  return {
    afterDays: config.notes.reapAfterDays,
    staleBefore,
    candidates: store.read((sql) => runSqliteProgram(sql, countStaleActiveNotesProgram(staleBefore))),
  };
}

/** {@link previewNoteReaping} on either dialect. */
export async function previewNoteReapingOn(store: PortableStore, config: MemoryConfig): Promise<NoteReapingPreview> {
  const staleBefore = noteStaleBefore(config, store.clock.now());
  const candidates = await store.db.read(() => countStaleActiveNotesProgram(staleBefore));
  return { afterDays: config.notes.reapAfterDays, staleBefore, candidates };
}

/**
 * One note-reaping transaction as a program: up to a batch of stale active notes (every agent)
 * archived, each with a `note_events` row by the engine giving the reason and the rule. Resolved
 * and archived notes are never touched. `done` when the batch was not full.
 */
export function* reapNotesProgram(
  deps: { readonly dialect: Dialect; readonly clock: Clock; readonly ids: IdGenerator },
  config: MemoryConfig,
): Program<{ archived: number; done: boolean }> {
  const now = deps.clock.now();
  const staleBefore = noteStaleBefore(config, now);
  const stale = yield* staleActiveNotesProgram(staleBefore, NOTE_REAP_BATCH);
  let archived = 0;
  for (const before of stale) {
    const note = yield* updateNoteProgram(deps.dialect, before.agent_id, before.id, 'active', {
      status: 'archived',
      archived_at: now,
      updated_at: now,
    });
    if (!note) continue;
    yield* recordNoteEvent(deps.ids, {
      note,
      event: 'archived',
      actor: { id: 'engine', type: 'engine' },
      reason: `reaped: not updated for ${config.notes.reapAfterDays} days`,
      before,
      metadata: { task: 'reap', afterDays: config.notes.reapAfterDays, lastUpdatedAt: before.updated_at },
      now,
    });
    archived++;
  }
  return { archived, done: stale.length < NOTE_REAP_BATCH };
}

/** One note-reaping transaction on SQLite (see {@link reapNotesProgram}). */
export function reapNotesBatch(store: Store, config: MemoryConfig): { archived: number; done: boolean } {
  return store.write((sql) => runSqliteProgram(sql, reapNotesProgram(store, config)));
}

/** One note-reaping transaction on either dialect (see {@link reapNotesProgram}). */
export function reapNotesBatchOn(
  store: PortableStore,
  config: MemoryConfig,
): Promise<{ archived: number; done: boolean }> {
  return store.db.write(() => reapNotesProgram(store, config));
}
