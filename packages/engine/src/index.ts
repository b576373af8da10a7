export { createMemoryEngine } from './engine.js';
export type { MemoryEngine } from './engine.js';
export type { DatabaseOption, MemoryEngineOptions } from './options.js';
export {
  MEMORY_ERROR_CODES,
  MemoryError,
  TransactionBoundaryError,
  createManualClock,
  createManualScheduler,
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
  MemoryId,
  Scheduler,
} from '@memory/core';
export type {
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
export type { ChannelScores, LexicalPlan, RecallInput, RecallResponse, RecallResult } from '@memory/recall';
export type { MemoryType, VectorSupport } from '@memory/store';
