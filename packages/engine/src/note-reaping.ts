import type { MemoryConfig } from '@memory/core';
import { countStaleActiveNotes, type Store, staleActiveNotes, updateNote } from '@memory/store';
import { recordNoteEvent } from './notes.js';

const DAY_MS = 86_400_000;
/** Notes archived per reaping transaction (each is an update and an audit row). */
const NOTE_REAP_BATCH = 200;

/** Active notes last updated before this time are stale (seed 003: 60 days by default). */
export function noteStaleBefore(config: MemoryConfig, now: number): number {
  return now - config.notes.reapAfterDays * DAY_MS;
}

/** What note reaping would archive now (one range count of the partial index). */
export function previewNoteReaping(store: Store, config: MemoryConfig) {
  const staleBefore = noteStaleBefore(config, store.clock.now());
  return {
    afterDays: config.notes.reapAfterDays,
    staleBefore,
    candidates: store.read((sql) => countStaleActiveNotes(sql, staleBefore)),
  };
}

/**
 * One note-reaping transaction: up to a batch of stale active notes (every agent) archived, each
 * with a `note_events` row by the engine giving the reason and the rule. Resolved and archived
 * notes are never touched. `done` when the batch was not full.
 */
export function reapNotesBatch(store: Store, config: MemoryConfig): { archived: number; done: boolean } {
  return store.write((sql) => {
    const now = store.clock.now();
    const staleBefore = noteStaleBefore(config, now);
    const stale = staleActiveNotes(sql, staleBefore, NOTE_REAP_BATCH);
    let archived = 0;
    for (const before of stale) {
      const note = updateNote(sql, before.agent_id, before.id, 'active', {
        status: 'archived',
        archived_at: now,
        updated_at: now,
      });
      if (!note) continue;
      recordNoteEvent(sql, store.ids, {
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
  });
}
