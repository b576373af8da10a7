import { agentIdSchema, createTimerScheduler, cryptoRandom, type LlmProvider, resolveConfig } from '@memory/core';
import {
  CONNECTOR_SYNC_JOB,
  createConnectors,
  createDocumentSearch,
  createDocuments,
  createImports,
  createTranscriptSchemas,
  createTranscripts,
  DOCUMENT_INGEST_JOB,
  TRANSCRIPT_IMPORT_JOB,
  writeDeps,
} from '@memory/ingest';
import { PermanentJobError } from '@memory/queue';
import { createAfterResponseWriter, createHintsHandler, createRecall, PROSPECTIVE_INDEX_JOB } from '@memory/recall';
import type { PortableStore } from '@memory/store';
import { z } from 'zod';
import { type Background, createBackground } from './background.js';
import type { EngineContext } from './context.js';
import { createScheduledDreaming } from './dreaming.js';
import { keyEmbedder } from './embedding-migration.js';
import { createLoopTurns } from './loop-turns.js';
import { MAINTENANCE_JOB, maintenanceHandler, maintenanceTasks } from './maintenance.js';
import { createEngineWriter } from './memory-writer.js';
import { openDatabase } from './open-database.js';
import { checkOptions, type MemoryEngineOptions } from './options.js';
import { registerAutoLinkWorker, withDocumentAutoLink } from './registry-autolink.js';
import { importCategoryRecordProgram } from './registry-import.js';
import { tracedEmbedder, tracedLlm } from './tracing.js';
import { registerVectorWorkers, vectorUpkeepTask } from './vector-upkeep.js';

const hintsJobSchema = z.strictObject({ memoryId: z.string().min(1), agentId: agentIdSchema });
/** A hints job's payload, checked: a malformed one fails the job permanently instead of retrying. */
function hintsPayload(payload: unknown): { memoryId: string; agentId: string } {
  const parsed = hintsJobSchema.safeParse(payload);
  if (!parsed.success) throw new PermanentJobError('prospective_index payload needs { memoryId, agentId }');
  return parsed.data;
}

/**
 * Checks the options, opens the store (running migrations) and wires the engine's parts: the queue,
 * the memory writer, transcripts, documents, imports, the background runtime with the engine's own
 * workers, scheduled Dreaming, and recall. Starts nothing.
 */
export async function openEngine(options: MemoryEngineOptions): Promise<EngineContext> {
  checkOptions(options);
  const config = resolveConfig(options.config ?? {});
  const opened = await openDatabase(options.database, {
    clock: options.clock,
    ids: options.ids,
    logger: options.logger,
    config,
  });
  const { store, queue, portable, jobs } = opened;
  const sqlite = portable.dialect === 'sqlite';
  const { tracer } = options;
  // What the lifecycle (maintenance, vector upkeep) needs, on either dialect.
  const lifecycle = { dialect: portable.dialect, store, portable, config, vector: opened.vector };
  // The engine's parts see the embedder under its vector key (see embedding-migration.ts).
  let keyed: Awaited<ReturnType<typeof keyEmbedder>> | undefined;
  try {
    const traced = options.embedder && tracer ? tracedEmbedder(tracer, options.embedder) : options.embedder;
    keyed = traced ? await keyEmbedder(portable, config, traced) : undefined;
  } catch (error) {
    await opened.close();
    throw error;
  }
  const embedder = keyed ? store.guard.embedder(keyed.embedder) : undefined;
  const llm = options.llm ? store.guard.llm(tracer ? tracedLlm(tracer, options.llm) : options.llm) : undefined;
  const hintsOn = config.hints.enabled && llm !== undefined;
  const autoLinkOn = config.registry.autoLinkOnCreate && llm !== undefined;
  const writer = createEngineWriter({ store, config, queue, jobs, embedder, hintsOn, autoLinkOn });
  // One set of memory-writer dependencies for every path that writes memories.
  const memoryWrites = writeDeps(writer);
  // Dreaming searches evidence through the one recall path, without counting access. Recall runs
  // on either dialect (the portable store).
  const evidenceRecall = createRecall({ store: portable, config, embedder });
  const transcripts = createTranscripts({ store: portable, config, schemas: createTranscriptSchemas(config) });
  const scheduler = options.scheduler ?? createTimerScheduler();
  const random = options.random ?? cryptoRandom;
  // Documents, connectors and workspace search run on either dialect (issue 18). Chunk memories
  // queue no derived work (the writer's hook skips them), so on PostgreSQL, until the writer's hook
  // has its program form, they are written without the SQLite executor hook.
  const documentWrites =
    sqlite || memoryWrites.onContentLiveProgram ? memoryWrites : { ...memoryWrites, onContentLive: undefined };
  const documents = createDocuments({ writer, store: portable, queue: jobs, scheduler, memoryWrites: documentWrites });
  const connectors = createConnectors({ store: portable, queue: jobs, config, documents });
  for (const kind of options.connectorKinds ?? []) connectors.registerKind(kind);
  // Imports run on either dialect, `engine.export` files included (every record kind is a program).
  const imports = createImports({
    store: portable,
    queue: jobs,
    config,
    writeCategory: (agentId, record) => importCategoryRecordProgram({ config }, agentId, record),
  });
  // Scheduled Dreaming passes: checked on the engine's schedule when enabled and a model is present.
  // The schedule needs the background's LLM limit, so the periodic task finds it at run time.
  let dreamingSchedule: ReturnType<typeof createScheduledDreaming> | undefined;
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
      // Vectors exist only with an embedder: without one there is nothing to index or fill in.
      ...(embedder ? [vectorUpkeepTask({ ctx: lifecycle, jobs, config, embedder })] : []),
      ...dreamingTask,
      // Lifecycle maintenance (issue 13): purge past the recover window, reaping.
      ...maintenanceTasks({ portable, jobs, config }),
    ],
    queue: opened.workerQueue,
    scheduler,
    clock: store.clock,
    random,
    logger: store.logger,
    tracer,
  });
  // A sync reads files and registers documents; their ingest jobs follow under the same admission
  // (registered first, so one `runDue()` syncs, then ingests what the sync queued).
  background.register(
    { jobTypes: [CONNECTOR_SYNC_JOB], handler: connectors.run, admission: 'documentIngest', name: 'connector-sync' },
    true,
  );
  background.register(
    {
      jobTypes: [DOCUMENT_INGEST_JOB],
      handler: autoLinkOn ? withDocumentAutoLink({ portable, jobs }, documents.ingest) : documents.ingest,
      admission: 'documentIngest',
      concurrency: config.queue.documentIngestConcurrency,
      name: 'document-ingest',
    },
    true,
  );
  background.register({ jobTypes: [TRANSCRIPT_IMPORT_JOB], handler: imports.run, name: 'transcript-import' }, true);
  background.register(
    { jobTypes: [MAINTENANCE_JOB], handler: maintenanceHandler({ ...lifecycle, writer }), name: 'maintenance' },
    true,
  );
  // When an ingest or import job dies (whatever killed it), its document or import says `failed`.
  jobs.onDead(TRANSCRIPT_IMPORT_JOB, imports.runDiedProgram);
  jobs.onDead(DOCUMENT_INGEST_JOB, documents.ingestDied);
  jobs.onDead(CONNECTOR_SYNC_JOB, connectors.syncDied);
  if (embedder) registerVectorWorkers({ ctx: lifecycle, config, writer, background });
  if (hintsOn && llm) registerHintsWorker({ store: portable, config, llm, background });
  // Registered whenever a model is present: jobs queued before auto-linking was switched off still run.
  if (llm) registerAutoLinkWorker({ portable, config, llm, background });
  if (llm)
    dreamingSchedule = createScheduledDreaming({
      store: portable,
      config,
      queue: sqlite ? queue : undefined,
      jobs,
      llm,
      writer,
      memoryWrites,
      recall: evidenceRecall,
      background,
    });
  const after = createAfterResponseWriter(portable, scheduler, portable.logger);
  const recall = createRecall({ store: portable, config, embedder, after });
  return {
    config,
    dialect: portable.dialect,
    portable,
    store,
    jobs,
    queue,
    vector: opened.vector,
    closeDatabase: opened.close,
    writer,
    memoryWrites,
    llm,
    autoLinkOn,
    embedder,
    providers: {
      llm: llm !== undefined,
      embedder: options.embedder
        ? {
            model: options.embedder.model,
            dimensions: options.embedder.dimensions,
            vectorKey: keyed?.identity.vectorKey ?? options.embedder.model,
            check: options.embedder.check?.bind(options.embedder),
          }
        : undefined,
    },
    background,
    tracer,
    transcripts,
    documents,
    searchDocuments: createDocumentSearch({ store: portable, config }),
    connectors,
    imports,
    recall,
    evidenceRecall,
    after,
    random,
    scheduler,
    turns: createLoopTurns(),
    state: { closed: false },
  };
}

/** The prospective-hints worker: one LLM call per new memory content, under the shared LLM limit. */
function registerHintsWorker(deps: {
  store: PortableStore;
  config: EngineContext['config'];
  llm: LlmProvider;
  background: Background;
}): void {
  const { store, config, llm, background } = deps;
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
