import type { Logger, Scheduler } from '@memory/core';
import {
  insertRecallTelemetryProgram,
  memoryScopeLockKeys,
  type PortableStore,
  type RecallTelemetryRow,
  recordMemoryAccessProgram,
} from '@memory/store';

/** Pending writes above this many memories are flushed at once instead of waiting for the scheduler. */
const FLUSH_AT = 2000;

/**
 * Writes that follow a recall — access counts and opt-in telemetry — collected and applied in one
 * short transaction on the next scheduler turn, off the response's critical path. `flush()` applies
 * them now (the engine calls it on close); on SQLite the write is done when it returns, on
 * PostgreSQL when its promise settles (it never rejects).
 */
export function createAfterResponseWriter(store: PortableStore, scheduler: Scheduler, logger: Logger) {
  const access = new Map<string, Map<string, number>>();
  const telemetry: RecallTelemetryRow[] = [];
  let pending = 0;
  let scheduled: { cancel(): void } | undefined;

  const flush = (): Promise<void> => {
    scheduled?.cancel();
    scheduled = undefined;
    if (pending === 0 && telemetry.length === 0) return Promise.resolve();
    const batch = [...access];
    const rows = telemetry.splice(0);
    access.clear();
    pending = 0;
    // Access counts are advisory: losing one batch must never fail or block recall.
    const failed = (error: unknown): void =>
      logger.warn('recall access tracking failed', { error: error instanceof Error ? error.message : String(error) });
    try {
      const now = store.clock.now();
      // The memory writers' scope locks: on PostgreSQL these row updates then wait for a write to the
      // same scope instead of failing serialization against it (SQLite ignores them).
      const lockKeys = memoryScopeLockKeys(batch.map(([agentId]) => agentId));
      return store.db
        .write(
          function* () {
            for (const [agentId, counts] of batch) yield* recordMemoryAccessProgram(agentId, counts, now);
            for (const row of rows) yield* insertRecallTelemetryProgram(row);
          },
          { lockKeys },
        )
        .then(() => undefined, failed);
    } catch (error) {
      failed(error);
      return Promise.resolve();
    }
  };

  const schedule = (): void => {
    if (pending >= FLUSH_AT) void flush();
    // The promise (which never rejects) lets a manual scheduler wait for the write.
    else scheduled ??= scheduler.schedule(flush, 0);
  };

  return {
    recordAccess(agentId: string, ids: readonly string[]): void {
      if (ids.length === 0) return;
      let counts = access.get(agentId);
      if (!counts) {
        counts = new Map();
        access.set(agentId, counts);
      }
      for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
      pending += ids.length;
      schedule();
    },
    recordTelemetry(row: RecallTelemetryRow): void {
      telemetry.push(row);
      pending++;
      schedule();
    },
    flush,
  };
}

export type AfterResponseWriter = ReturnType<typeof createAfterResponseWriter>;
