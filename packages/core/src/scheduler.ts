import type { ManualClock } from './clock.js';

/** A task the scheduler runs; a returned promise is awaited by manual drivers. */
export type ScheduledTask = () => void | Promise<void>;

/** Handle to a scheduled task. `cancel()` is idempotent. */
export interface ScheduledHandle {
  cancel(): void;
}

/**
 * When background work runs. The engine never calls timers itself: it asks the scheduler.
 * The default uses timers; tests and serverless hosts use {@link createManualScheduler}.
 */
export interface Scheduler {
  /** Runs `task` once after `delayMs` (≥ 0). */
  schedule(task: ScheduledTask, delayMs: number): ScheduledHandle;
}

/**
 * The default scheduler on Node timers. Timers are unref'd so a forgotten engine does not keep the
 * process alive; errors thrown by a task are passed to `onError` (default: ignored, the task's own
 * code is expected to log).
 */
export function createTimerScheduler(options: { onError?: (error: unknown) => void } = {}): Scheduler {
  const onError = options.onError ?? ((): void => undefined);
  return {
    schedule(task, delayMs) {
      const timer = setTimeout(
        () => {
          try {
            const result = task();
            if (result instanceof Promise) result.catch(onError);
          } catch (error) {
            onError(error);
          }
        },
        Math.max(0, delayMs),
      );
      timer.unref();
      return { cancel: () => clearTimeout(timer) };
    },
  };
}

/** A scheduler driven by hand against a {@link ManualClock}: nothing runs until you say so. */
export interface ManualScheduler extends Scheduler {
  /** Runs every task due at the current time (including ones they schedule for now), in due order. */
  runDue(): Promise<number>;
  /** Advances the clock by `ms`, running tasks at their due times along the way. Returns tasks run. */
  advance(ms: number): Promise<number>;
  /** Number of tasks still scheduled. */
  pending(): number;
}

interface Entry {
  readonly seq: number;
  readonly dueAt: number;
  readonly task: ScheduledTask;
  cancelled: boolean;
}

/**
 * @example
 * ```ts
 * const clock = createManualClock(0);
 * const scheduler = createManualScheduler(clock);
 * let ticks = 0;
 * scheduler.schedule(() => void ticks++, 1000);
 * await scheduler.advance(1000); // runs the task
 * ```
 */
export function createManualScheduler(clock: ManualClock): ManualScheduler {
  let seq = 0;
  let entries: Entry[] = [];

  const nextDue = (limit: number): Entry | undefined => {
    let best: Entry | undefined;
    for (const e of entries) {
      if (e.cancelled || e.dueAt > limit) continue;
      if (!best || e.dueAt < best.dueAt || (e.dueAt === best.dueAt && e.seq < best.seq)) best = e;
    }
    return best;
  };

  const runUntil = async (limit: number): Promise<number> => {
    let ran = 0;
    for (let e = nextDue(limit); e; e = nextDue(limit)) {
      entries = entries.filter((x) => x !== e && !x.cancelled);
      if (e.dueAt > clock.now()) clock.set(e.dueAt);
      await e.task();
      ran++;
    }
    return ran;
  };

  return {
    schedule(task, delayMs) {
      const entry: Entry = { seq: seq++, dueAt: clock.now() + Math.max(0, delayMs), task, cancelled: false };
      entries.push(entry);
      return {
        cancel: () => {
          entry.cancelled = true;
        },
      };
    },
    runDue: () => runUntil(clock.now()),
    async advance(ms) {
      const target = clock.now() + ms;
      const ran = await runUntil(target);
      if (clock.now() < target) clock.set(target);
      return ran;
    },
    pending: () => entries.filter((e) => !e.cancelled).length,
  };
}
