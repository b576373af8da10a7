export { createMemoryEngine } from './engine.js';
export type { EngineDiagnostics, EngineDocuments, EngineDreaming, EngineImports, EngineJobs, EngineRepairs, EngineTelemetry, EngineTranscripts, MemoryEngine } from './engine.js';
export type { ApplyContext, ApplyResult, DreamingOperation, MemoryHead, PassInput, PassResult } from '@memory/dreaming';
export type { ClaimAsOf } from '@memory/store';
export { RESERVED_JOB_TYPES } from './background.js';
export type { HandlerRegistration } from './background.js';
export { PermanentJobError, RetryJobError } from '@memory/queue';
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
export type { DatabaseOption, MemoryEngineOptions } from './options.js';
export {
  MEMORY_ERROR_CODES,
  MemoryError,
  TransactionBoundaryError,
  createManualClock,
  createManualScheduler,
  createSeededRandom,
  createSequentialIds,
  defaultConfig,
  isMemoryError,
  memoryConfigSchema,
  resolveConfig,
} from '@memory/core';
export type {
  Clock,
  EmbeddingProvider,
  IdGenerator,
  LlmProvider,
  Logger,
  MemoryConfig,
  MemoryConfigInput,
  MemoryErrorCode,
  ManualClock,
  ManualScheduler,
  MemoryId,
  RandomSource,
  Scheduler,
} from '@memory/core';
export type {
  ImportCounters,
  ImportRecordView,
  ImportRef,
  ImportStatusView,
  ListImportRecordsInput,
  StartImportInput,
  AddDocumentInput,
  DocumentRef,
  DocumentView,
  ListDocumentsInput,
  AppendInput,
  AppendResult,
  ListTranscriptsInput,
  SearchTranscriptsInput,
  SessionInput,
  Transcript,
  TranscriptSearchHit,
  TranscriptSummary,
  TranscriptTurn,
  ForgetInput,
  ForgetResult,
  GetMemoryOptions,
  HistoryEntry,
  LinkedEntity,
  Memory,
  ModifyInput,
  RecoverInput,
  RememberInput,
  RememberResult,
} from '@memory/ingest';
export { formatRecall } from '@memory/recall';
export type {
  ChannelScores,
  DrillDown,
  FormatRecallOptions,
  LexicalPlan,
  RecallExplanation,
  RecallInput,
  RecallResponse,
  RecallResult,
  RecallTimings,
  SessionExcerpt,
  VectorCompleteness,
} from '@memory/recall';
export type { RecallTelemetryRow } from '@memory/store';
export type { MemoryType, VectorSupport } from '@memory/store';
