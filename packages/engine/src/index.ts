export type {
  Clock,
  EmbeddingProvider,
  FieldsFirstLogger,
  IdGenerator,
  LlmProvider,
  Logger,
  ManualClock,
  ManualScheduler,
  MemoryConfig,
  MemoryConfigInput,
  MemoryErrorCode,
  MemoryId,
  RandomSource,
  Scheduler,
  TraceAttributes,
  Tracer,
  TraceSpan,
} from '@memory/core';
export {
  createManualClock,
  createManualScheduler,
  createSeededRandom,
  createSequentialIds,
  defaultConfig,
  isMemoryError,
  MEMORY_ERROR_CODES,
  MemoryError,
  memoryConfigSchema,
  pinoLogger,
  resolveConfig,
  TransactionBoundaryError,
} from '@memory/core';
export type {
  AcceptProposalInput,
  AcceptResult,
  ApplyContext,
  ApplyResult,
  DreamingOperation,
  MemoryHead,
  PassInput,
  PassResult,
  RejectProposalInput,
  RevertAction,
  RevertConflict,
  RevertInput,
  RevertResult,
  RevertRow,
  RowChange,
} from '@memory/dreaming';
export type {
  AddDocumentInput,
  AppendInput,
  AppendResult,
  DocumentRef,
  DocumentView,
  ForgetResult,
  HistoryEntry,
  ImportCounters,
  ImportRecordView,
  ImportRef,
  ImportStatusView,
  LinkedEntity,
  ListDocumentsInput,
  ListImportRecordsInput,
  ListTranscriptsInput,
  Memory,
  RememberInput,
  RememberResult,
  ScopeInput,
  SearchTranscriptsInput,
  SessionInput,
  StartImportInput,
  Transcript,
  TranscriptSearchHit,
  TranscriptSummary,
  TranscriptTurn,
} from '@memory/ingest';
export type {
  EnqueueInput,
  EnqueueResult,
  Job,
  JobContext,
  JobHandler,
  JobStatus,
  JobTypeHealth,
  PruneOptions,
  PruneReport,
  ReapResult,
  RepairFilter,
  RepairReport,
  WorkerStatus,
} from '@memory/queue';
export { PermanentJobError, RetryJobError } from '@memory/queue';
export type {
  ChannelScores,
  DrillDown,
  FormatRecallOptions,
  LexicalPlan,
  NoteRecallResult,
  RecallExplanation,
  RecallInput,
  RecallItem,
  RecallKind,
  RecallResponse,
  RecallResult,
  RecallResultsOf,
  RecallTimings,
  RecallWindow,
  SessionExcerpt,
  VectorCompleteness,
  VectorCoverage,
  VectorSearchReport,
} from '@memory/recall';
export { formatRecall } from '@memory/recall';
export type {
  AspectView,
  AttentionView,
  ClaimAsOf,
  ClaimView,
  EmbeddingMigration,
  EntityView,
  LinkView,
  MaintenanceState,
  MemoryType,
  PurgeCounts,
  RecallTelemetryRow,
  RowImage,
  RowKind,
  VectorSupport,
} from '@memory/store';
export type { Abortable } from './abort.js';
export type { HandlerRegistration } from './background.js';
export { RESERVED_JOB_TYPES } from './background.js';
export type { EngineDiagnostics } from './diagnostics.js';
export type { ClaimsAsOfInput, DreamingApplyInput, EngineDreaming } from './dreaming.js';
export type {
  ListAttentionInput,
  ListPassesInput,
  PassDetail,
  PassRef,
  PassSummary,
  ProvenanceEntry,
  ProvenanceInput,
} from './dreaming-reads.js';
export type { ListProposalsInput, Proposal, ProposalRef } from './dreaming-steering.js';
export type { EmbeddingMap, EmbeddingMapInput, MapPoint } from './embedding-map.js';
export type { EmbeddingStatus, ReembedRequest } from './embedding-migration.js';
export { createMemoryEngine } from './engine.js';
export type { EraseInput, EraseResult } from './erase.js';
export type { ExportInput } from './export.js';
export type {
  Citation,
  ClaimDetail,
  EngineGraph,
  EntityDetail,
  EntityInput,
  ListEntitiesInput,
  Neighbourhood,
  NeighbourhoodInput,
} from './graph.js';
export type { MemoryHealth } from './health.js';
export type { JobRef } from './jobs.js';
export type { ListMemoriesInput, MemoryPage } from './listing.js';
export type {
  EngineMaintenance,
  MaintenancePreview,
  MaintenanceReport,
  MaintenanceTask,
} from './maintenance.js';
export type {
  ForgetInput,
  GetMemoryInput,
  MemoryRef,
  ModifyInput,
  RecoverInput,
  RememberManyInput,
  RememberManyMemory,
} from './memories.js';
export type {
  EngineDocuments,
  EngineImports,
  EngineJobs,
  EngineRepairs,
  EngineTranscripts,
  MemoryEngine,
} from './memory-engine.js';
export type {
  CreateNoteInput,
  ListNotesInput,
  NoteRef,
  NoteTransitionInput,
  SearchNotesInput,
  UpdateNoteInput,
} from './note-schemas.js';
export type { NoteSearchHit } from './note-search.js';
export type { Note, NoteEvent, NoteLinkedEntity, NoteStatus } from './note-view.js';
export type { EngineNotes, NotePage } from './notes.js';
export type { DatabaseOption, MemoryEngineOptions, PostgresDatabaseOption } from './options.js';
export type { Page } from './paging.js';
export type { CategoryDetail } from './registry.js';
export type {
  CategoryObjectsInput,
  CategoryRef,
  CreateCategoryInput,
  DeleteCategoryInput,
  EngineRegistry,
  LinkInput,
  MergeCategoryInput,
  RegistryAudit,
  UpdateCategoryInput,
} from './registry-api.js';
export type { AutoLinkResult } from './registry-autolink.js';
export type { RefusedProposal } from './registry-classify.js';
export type { CategoryDeletePlan, CategoryMergeResult, KeptReason } from './registry-delete.js';
export { categoryNameProblem, normalizeCategoryName } from './registry-names.js';
export type {
  CategoryObject,
  CategoryObjectKind,
  CategoryObjectState,
  LinkedCategoryObject,
} from './registry-objects.js';
export type { Category, CategoryEvent, CategorySummary } from './registry-views.js';
export type {
  ConsolidateInput,
  ConsolidationResult,
  StewardMemoryWrite,
} from './steward/consolidate.js';
export { TASK_OUTCOMES } from './steward/consolidate.js';
export type { FormatTaskRecallOptions } from './steward/format-task-recall.js';
export { formatTaskRecall, HYPOTHESIS_INSTRUCTION } from './steward/format-task-recall.js';
export type { RejectedProposal, RejectionReason, StewardMemoryKind } from './steward/memory-proposals.js';
export { STEWARD_MEMORY_KINDS } from './steward/memory-proposals.js';
export type { MiniReflection, NoteChange } from './steward/mini-reflection.js';
export type { ResolverInput, ResolverKind, ResolverMatch, StewardResolver } from './steward/resolvers.js';
export { RESOLVER_KINDS } from './steward/resolvers.js';
export type { EngineSteward } from './steward/steward.js';
export type { EntityRef, ResolvedEntity, TaskContext } from './steward/task-context.js';
export type { TaskDrillDown, TaskRecall, TaskRecallItem } from './steward/task-recall.js';
export type { EngineTelemetry, TelemetryListInput, TelemetryPurgeInput } from './telemetry.js';
export type {
  ApiToken,
  CreatedApiToken,
  CreateTokenInput,
  EngineTokens,
  ListTokensInput,
  TokenPermission,
} from './tokens.js';
export { TOKEN_PERMISSIONS } from './tokens.js';
