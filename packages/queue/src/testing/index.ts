import type { ManualScheduler } from '@memory/core';
import { yieldToEventLoop } from '@memory/core';
import type { Job, JobStatus } from '../job.js';
import type { JobTypeHealth } from '../operations/health.js';

/** Lets pending promise callbacks and immediates run (handlers resolve across several turns). */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await yieldToEventLoop();
}

export interface DriveOptions {
  readonly scheduler: ManualScheduler;
  /** Virtual milliseconds per step. @default 100 */
  readonly stepMs?: number;
  /** Give up after this many steps (then throw). @default 10000 */
  readonly maxSteps?: number;
}

/**
 * Advances the virtual clock step by step until the job reaches one of `statuses`; throws after
 * `maxSteps` with the job's last state. No real sleeping. Takes a queue, or anything with `get`
 * (such as `engine.jobs`).
 */
export async function waitForJob(
  queue: { get(jobId: string): Job | undefined | Promise<Job | undefined> },
  jobId: string,
  statuses: JobStatus | readonly JobStatus[],
  options: DriveOptions,
): Promise<Job> {
  const wanted = new Set(Array.isArray(statuses) ? statuses : [statuses]);
  const maxSteps = options.maxSteps ?? 10_000;
  for (let step = 0; ; step++) {
    await settle();
    const job = await queue.get(jobId);
    if (job && wanted.has(job.status)) return job;
    if (step >= maxSteps)
      throw new Error(`job ${jobId} did not reach ${[...wanted].join('|')} (last: ${job?.status ?? 'missing'})`);
    await options.scheduler.advance(options.stepMs ?? 100);
  }
}

/** Advances the virtual clock until no job is pending or leased; throws after `maxSteps`. */
export async function drainQueue(
  queue: { health(): JobTypeHealth[] | Promise<JobTypeHealth[]> },
  options: DriveOptions,
): Promise<void> {
  const maxSteps = options.maxSteps ?? 10_000;
  for (let step = 0; ; step++) {
    await settle();
    const live = (await queue.health()).reduce((n, h) => n + h.pending + h.leased, 0);
    if (live === 0) return;
    if (step >= maxSteps) throw new Error(`queue did not drain: ${live} jobs still pending or leased`);
    await options.scheduler.advance(options.stepMs ?? 100);
  }
}
