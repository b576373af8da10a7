import {
  agentIdSchema,
  type Clock,
  type Logger,
  labelSchema,
  MemoryError,
  parseInput,
  type RandomSource,
  type ScheduledHandle,
  type Scheduler,
  type Tracer,
} from '@memory/core';
import {
  type Admission,
  createAdmission,
  createReaper,
  createWorker,
  type JobHandler,
  type PostgresQueue,
  type Queue,
  type Reaper,
  type ReapResult,
  type Worker,
  type WorkerStatus,
} from '@memory/queue';
import { z } from 'zod';
import { tracedHandler } from './tracing.js';

/** Job types the engine's own workers use; hosts cannot register handlers for them. */
export const RESERVED_JOB_TYPES: readonly string[] = Object.freeze([
  'document_ingest',
  'prospective_index',
  'dreaming',
  'maintenance',
  'transcript_import',
  'embedding_migration',
  'vector_index',
  'registry_autolink',
]);

const registrationSchema = z.strictObject({
  /** Job types this handler runs. */
  jobTypes: z.array(labelSchema(64, 'jobType')).min(1).max(32),
  /** Jobs run at once. @default 1 */
  concurrency: z.number().int().min(1).max(64).optional(),
  /** Run under a shared admission limit: `llm` for handlers that call the LLM. */
  admission: z.enum(['llm', 'documentIngest']).optional(),
  /** Reported in diagnostics and on leases. */
  name: agentIdSchema.optional(),
});

export type HandlerRegistration = z.input<typeof registrationSchema> & { readonly handler: JobHandler };

/** Periodic upkeep the engine runs besides queue workers (the idle-transcript sweep, ...). */
export interface PeriodicTask {
  readonly name: string;
  readonly intervalMs: number;
  run(): Promise<unknown> | unknown;
}

export interface BackgroundDeps {
  readonly periodic?: readonly PeriodicTask[];
  /** The SQLite queue (synchronous) or the PostgreSQL one (promises). */
  readonly queue: Queue | PostgresQueue;
  readonly scheduler: Scheduler;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly logger: Logger;
  /** Wraps every handler in a `memory.job` span when set. */
  readonly tracer?: Tracer | undefined;
}

/**
 * The engine's background runtime: one queue, its workers, the reaper and the shared admission
 * limits. Nothing runs until `start()` (or `runDue()` for hosts that drive work themselves).
 */
export function createBackground(deps: BackgroundDeps) {
  const { queue, scheduler, clock, random, logger } = deps;
  const admission: Admission = createAdmission({
    documentIngest: queue.config.documentIngestConcurrency,
    llm: queue.config.llmConcurrency,
  });
  const reaper: Reaper<ReapResult | Promise<ReapResult>> = createReaper({ queue, scheduler, logger });
  const periodic = deps.periodic ?? [];
  const periodicHandles = new Map<string, ScheduledHandle>();
  const runPeriodic = async (task: PeriodicTask): Promise<void> => {
    try {
      await task.run();
    } catch (error) {
      logger.warn(`${task.name} failed`, { error: error instanceof Error ? error.message : String(error) });
    }
  };
  const schedulePeriodic = (task: PeriodicTask): void => {
    periodicHandles.set(
      task.name,
      scheduler.schedule(async () => {
        if (!started || stopped) return;
        await runPeriodic(task);
        if (!stopped) schedulePeriodic(task);
      }, task.intervalMs),
    );
  };
  let stopped = false;
  const workers: Worker[] = [];
  const claimed = new Set<string>();
  let started = false;
  let recovery: Promise<void> | undefined;
  let recovered = false;

  const reportRecovered = (dead: number): void => {
    if (dead > 0) logger.warn('dead-lettered pending jobs that were out of attempts', { count: dead });
  };
  // Synchronous on SQLite (workers start after it in the same call); a promise on PostgreSQL.
  const recover = (): Promise<void> | undefined => {
    if (recovered) return recovery;
    recovered = true;
    const dead = queue.recoverOnStartup();
    if (typeof dead === 'number') reportRecovered(dead);
    else
      recovery = dead.then(reportRecovered, (error: unknown) =>
        logger.warn('startup recovery of the queue failed', {
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    return recovery;
  };

  return {
    admission,
    register(registration: HandlerRegistration, internal = false): void {
      if (typeof registration?.handler !== 'function')
        throw new MemoryError('INVALID_INPUT', 'registerHandler needs a handler function');
      const { handler, ...rest } = registration;
      const options = parseInput(registrationSchema, rest, 'registerHandler');
      for (const type of options.jobTypes) {
        if (!internal && RESERVED_JOB_TYPES.includes(type)) {
          throw new MemoryError('INVALID_INPUT', `job type ${type} is reserved for the engine's own workers`, {
            details: { jobType: type },
          });
        }
        if (claimed.has(type))
          throw new MemoryError('CONFLICT', `a handler for job type ${type} is already registered`, {
            details: { jobType: type },
          });
      }
      for (const type of options.jobTypes) claimed.add(type);
      const worker = createWorker({
        queue,
        jobTypes: options.jobTypes,
        handler: deps.tracer ? tracedHandler(deps.tracer, handler) : handler,
        scheduler,
        clock,
        random,
        logger,
        concurrency: options.concurrency ?? 1,
        ...(options.admission ? { admission: admission[options.admission] } : {}),
        ...(options.name ? { workerId: options.name } : {}),
      });
      workers.push(worker);
      if (started) worker.start();
    },
    start(): void {
      if (started) return;
      started = true;
      const startAll = (): void => {
        if (stopped) return;
        reaper.start();
        for (const task of periodic) schedulePeriodic(task);
        for (const worker of workers) worker.start();
      };
      const recovering = recover();
      if (recovering) void recovering.then(startAll);
      else startAll();
    },
    get started(): boolean {
      return started;
    },
    /** Reaps expired leases, runs periodic upkeep, then runs every worker's due jobs once. */
    async runDue(maxJobsPerWorker = 100): Promise<{ reaped: number; ran: number }> {
      await recover();
      const reap = await reaper.runOnce();
      for (const task of periodic) await runPeriodic(task);
      let ran = 0;
      for (const worker of workers) ran += await worker.runOnce(maxJobsPerWorker);
      return { reaped: reap.requeued + reap.dead, ran };
    },
    workerStatus(): WorkerStatus[] {
      return workers.map((w) => w.status());
    },
    async close(): Promise<number> {
      stopped = true;
      reaper.stop();
      for (const handle of periodicHandles.values()) handle.cancel();
      const results = await Promise.all(workers.map((w) => w.close()));
      return results.reduce((n, r) => n + r.released, 0);
    },
  };
}

export type Background = ReturnType<typeof createBackground>;
