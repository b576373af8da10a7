import type { MemoryConfig } from '@memory/core';
import type { MemoryHead } from '@memory/dreaming';
import type {
  AddDocumentInput,
  AppendInput,
  AppendResult,
  DocumentConversionView,
  DocumentRef,
  DocumentSearchHit,
  DocumentView,
  ForgetResult,
  HistoryEntry,
  ImportRecordView,
  ImportRef,
  ImportStatusView,
  ListDocumentsInput,
  ListImportRecordsInput,
  ListTranscriptsInput,
  Memory,
  RegisteredSource,
  RememberInput,
  RememberResult,
  ScopeInput,
  SearchDocumentsInput,
  SearchTranscriptsInput,
  SessionInput,
  StartImportInput,
  Transcript,
  TranscriptSearchHit,
  TranscriptSummary,
} from '@memory/ingest';
import type {
  EnqueueInput,
  EnqueueResult,
  Job,
  PruneOptions,
  PruneReport,
  ReapResult,
  RepairFilter,
  RepairReport,
} from '@memory/queue';
import type { RecallInput, RecallResponse, RecallResultsOf } from '@memory/recall';
import type { VectorSupport } from '@memory/store';
import type { Abortable } from './abort.js';
import type { HandlerRegistration } from './background.js';
import type { EngineConnectors } from './connectors.js';
import type { EngineDiagnostics } from './diagnostics.js';
import type { EngineDreaming } from './dreaming.js';
import type { EmbeddingMap, EmbeddingMapInput } from './embedding-map.js';
import type { EraseInput, EraseResult } from './erase.js';
import type { ExportInput } from './export.js';
import type { EngineGraph } from './graph.js';
import type { MemoryHealth } from './health.js';
import type { JobRef } from './jobs.js';
import type { ListMemoriesInput, MemoryPage } from './listing.js';
import type { EngineMaintenance } from './maintenance.js';
import type {
  ForgetInput,
  GetMemoryInput,
  MemoryRef,
  ModifyInput,
  RecoverInput,
  RememberManyInput,
} from './memories.js';
import type { EngineNotes } from './notes.js';
import type { EngineRegistry } from './registry-api.js';
import type { EngineSteward } from './steward/steward.js';
import type { EngineTelemetry } from './telemetry.js';
import type { EngineTokens } from './tokens.js';

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
  /**
   * Completes a session (also done automatically after `transcripts.idleCompleteMs` without
   * appends). A session completed by this call is queued for registry auto-linking.
   */
  complete(input: SessionInput): Promise<{ completed: boolean }>;
  /** A session with its turns, or undefined outside its scope. */
  get(input: SessionInput): Promise<Transcript | undefined>;
  list(input: ListTranscriptsInput): Promise<TranscriptSummary[]>;
  /** BM25 over turns of completed sessions (or all with `completedOnly: false`). */
  search(input: SearchTranscriptsInput): Promise<TranscriptSearchHit[]>;
}

/** Documents: URLs or raw content, chunked into `document_chunk` memories by a background job. */
export interface EngineDocuments {
  /**
   * Registers a document (status `queued`) and queues its ingest; runs after `start()` or on
   * `runDue()`. The signal is checked before registering. A source the scope already holds (same
   * URL, same `path`, or the same bytes given with neither) is not added twice: unchanged bytes
   * (same extractor version) are a no-op (`outcome: 'unchanged'`, `jobId: null`); changed ones
   * queue that document again (`'updated'`), and its ingest replaces its chunks, keeping the
   * previous conversion in `conversions(...)`.
   */
  add(input: AddDocumentInput & Abortable): Promise<RegisteredSource>;
  /**
   * Workspace search: BM25 over the scope's document chunks, narrowed by connector, media type or
   * path prefix; each hit carries its document (title, path) and location (page, section).
   */
  search(input: SearchDocumentsInput): Promise<DocumentSearchHit[]>;
  /** A document's earlier conversions (its lineage before its source last changed), oldest first. */
  conversions(input: DocumentRef): Promise<DocumentConversionView[]>;
  /** The document with its `status` and `error`, or undefined outside its scope. */
  get(input: DocumentRef): Promise<DocumentView | undefined>;
  list(input: ListDocumentsInput): Promise<DocumentView[]>;
  /** Stops any ingest in flight, cancels its job, and forgets chunk memories no other document shares. */
  delete(input: DocumentRef): Promise<{ deleted: boolean; forgottenChunks: number }>;
  /**
   * Queues a `failed` document's ingest again (its `error` says why it failed: a fetch refused, an
   * ingest job that died). Chunks already indexed are not indexed twice. `NOT_FOUND` outside its
   * scope, `CONFLICT` unless the document is `failed`.
   */
  retry(input: DocumentRef): Promise<{ id: string; jobId: string }>;
}

/**
 * Durable import of signet-export v1 JSONL transcripts into one agent scope. Every call but `start`
 * takes `{ agentId, jobId }`: another scope's import is answered exactly as one that does not exist
 * (`NOT_FOUND`, or undefined from `status`).
 */
export interface EngineImports {
  /**
   * Records the file (a regular file inside `imports.allowedDirectories` or the spool directory; a
   * stream is spooled first, stopping if `signal` aborts) and queues the import (runs after
   * `start()` or on `runDue()`).
   */
  start(input: StartImportInput): Promise<{ jobId: string }>;
  /** Status and counters (`total = imported + duplicate + rejected + pending`), or undefined. */
  status(input: ImportRef): Promise<ImportStatusView | undefined>;
  /** Per-line outcomes, in line order. */
  records(input: ListImportRecordsInput): Promise<ImportRecordView[]>;
  pause(input: ImportRef): Promise<ImportStatusView>;
  /** Continues a `paused` or `failed` import (its `error` says why it failed) from its checkpoint. */
  resume(input: ImportRef): Promise<ImportStatusView>;
  cancel(input: ImportRef): Promise<ImportStatusView>;
  /** Purges the sessions an import created (and their index entries); keeps tombstones. */
  removeSource(input: ImportRef): Promise<{ removedSessions: number }>;
}

/** Host jobs on the engine's durable queue. */
export interface EngineJobs {
  /**
   * Adds a job; a pending or leased job with the same type, scope and `dedupKey` is returned
   * instead. With `agentId` the job belongs to that agent's scope. The engine's own job types are
   * reserved (`INVALID_INPUT`).
   */
  enqueue(input: EnqueueInput): Promise<EnqueueResult>;
  /**
   * A job in the given scope (`agentId`, or none for unscoped host jobs), or undefined: jobs of
   * other scopes are answered like missing ones. The engine's own jobs (a document's ingest, an
   * import) come back with `payload` and `result` null.
   */
  get(input: JobRef): Promise<Job | undefined>;
  /**
   * Runs `handler` for these job types in the background (after `start()`, or on `runDue()`).
   * The engine's own job types are reserved.
   */
  registerHandler(registration: HandlerRegistration): void;
}

/**
 * The engine a host holds. Every method takes one object (with `agentId` when it is scoped to an
 * agent) and fails with `ENGINE_CLOSED` after `close()`. Long calls take an optional `signal`; an
 * aborted one rejects with a `MemoryError` whose `details.reason` is `'aborted'`. Supports
 * `await using` (disposal closes the engine).
 */
export interface MemoryEngine extends AsyncDisposable {
  /** The resolved, frozen configuration. */
  readonly config: MemoryConfig;
  /** Whether sqlite-vec is loaded (and why not). */
  readonly vector: VectorSupport;
  /** Stores a memory; the same content in the same agent scope returns the existing id (`deduped: true`). */
  remember(input: RememberInput): Promise<RememberResult>;
  /**
   * Stores many memories for one agent in bounded transactions; results in input order. Validates
   * all inputs first (nothing is written if one is invalid). The signal is checked before each
   * batch; batches already committed stay (remembering them again returns the same ids).
   */
  rememberMany(input: RememberManyInput): Promise<RememberResult[]>;
  /** A memory in the agent's scope, or undefined. Forgotten memories only with `includeDeleted`. */
  getMemory(input: GetMemoryInput): Promise<Memory | undefined>;
  /** Changes content, importance, tags or pinned; records history. */
  modify(input: ModifyInput): Promise<Memory>;
  /** Soft-deletes; pinned memories need `force`. Recoverable within `retention.recoverWindowDays`. */
  forget(input: ForgetInput): Promise<ForgetResult>;
  /** Restores a forgotten memory. */
  recover(input: RecoverInput): Promise<Memory>;
  /** The memory's audit trail, oldest first. */
  history(input: MemoryRef): Promise<HistoryEntry[]>;
  /**
   * Hybrid recall within one agent's scope: lexical (BM25), semantic (with an embedder), prospective
   * hints, knowledge-graph traversal and host-linked channels, fused, dampened and tiered. The
   * signal is checked before recall starts. With `include: ['memories', 'notes']` working notes
   * are ranked and tiered with the memories, each result saying its `kind`.
   */
  recall<I extends RecallInput & Abortable>(input: I): Promise<RecallResponse<RecallResultsOf<I>>>;
  readonly telemetry: EngineTelemetry;
  /** Working notes: the shorter-lived second tier (`active` → `resolved` → `archived`), audited. */
  readonly notes: EngineNotes;
  readonly dreaming: EngineDreaming;
  /** The agent's knowledge graph as Dreaming wrote it, read-only. */
  readonly graph: EngineGraph;
  /**
   * The agent's newest memories (`limit`, default 2000) projected to 2-D with UMAP from their
   * vectors, with type, category and a preview of each; cached per agent and embedder model and
   * computed again when the vectors change. Empty (with a `reason`) without an embedder. Up to
   * 5,000 points the whole computation runs in slices with the event loop free between them; above
   * that, UMAP's approximate neighbour search is one synchronous call (seconds): compute such maps
   * where a stall is fine, such as the inspector's own process.
   */
  embeddingMap(input: EmbeddingMapInput): Promise<EmbeddingMap>;
  /**
   * The agent's MEMORY.md head: a short curated summary a content pass maintains, every entry
   * backed by an exact quote. Undefined until a pass writes one; the host decides whether to write
   * it to a file.
   */
  memoryHead(input: ScopeInput): Promise<MemoryHead | undefined>;
  /**
   * A page of the scope's memories, newest first (keyset-paged: pass `nextCursor` back as
   * `cursor`). Filters: `type`, `tags` (all of them), `since`/`until` (created_at), and
   * `includeForgotten` for forgotten and expired memories too.
   */
  list(input: ListMemoriesInput): Promise<MemoryPage>;
  /** The scope's memory health from index counts: cheap enough to call per request. */
  health(input: ScopeInput): Promise<MemoryHealth>;
  /**
   * Removes a whole agent scope from every table, in bounded transactions, and returns the rows
   * removed per table. Resumable: after a crash or an abort, calling it again continues (counts of
   * every run included). Deleted content is zeroed in the file (`secure_delete`) and the WAL is
   * truncated at the end.
   */
  erase(input: EraseInput): Promise<EraseResult>;
  /**
   * The scope as JSONL lines (format `memory-export` v1, see the README): memories with history,
   * transcripts, documents, the knowledge graph, working notes with their events and registry
   * categories with their links. `engine.imports.start` reads it back, into any scope of any file.
   * Iterate it (`for await`) or pipe it (`Readable.from(engine.export(...))`).
   */
  export(input: ExportInput): AsyncIterable<string>;
  /** Lifecycle maintenance: a dry run, and a run now (the engine's schedule runs it as jobs). */
  readonly maintenance: EngineMaintenance;
  /**
   * The entity registry: broad categories over memories, notes, documents, transcripts and host
   * objects, auto-linked by the LLM on create (`registry.autoLinkOnCreate`).
   */
  readonly registry: EngineRegistry;
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
  /** Sources kept in sync with the scope's documents: folders, or a host's own kinds. */
  readonly connectors: EngineConnectors;
  readonly imports: EngineImports;
  /**
   * The memory steward: host resolvers from task context to host objects, task recall in
   * confidence tiers, consolidation of finished tasks into durable memories and working notes.
   */
  readonly steward: EngineSteward;
  /** Scoped API tokens, stored hashed: what the HTTP surface and the CLI authenticate with. */
  readonly tokens: EngineTokens;
  /**
   * Stops background work (in-flight jobs are aborted, waited for up to `queue.closeDeadlineMs`,
   * and released), then closes the database if the engine opened it. Idempotent.
   */
  close(): Promise<void>;
  /** `await using engine = await createMemoryEngine(...)`: calls `close()` when the scope ends. */
  [Symbol.asyncDispose](): Promise<void>;
}
