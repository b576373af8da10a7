import { throwIfAborted } from '@memory/core';
import { takeSignal } from './abort.js';
import { engineConnectors } from './connectors.js';
import { assertOpen, call, closeEngine, type EngineContext } from './context.js';
import { diagnostics } from './diagnostics.js';
import { applyOperations, claimsAt, type EngineDreaming, memoryHead, runPass } from './dreaming.js';
import { attention, getPass, listPasses, provenance } from './dreaming-reads.js';
import { accept, getProposal, listProposalPage, reject, revert } from './dreaming-steering.js';
import { embeddingMap } from './embedding-map.js';
import { reembed } from './embedding-migration.js';
import { eraseScope } from './erase.js';
import { exportScope } from './export.js';
import { type EngineGraph, entities, entity, claimsAt as graphClaimsAt, neighbourhood } from './graph.js';
import { memoryHealth } from './health.js';
import { enqueueHostJob, getJob } from './jobs.js';
import { listMemories } from './listing.js';
import { type EngineMaintenance, previewMaintenance, runMaintenance } from './maintenance.js';
import { forget, history, modify, readMemory, recallMemories, recover, rememberAll, rememberOne } from './memories.js';
import type {
  EngineDocuments,
  EngineImports,
  EngineJobs,
  EngineRepairs,
  EngineTranscripts,
  MemoryEngine,
} from './memory-engine.js';
import { createNoteSchemas } from './note-schemas.js';
import { searchNotes } from './note-search.js';
import { type EngineNotes, getNote, listNotes, noteHistory, transitionNote, updateNoteFields } from './notes.js';
import { openEngine } from './open-engine.js';
import type { MemoryEngineOptions } from './options.js';
import {
  categoryHistory,
  categoryObjects,
  createCategory,
  getCategory,
  linkObject,
  listCategories,
  objectCategories,
  unlinkObject,
  updateCategory,
} from './registry.js';
import type { EngineRegistry } from './registry-api.js';
import { completeSession, createNoteFiled } from './registry-autolink.js';
import { deleteCategory, mergeCategories, previewDelete } from './registry-delete.js';
import { notesPort } from './steward/notes-port.js';
import { createSteward, type EngineSteward } from './steward/steward.js';
import { type EngineTelemetry, listTelemetry, purgeTelemetry } from './telemetry.js';
import { createToken, type EngineTokens, listTokens, revokeToken, verifyToken } from './tokens.js';
import { describeRecall, spanned } from './tracing.js';

/**
 * Creates an engine on SQLite. Runs migrations on open; does no other work until called.
 *
 * @example
 * ```ts
 * await using engine = await createMemoryEngine({ database: { path: 'memory.db' } });
 * await engine.remember({ agentId: 'bot', content: 'Alice prefers tea', type: 'preference' });
 * const { results } = await engine.recall({ agentId: 'bot', query: 'what does Alice drink? tea' });
 * ```
 */
export async function createMemoryEngine(options: MemoryEngineOptions): Promise<MemoryEngine> {
  return bindEngine(await openEngine(options));
}

/** The public object: each method a guarded call of a module-level operation on the context. */
function bindEngine(ctx: EngineContext): MemoryEngine {
  const { jobs, background } = ctx;
  const close = (): Promise<void> => closeEngine(ctx);
  const nc = { ctx, schemas: createNoteSchemas(ctx.config) };
  const notes = Object.freeze({
    create: (input) => call(ctx, () => createNoteFiled(nc, input)),
    update: (input) => call(ctx, () => updateNoteFields(nc, input)),
    resolve: (input) => call(ctx, () => transitionNote(nc, input, 'resolve')),
    archive: (input) => call(ctx, () => transitionNote(nc, input, 'archive')),
    get: (input) => call(ctx, () => getNote(nc, input)),
    list: (input) => call(ctx, () => listNotes(nc, input)),
    search: (input) => call(ctx, () => searchNotes(nc, input)),
    history: (input) => call(ctx, () => noteHistory(nc, input)),
  } satisfies EngineNotes);
  const steward = createSteward(ctx, notesPort(notes));
  return Object.freeze({
    config: ctx.config,
    vector: ctx.vector,
    remember: spanned(ctx.tracer, 'memory.remember', (input) => call(ctx, () => rememberOne(ctx, input))),
    rememberMany: spanned(ctx.tracer, 'memory.remember_many', (input) => call(ctx, () => rememberAll(ctx, input))),
    getMemory: (input) => call(ctx, () => readMemory(ctx, input)),
    modify: (input) => call(ctx, () => modify(ctx, input)),
    forget: (input) => call(ctx, () => forget(ctx, input)),
    recover: (input) => call(ctx, () => recover(ctx, input)),
    history: (input) => call(ctx, () => history(ctx, input)),
    // One implementation for every input: the result type follows the input's `include`.
    recall: spanned(
      ctx.tracer,
      'memory.recall',
      (input: unknown) => call(ctx, () => recallMemories(ctx, input)),
      describeRecall,
    ) as MemoryEngine['recall'],
    memoryHead: (input) => call(ctx, () => memoryHead(ctx, input)),
    list: (input) => call(ctx, () => listMemories(ctx, input)),
    health: (input) => call(ctx, () => memoryHealth(ctx, input)),
    erase: (input) => call(ctx, () => eraseScope(ctx, input)),
    export: (input) => {
      assertOpen(ctx);
      return exportScope(ctx, input);
    },
    maintenance: Object.freeze({
      preview: () => call(ctx, () => previewMaintenance(ctx)),
      run: (input) => call(ctx, () => runMaintenance(ctx, input)),
      reembed: (input) => call(ctx, () => reembed(ctx, input)),
    } satisfies EngineMaintenance),
    registry: Object.freeze({
      list: (input) => call(ctx, () => listCategories(ctx, input)),
      create: (input) => call(ctx, () => createCategory(ctx, input)),
      get: (input) => call(ctx, () => getCategory(ctx, input)),
      update: (input) => call(ctx, () => updateCategory(ctx, input)),
      link: (input) => call(ctx, () => linkObject(ctx, input)),
      unlink: (input) => call(ctx, () => unlinkObject(ctx, input)),
      objects: (input) => call(ctx, () => categoryObjects(ctx, input)),
      categoriesOf: (input) => call(ctx, () => objectCategories(ctx, input)),
      deletePreview: (input) => call(ctx, () => previewDelete(ctx, input)),
      delete: (input) => call(ctx, () => deleteCategory(nc, input)),
      merge: (input) => call(ctx, () => mergeCategories(ctx, input)),
      history: (input) => call(ctx, () => categoryHistory(ctx, input)),
    } satisfies EngineRegistry),
    dreaming: Object.freeze({
      apply: (input) => call(ctx, () => applyOperations(ctx, input)),
      runPass: (input) => call(ctx, () => runPass(ctx, input)),
      claimsAsOf: (input) => call(ctx, () => claimsAt(ctx, input)),
      passes: Object.freeze({
        list: (input) => call(ctx, () => listPasses(ctx, input)),
        get: (input) => call(ctx, () => getPass(ctx, input)),
      }),
      provenance: (input) => call(ctx, () => provenance(ctx, input)),
      attention: (input) => call(ctx, () => attention(ctx, input)),
      proposals: Object.freeze({
        list: (input) => call(ctx, () => listProposalPage(ctx, input)),
        get: (input) => call(ctx, () => getProposal(ctx, input)),
        accept: (input) => call(ctx, () => accept(ctx, input)),
        reject: (input) => call(ctx, () => reject(ctx, input)),
      }),
      revert: (input) => call(ctx, () => revert(ctx, input)),
    } satisfies EngineDreaming),
    embeddingMap: (input) => call(ctx, () => embeddingMap(ctx, input)),
    graph: Object.freeze({
      entities: (input) => call(ctx, () => entities(ctx, input)),
      entity: (input) => call(ctx, () => entity(ctx, input)),
      neighbourhood: (input) => call(ctx, () => neighbourhood(ctx, input)),
      claimsAsOf: (input) => call(ctx, () => graphClaimsAt(ctx, input)),
    } satisfies EngineGraph),
    notes,
    telemetry: Object.freeze({
      list: (input) => call(ctx, () => listTelemetry(ctx, input)),
      purge: (input) => call(ctx, () => purgeTelemetry(ctx, input)),
    } satisfies EngineTelemetry),
    start: () => call(ctx, () => background.start()),
    runDue: () => call(ctx, () => background.runDue()),
    diagnostics: () => call(ctx, () => diagnostics(ctx)),
    repair: Object.freeze({
      requeueDead: (filter) => call(ctx, () => jobs.requeueDead(filter)),
      releaseStale: (filter) => call(ctx, () => jobs.releaseStale(filter)),
      cancel: (filter) => call(ctx, () => jobs.cancel(filter)),
      prune: (opts) => call(ctx, () => jobs.prune(opts)),
      reapExpiredLeases: () => call(ctx, () => jobs.reapExpiredLeases()),
    } satisfies EngineRepairs),
    jobs: Object.freeze({
      enqueue: (input) => call(ctx, () => enqueueHostJob(ctx, input)),
      get: (input) => call(ctx, () => getJob(ctx, input)),
      registerHandler: (registration) => {
        assertOpen(ctx);
        background.register(registration);
      },
    } satisfies EngineJobs),
    transcripts: Object.freeze({
      append: (input) => call(ctx, () => ctx.transcripts.append(input)),
      complete: (input) => call(ctx, () => completeSession(ctx, input)),
      get: (input) => call(ctx, () => ctx.transcripts.get(input)),
      list: (input) => call(ctx, () => ctx.transcripts.list(input)),
      search: (input) => call(ctx, () => ctx.transcripts.search(input)),
    } satisfies EngineTranscripts),
    documents: Object.freeze({
      add: (input) =>
        call(ctx, () => {
          const { signal, rest } = takeSignal(input, 'documents.add');
          throwIfAborted(signal, 'documents.add');
          return ctx.documents.add(rest);
        }),
      get: (input) => call(ctx, () => ctx.documents.get(input)),
      list: (input) => call(ctx, () => ctx.documents.list(input)),
      delete: (input) => call(ctx, () => ctx.documents.delete(input)),
      retry: (input) => call(ctx, () => ctx.documents.retry(input)),
      search: (input) => call(ctx, () => ctx.searchDocuments(input)),
      conversions: (input) => call(ctx, () => ctx.documents.conversions(input)),
    } satisfies EngineDocuments),
    connectors: engineConnectors(ctx, ctx.connectors),
    imports: Object.freeze({
      start: (input) => call(ctx, () => ctx.imports.start(input)),
      status: (input) => call(ctx, () => ctx.imports.status(input)),
      records: (input) => call(ctx, () => ctx.imports.records(input)),
      pause: (input) => call(ctx, () => ctx.imports.pause(input)),
      resume: (input) => call(ctx, () => ctx.imports.resume(input)),
      cancel: (input) => call(ctx, () => ctx.imports.cancel(input)),
      removeSource: (input) => call(ctx, () => ctx.imports.removeSource(input)),
    } satisfies EngineImports),
    steward: Object.freeze({
      registerResolver: (resolver) => {
        assertOpen(ctx);
        steward.registerResolver(resolver);
      },
      resolve: (input) => call(ctx, () => steward.resolve(input)),
      recall: (input) => call(ctx, () => steward.recall(input)),
      consolidate: (input) => call(ctx, () => steward.consolidate(input)),
      format: (recall, options) => steward.format(recall, options),
    } satisfies EngineSteward),
    tokens: Object.freeze({
      create: (input) => call(ctx, () => createToken(ctx, input)),
      list: (input) => call(ctx, () => listTokens(ctx, input)),
      revoke: (input) => call(ctx, () => revokeToken(ctx, input)),
      verify: (input) => call(ctx, () => verifyToken(ctx, input)),
    } satisfies EngineTokens),
    close,
    [Symbol.asyncDispose]: close,
  } satisfies MemoryEngine);
}
