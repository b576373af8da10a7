import type { ConnectorRefusal } from './connector-kind.js';

/** Counters of one sync. */
export interface SyncStats {
  /** New items ingested (documents added). */
  added: number;
  /** Changed items ingested again (their documents' chunks replaced). */
  updated: number;
  /** Items whose version or bytes did not change. */
  unchanged: number;
  /** Items found under a new key with the bytes of one that is gone: documents moved, not re-ingested. */
  renamed: number;
  /** Items gone from the source: documents deleted, chunks forgotten. */
  deleted: number;
  /** Items refused (outside the root, too large, a refused format). */
  refused: number;
  /** Files left out by type or pattern. */
  skipped: number;
}

/** A connector's sync state, kept in its row (`cursor_json`) so a sync resumes after a crash. */
export interface SyncState {
  /** The current (or last) sync's number: items it saw carry it. */
  sync: number;
  /** True from `sync()` until the scan and its deletions are done. */
  running: boolean;
  stats: SyncStats;
  /** The first refusals of the sync, for the status report. */
  refusals: ConnectorRefusal[];
  /** The source's own cursor after its last complete scan. */
  source?: unknown;
  startedAt: number | null;
  finishedAt: number | null;
}

/** Refusals kept in the status report per sync. */
export const MAX_REPORTED_REFUSALS = 20;

export const emptyStats = (): SyncStats => ({
  added: 0,
  updated: 0,
  unchanged: 0,
  renamed: 0,
  deleted: 0,
  refused: 0,
  skipped: 0,
});

export function parseSyncState(json: string | null): SyncState {
  const fresh: SyncState = {
    sync: 0,
    running: false,
    stats: emptyStats(),
    refusals: [],
    startedAt: null,
    finishedAt: null,
  };
  if (!json) return fresh;
  try {
    const value = JSON.parse(json) as Partial<SyncState>;
    return { ...fresh, ...value, stats: { ...emptyStats(), ...value.stats }, refusals: value.refusals ?? [] };
  } catch {
    return fresh;
  }
}
