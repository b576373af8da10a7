import type { Logger, Scheduler } from '@memory/core';
import { insertRecallTelemetry, type RecallTelemetryRow, recordMemoryAccess, type Store } from '@memory/store';

/** Pending writes above this many memories are flushed at once instead of waiting for the scheduler. */
const FLUSH_AT = 2000;

/**
 * Writes that follow a recall — access counts and opt-in telemetry — collected and applied in one
 * short transaction on the next scheduler turn, off the response's critical path. `flush()` applies
 * them now (the engine calls it on close).
 */
export function createAfterResponseWriter(store: Store, scheduler: Scheduler, logger: Logger) {
  const access = new Map<string, Map<string, number>>();
  const telemetry: RecallTelemetryRow[] = [];
  let pending = 0;
  let scheduled: { cancel(): void } | undefined;

  const flush = (): void => {
    scheduled?.cancel();
    scheduled = undefined;
    if (pending === 0 && telemetry.length === 0) return;
    const batch = [...access];
    const rows = telemetry.splice(0);
    access.clear();
    pending = 0;
    try {
      const now = store.clock.now();
      store.write((sql) => {
        for (const [agentId, counts] of batch) recordMemoryAccess(sql, agentId, counts, now);
        for (const row of rows) insertRecallTelemetry(sql, row);
      });
    } catch (error) {
      // Access counts are advisory: losing one batch must never fail or block recall.
      logger.warn('recall access tracking failed', { error: error instanceof Error ? error.message : String(error) });
    }
  };

  const schedule = (): void => {
    if (pending >= FLUSH_AT) flush();
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
