import {
  agentIdSchema,
  createTimerScheduler,
  cryptoRandom,
  type MemoryConfig,
  MemoryError,
  parseInput,
  resolveConfig,
  timeSchema,
} from '@memory/core';
import {
  type ApplyContext,
  type ApplyResult,
  applyDreamingOperations,
  createDreamingSchedule,
  type MemoryHead,
  type PassInput,
  type PassResult,
  readMemoryHead,
  runDreamingPass,
  writtenMemoryIds,
} from '@memory/dreaming';
import type {
  ForgetInput,
  GetMemoryOptions,
  ModifyInput,
  RecoverInput,
  RememberInput,
  ScopeInput,
} from '@memory/ingest';
import {
  type AddDocumentInput,
  type AppendInput,
  type AppendResult,
  createDocuments,
  createImports,
  createInputSchemas,
  createTranscriptSchemas,
  createTranscripts,
  DOCUMENT_INGEST_JOB,
  type DocumentRef,
  type DocumentView,
  embedStoredMemories,
  type ForgetResult,
  forgetMemory,
  getMemory,
  type HistoryEntry,
  type ImportRecordView,
  type ImportRef,
  type ImportStatusView,
  type ListDocumentsInput,
  type ListImportRecordsInput,
  type ListTranscriptsInput,
  type Memory,
  type MemoryWriter,
  memoryHistory,
  modifyMemory,
  type RememberResult,
  recoverMemory,
  remember,
  rememberMany,
  type SearchTranscriptsInput,
  type SessionInput,
  type StartImportInput,
  TRANSCRIPT_IMPORT_JOB,
  type Transcript,
  type TranscriptSearchHit,
  type TranscriptSummary,
} from '@memory/ingest';
import {
  createQueue,
  type EnqueueInput,
  type EnqueueResult,
  type Job,
  type JobTypeHealth,
  PermanentJobError,
  type PruneOptions,
  type PruneReport,
  type ReapResult,
  type RepairFilter,
  type RepairReport,
  type WorkerStatus,
} from '@memory/queue';
import {
  createAfterResponseWriter,
  createHintsHandler,
  createRecall,
  PROSPECTIVE_INDEX_JOB,
  type RecallInput,
  type RecallResponse,
} from '@memory/recall';
import {
  type ClaimAsOf,
  claimsAsOf,
  deleteHints,
  listRecallTelemetry,
  openStore,
  purgeRecallTelemetry,
  type RecallTelemetryRow,
  type Store,
  type VectorSupport,
} from '@memory/store';
import { z } from 'zod';
import { createBackground, type HandlerRegistration } from './background.js';
import { checkOptions, type MemoryEngineOptions } from './options.js';

/** What the engine can do right now, and why not where it cannot. */
export interface EngineDiagnostics {
  /** Whether `start()` has run (background workers polling). */
  readonly started: boolean;
  /** Queue health per job type. */
  readonly queue: readonly JobTypeHealth[];
  readonly workers: readonly WorkerStatus[];
  readonly providers: {
    readonly llm: { readonly available: boolean; readonly reason?: string };
    readonly embedder: {
      readonly available: boolean;
      readonly model?: string;
      readonly dimensions?: number;
      readonly reason?: string;
    };
    readonly vector: VectorSupport;
  };
}

/** Queue repairs. Each is a dry run (a report of what it would do) unless `apply: true`. */
export interface EngineRepairs {
  requeueDead(filter?: RepairFilter): Promise<RepairReport>;
  releaseStale(filter?: RepairFilter & { olderThanMs?: number }): Promise<RepairReport>;
  cancel(filter?: RepairFilter): Promise<RepairReport>;
  prune(options?: PruneOptions): Promise<PruneReport>;
  /** Puts expired leases back now (the reaper does this every `queue.reaperIntervalMs`). */
  reapExpiredLeases(): Promise<ReapResult>;
}

/** Session transcripts: the conversations an agent has, kept as evidence (user and assistant turns). */
export interface EngineTranscripts {
  /** Appends turns (idempotent per turn); tool, system and reasoning turns are dropped. */
  append(input: AppendInput): Promise<AppendResult>;
  /** Completes a session (also done automatically after `transcripts.idleCompleteMs` without appends). */
  complete(input: SessionInput): Promise<{ completed: boolean }>;
  /** A session with its turns, or undefined outside its scope. */
  get(input: SessionInput): Promise<Transcript | undefined>;
  list(input: ListTranscriptsInput): Promise<TranscriptSummary[]>;
  /** BM25 over turns of completed sessions (or all with `completedOnly: false`). */
  search(input: SearchTranscriptsInput): Promise<TranscriptSearchHit[]>;
}

/** Documents: URLs or raw content, chunked into `document_chunk` memories by a background job. */
export interface EngineDocuments {
  /** Registers a document (status `queued`) and queues its ingest; runs after `start()` or on `runDue()`. */
  add(input: AddDocumentInput): Promise<{ id: string; jobId: string }>;
  /** The document with its `status` and `error`, or undefined outside its scope. */
  get(input: DocumentRef): Promise<DocumentView | undefined>;
  list(input: ListDocumentsInput): Promise<DocumentView[]>;
  /** Stops any ingest in flight, cancels its job, and forgets chunk memories no other document shares. */
  delete(input: DocumentRef): Promise<{ deleted: boolean; forgottenChunks: number }>;
}

/** Durable import of signet-export v1 JSONL transcripts into one agent scope. */
export interface EngineImports {
  /** Records the file and queues the import (runs after `start()` or on `runDue()`). */
  start(input: StartImportInput): Promise<{ jobId: string }>;
  /** Status and counters (`total = imported + duplicate + rejected + pending`), or undefined. */
  status(input: ImportRef): Promise<ImportStatusView | undefined>;
  /** Per-line outcomes, in line order. */
  records(input: ListImportRecordsInput): Promise<ImportRecordView[]>;
  pause(input: ImportRef): Promise<ImportStatusView>;
  resume(input: ImportRef): Promise<ImportStatusView>;
  cancel(input: ImportRef): Promise<ImportStatusView>;
  /** Purges the sessions an import created (and their index entries); keeps tombstones. */
  removeSource(input: ImportRef): Promise<{ removedSessions: number }>;
}

/** Host jobs on the engine's durable queue. */
export interface EngineJobs {
  /** Adds a job; a pending or leased job with the same type and `dedupKey` is returned instead. */
  enqueue(input: EnqueueInput): Promise<EnqueueResult>;
  get(id: string): Promise<Job | undefined>;
  /**
   * Runs `handler` for these job types in the background (after `start()`, or on `runDue()`).
   * The engine's own job types are reserved.
   */
  registerHandler(registration: HandlerRegistration): void;
}

/** Dreaming: the audited write seam, bi-temporal claims, and passes of the bounded agent. */
export interface EngineDreaming {
  /**
   * Applies operations through the seam: the whole batch is validated first (exact quotes from the
   * agent's own evidence, attention-backed hygiene, targets in scope, caps, policies); invalid ones
   * come back in `rejected` with a reason; shadow-mode and review-required ones become proposals.
   */
  apply(context: ApplyContext, operations: unknown): Promise<ApplyResult>;
  /** The claims about an entity that were true at `asOf` (event time); superseded ones included when they applied then. */
  claimsAsOf(input: { agentId: string; entityId: string; asOf: number }): Promise<ClaimAsOf[]>;
  /**
   * Runs one Dreaming pass for an agent now (needs an `llm`): the mode is chosen from the work
   * unless given; everything it does is recorded. With `dreaming.enabled`, the engine's schedule
   * also runs passes when an agent has work.
   */
  runPass(input: PassInput): Promise<PassResult>;
}

/** Opt-in local recall telemetry (`config.telemetry.recallQa`). It holds query text, so it is scoped and purgeable. */
export interface EngineTelemetry {
  /** One agent's recorded recalls, newest first. @default limit 100 */
  list(agentId: string, options?: { limit?: number }): Promise<RecallTelemetryRow[]>;
  /** Deletes one agent's telemetry (all, or recorded before `before`); returns rows deleted. */
  purge(agentId: string, options?: { before?: number }): Promise<number>;
}

/** Due hints jobs above which scheduled Dreaming passes wait (both need the LLM). */
const DREAMING_DEFER_BACKLOG = 100;

const parseAgent = (agentId: unknown): string => parseInput(agentIdSchema, agentId, 'agentId');

const claimsAsOfSchema = z.strictObject({
  agentId: agentIdSchema,
  entityId: z.string().min(1).max(200),
  asOf: timeSchema,
});
const telemetryListSchema = z.strictObject({ limit: z.number().int().min(1).max(10_000).optional() });
const telemetryPurgeSchema = z.strictObject({ before: timeSchema.optional() });

const hintsJobSchema = z.strictObject({ memoryId: z.string().min(1), agentId: agentIdSchema });
/** A hints job's payload, checked: a malformed one fails the job permanently instead of retrying. */
function hintsPayload(payload: unknown): { memoryId: string; agentId: string } {
  const parsed = hintsJobSchema.safeParse(payload);
  if (!parsed.success) throw new PermanentJobError('prospective_index payload needs { memoryId, agentId }');
  return parsed.data;
}

/** The engine a host holds. Every method fails with `ENGINE_CLOSED` after `close()`. */
export interface MemoryEngine {
  /** The resolved, frozen configuration. */
  readonly config: MemoryConfig;
  /** Whether sqlite-vec is loaded (and why not). */
  readonly vector: VectorSupport;
  /** Stores a memory; the same content in the same agent scope returns the existing id (`deduped: true`). */
  remember(input: RememberInput): Promise<RememberResult>;
  /** Stores many memories in bounded transactions; results in input order. Validates all inputs first. */
  rememberMany(inputs: readonly RememberInput[]): Promise<RememberResult[]>;
  /** A memory in the agent's scope, or undefined. Forgotten memories only with `includeDeleted`. */
  getMemory(id: string, options: GetMemoryOptions): Promise<Memory | undefined>;
  /** Changes content, importance, tags or pinned; records history. */
  modify(id: string, input: ModifyInput): Promise<Memory>;
  /** Soft-deletes; pinned memories need `force`. Recoverable within `retention.recoverWindowDays`. */
  forget(id: string, input: ForgetInput): Promise<ForgetResult>;
  /** Restores a forgotten memory. */
  recover(id: string, input: RecoverInput): Promise<Memory>;
  /** The memory's audit trail, oldest first. */
  history(id: string, input: ScopeInput): Promise<HistoryEntry[]>;
  /**
   * Hybrid recall within one agent's scope: lexical (BM25), semantic (with an embedder), prospective
   * hints, knowledge-graph traversal and host-linked channels, fused, dampened and tiered.
   */
  recall(input: RecallInput): Promise<RecallResponse>;
  readonly telemetry: EngineTelemetry;
  readonly dreaming: EngineDreaming;
  /**
   * The agent's MEMORY.md head: a short curated summary a content pass maintains, every entry
   * backed by an exact quote. Undefined until a pass writes one; the host decides whether to write
   * it to a file.
   */
  memoryHead(agentId: string): Promise<MemoryHead | undefined>;
  /**
   * Starts background work on the scheduler: startup recovery of the queue, the stale-lease reaper,
   * and the workers. Idempotent. Hosts that drive work themselves call `runDue()` instead.
   */
  start(): Promise<void>;
  /** Runs due background work now (reaping, then due jobs), for serverless hosts and cron. */
  runDue(): Promise<{ reaped: number; ran: number }>;
  /** Queue health per job type, worker states and provider availability. */
  diagnostics(): Promise<EngineDiagnostics>;
  readonly repair: EngineRepairs;
  readonly jobs: EngineJobs;
  readonly transcripts: EngineTranscripts;
  readonly documents: EngineDocuments;
  readonly imports: EngineImports;
  /**
   * Stops background work (in-flight jobs are aborted, waited for up to `queue.closeDeadlineMs`,
   * and released), then closes the database if the engine opened it. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Creates an engine on SQLite. Runs migrations on open; does no other work until called.
 *
 * @example
 * ```ts
 * const engine = await createMemoryEngine({ database: { path: 'memory.db' } });
 * await engine.remember({ agentId: 'bot', content: 'Alice prefers tea', type: 'preference' });
 * const { results } = await engine.recall({ agentId: 'bot', query: 'what does Alice drink? tea' });
 * await engine.close();
 * ```
 */
export async function createMemoryEngine(options: MemoryEngineOptions): Promise<MemoryEngine> {
  checkOptions(options);
  const config = resolveConfig(options.config ?? {});
  const database = options.database;
  const store: Store = await openStore({
    ...('path' in database ? { path: database.path } : { database: database.database }),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.ids ? { ids: options.ids } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    config: config.store,
  });
  const queue = createQueue({ store, config: config.queue });
  const embedder = options.embedder ? store.guard.embedder(options.embedder) : undefined;
  const llm = options.llm ? store.guard.llm(options.llm) : undefined;
  const hintsOn = config.hints.enabled && llm !== undefined;
  const writer: MemoryWriter = {
    store,
    config,
    schemas: createInputSchemas(config),
    embedder,
    onContentWritten: (sql, memory) => {
      if (memory.changed) deleteHints(sql, memory.agentId, memory.id);
      if (!hintsOn || memory.type === 'document_chunk') return;
      queue.enqueue({
        jobType: PROSPECTIVE_INDEX_JOB,
        payload: { memoryId: memory.id, agentId: memory.agentId },
        dedupKey: memory.id,
        agentId: memory.agentId,
        memoryId: memory.id,
      });
    },
  };
  const transcripts = createTranscripts({ store, config, schemas: createTranscriptSchemas(config) });
  const scheduler = options.scheduler ?? createTimerScheduler();
  const documents = createDocuments({ writer, queue, scheduler });
  const imports = createImports({ store, queue, config });
  // Scheduled Dreaming passes: checked on the engine's schedule when enabled and a model is present.
  let dreamingSchedule: ReturnType<typeof createDreamingSchedule> | undefined;
  const dreamingTask =
    config.dreaming.enabled && llm
      ? [{ name: 'dreaming', intervalMs: config.dreaming.checkIntervalMs, run: () => dreamingSchedule?.check() }]
      : [];
  const background = createBackground({
    periodic: [
      {
        name: 'idle transcript sweep',
        intervalMs: config.transcripts.sweepIntervalMs,
        run: () => transcripts.completeIdle(),
      },
      ...dreamingTask,
    ],
    queue,
    scheduler,
    clock: store.clock,
    random: options.random ?? cryptoRandom,
    logger: store.logger,
  });
  background.register(
    {
      jobTypes: [DOCUMENT_INGEST_JOB],
      handler: documents.ingest,
      admission: 'documentIngest',
      concurrency: config.queue.documentIngestConcurrency,
      name: 'document-ingest',
    },
    true,
  );
  background.register({ jobTypes: [TRANSCRIPT_IMPORT_JOB], handler: imports.run, name: 'transcript-import' }, true);
  if (hintsOn && llm) {
    const hints = createHintsHandler({ store, llm, config });
    background.register(
      {
        jobTypes: [PROSPECTIVE_INDEX_JOB],
        handler: (job, context) => hints(hintsPayload(job.payload), context.signal),
        admission: 'llm',
        concurrency: config.queue.llmConcurrency,
        name: 'prospective-index',
      },
      true,
    );
  }
  if (llm) {
    const limit = background.admission.llm;
    // Saturated: LLM calls are queued or every slot is busy, or the hints backlog (the other LLM
    // work on the queue) is long. The backlog is counted at most once per clock tick.
    let backlog = { at: Number.NaN, due: 0 };
    const hintsBacklog = (): number => {
      const now = store.clock.now();
      if (backlog.at !== now)
        backlog = { at: now, due: queue.health().find((h) => h.jobType === PROSPECTIVE_INDEX_JOB)?.due ?? 0 };
      return backlog.due;
    };
    dreamingSchedule = createDreamingSchedule({
      store,
      config,
      llm,
      clock: store.clock,
      limiter: {
        saturated: () =>
          limit.size > 0 || limit.pending >= limit.concurrency || hintsBacklog() > DREAMING_DEFER_BACKLOG,
        run: (task) => limit.add(task),
      },
      afterPass: (agentId, pass) => embedStoredMemories(writer, agentId, pass.memoryIds),
    });
  }
  const after = createAfterResponseWriter(store, scheduler, store.logger);
  const recall = createRecall({ store, config, embedder, after });
  let closed = false;
  let closing: Promise<void> | undefined;

  // Every public call goes through here: a closed engine refuses, and any synchronous throw becomes
  // a rejected promise so callers see one error path.
  const call = async <T>(fn: () => T | Promise<T>): Promise<T> => {
    if (closed) throw new MemoryError('ENGINE_CLOSED', 'the memory engine is closed');
    return fn();
  };

  return Object.freeze({
    config,
    vector: store.vector,
    remember: (input) => call(() => remember(writer, input)),
    rememberMany: (inputs) => call(() => rememberMany(writer, inputs)),
    getMemory: (id, opts) => call(() => getMemory(writer, id, opts)),
    modify: (id, input) => call(() => modifyMemory(writer, id, input)),
    forget: (id, input) => call(() => forgetMemory(writer, id, input)),
    recover: (id, input) => call(() => recoverMemory(writer, id, input)),
    history: (id, input) => call(() => memoryHistory(writer, id, input)),
    recall: (input) => call(() => recall(input)),
    memoryHead: (agentId) => call(() => store.read((sql) => readMemoryHead(sql, parseAgent(agentId)))),
    dreaming: Object.freeze({
      apply: (context, operations) =>
        call(async () => {
          const result = applyDreamingOperations(store, config, context, operations);
          // The seam never calls providers; memories it wrote get their vectors now.
          await embedStoredMemories(
            writer,
            parseAgent((context as { agentId?: unknown }).agentId),
            writtenMemoryIds(result),
          );
          return result;
        }),
      runPass: (input) =>
        call(() => {
          if (!llm)
            throw new MemoryError(
              'INVALID_CONFIG',
              'dreaming.runPass needs an llm provider in createMemoryEngine options',
            );
          // Under the shared LLM limit, like every other caller of the model.
          return background.admission.llm
            .add(() => runDreamingPass({ store, config, llm, clock: store.clock }, input))
            .then(async (pass) => {
              await embedStoredMemories(writer, parseAgent((input as { agentId?: unknown }).agentId), pass.memoryIds);
              return pass;
            });
        }),
      claimsAsOf: (input) =>
        call(() => {
          const { agentId, entityId, asOf } = parseInput(claimsAsOfSchema, input, 'dreaming.claimsAsOf');
          return store.read((sql) => claimsAsOf(sql, agentId, entityId, asOf));
        }),
    } satisfies EngineDreaming),
    telemetry: Object.freeze({
      list: (agentId, opts) =>
        call(() => {
          const { limit } = parseInput(telemetryListSchema, opts ?? {}, 'telemetry.list');
          return store.read((sql) => listRecallTelemetry(sql, parseAgent(agentId), limit ?? 100));
        }),
      purge: (agentId, opts) =>
        call(() => {
          const { before } = parseInput(telemetryPurgeSchema, opts ?? {}, 'telemetry.purge');
          return store.write((sql) => purgeRecallTelemetry(sql, parseAgent(agentId), before));
        }),
    } satisfies EngineTelemetry),
    start: () => call(() => background.start()),
    runDue: () => call(() => background.runDue()),
    diagnostics: () =>
      call(() => ({
        started: background.started,
        queue: queue.health(),
        workers: background.workerStatus(),
        providers: {
          llm: options.llm
            ? { available: true }
            : { available: false, reason: 'no llm provider configured; LLM workers stay idle' },
          embedder: options.embedder
            ? { available: true, model: options.embedder.model, dimensions: options.embedder.dimensions }
            : {
                available: false,
                reason:
                  'no embedder configured; recall runs without its semantic channel (lexical, hints, graph and links only)',
              },
          vector: store.vector,
        },
      })),
    repair: Object.freeze({
      requeueDead: (filter) => call(() => queue.requeueDead(filter)),
      releaseStale: (filter) => call(() => queue.releaseStale(filter)),
      cancel: (filter) => call(() => queue.cancel(filter)),
      prune: (opts) => call(() => queue.prune(opts)),
      reapExpiredLeases: () => call(() => queue.reapExpiredLeases()),
    } satisfies EngineRepairs),
    jobs: Object.freeze({
      enqueue: (input) => call(() => queue.enqueue(input)),
      get: (id) => call(() => queue.get(id)),
      registerHandler: (registration) => {
        if (closed) throw new MemoryError('ENGINE_CLOSED', 'the memory engine is closed');
        background.register(registration);
      },
    } satisfies EngineJobs),
    transcripts: Object.freeze({
      append: (input) => call(() => transcripts.append(input)),
      complete: (input) => call(() => transcripts.complete(input)),
      get: (input) => call(() => transcripts.get(input)),
      list: (input) => call(() => transcripts.list(input)),
      search: (input) => call(() => transcripts.search(input)),
    } satisfies EngineTranscripts),
    documents: Object.freeze({
      add: (input) => call(() => documents.add(input)),
      get: (input) => call(() => documents.get(input)),
      list: (input) => call(() => documents.list(input)),
      delete: (input) => call(() => documents.delete(input)),
    } satisfies EngineDocuments),
    imports: Object.freeze({
      start: (input) => call(() => imports.start(input)),
      status: (input) => call(() => imports.status(input)),
      records: (input) => call(() => imports.records(input)),
      pause: (input) => call(() => imports.pause(input)),
      resume: (input) => call(() => imports.resume(input)),
      cancel: (input) => call(() => imports.cancel(input)),
      removeSource: (input) => call(() => imports.removeSource(input)),
    } satisfies EngineImports),
    close() {
      closing ??= (async () => {
        closed = true;
        try {
          await background.close();
          after.flush();
        } finally {
          store.close();
        }
      })();
      return closing;
    },
  } satisfies MemoryEngine);
}
