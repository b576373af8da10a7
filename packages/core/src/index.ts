export { abortedError, throwIfAborted } from './abort.js';
export type { Clock, ManualClock } from './clock.js';
export { createManualClock, systemClock } from './clock.js';
export type { MemoryConfig, MemoryConfigInput } from './config.js';
export { defaultConfig, memoryConfigSchema, resolveConfig } from './config.js';
export { toVector } from './embedding-output.js';
export type { ErrorDetails, MemoryErrorCode, MemoryErrorOptions } from './errors.js';
export { isMemoryError, MEMORY_ERROR_CODES, MemoryError, TransactionBoundaryError } from './errors.js';
export type { Brand, DocumentId, EntityId, HistoryId, IdGenerator, JobId, MemoryId } from './ids.js';
export { createIdGenerator, createSequentialIds, isWellFormedId } from './ids.js';
export type { FieldsFirstLogger, LogFields, Logger } from './logger.js';
export { pinoLogger, silentLogger } from './logger.js';
export { parseLenientJson, stripThinkBlocks } from './model-output.js';
export { parseTime, TIME_RANGE, timeProblem } from './parse-time.js';
export type {
  ChatMessage,
  EmbeddingProvider,
  EmbedOptions,
  GenerateRequest,
  GenerateResult,
  LlmProvider,
  ToolCall,
  ToolSpec,
  Usage,
} from './providers.js';
export type { RandomSource } from './random.js';
export { createCryptoRandom, createSeededRandom, cryptoRandom } from './random.js';
export type { ManualScheduler, ScheduledHandle, ScheduledTask, Scheduler } from './scheduler.js';
export { createManualScheduler, createTimerScheduler } from './scheduler.js';
export { STOP_WORDS } from './stop-words.js';
export {
  contentHash,
  foldStoredForHash,
  hashNormalized,
  isWellFormedText,
  normalizeForHash,
  normalizeForStorage,
  utf8Length,
} from './text.js';
export {
  contentProblem,
  hasMeaningfulText,
  hasVisibleText,
  identifierProblem,
  labelProblem,
} from './text-rules.js';
export { createTimeSlicer, type TimeSlicer } from './time-slicer.js';
export type { TraceAttributes, Tracer, TraceSpan } from './tracing.js';
export {
  agentIdSchema,
  contentSchema,
  idSchema,
  invalidInput,
  isValidSessionKey,
  keySchema,
  labelSchema,
  linkedEntitiesSchema,
  parseInput,
  sessionKeySchema,
  tagsSchema,
  timeSchema,
  UNSUPPORTED_VERSION,
  versionProblem,
} from './validation.js';
export { yieldToEventLoop } from './yield.js';
