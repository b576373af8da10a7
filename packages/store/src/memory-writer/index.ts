export { attachMemoryVector, attachMemoryVectorProgram } from './attach-vector.js';
export { changeMemory, changeMemoryProgram, type MemoryChange, memoryNotFound } from './change-memory.js';
export {
  type ContentCause,
  type LiveContent,
  type MemoryAudit,
  type MemoryVector,
  type MemoryWriteDeps,
  memoryScopeLockKeys,
  POSTGRES_WRITER,
  type WriterTarget,
} from './context.js';
export {
  type CreatedMemory,
  createMemories,
  createMemoriesProgram,
  type NewMemory,
  type PreparedContent,
  prepareContent,
} from './create-memories.js';
export { linkMemoryToEntities, linkMemoryToEntitiesProgram, properNounCandidates } from './entity-mentions.js';
export {
  type ForgetRequest,
  forgetMemoryProgram,
  forgetMemoryRecord,
  type RecoverRequest,
  recoverMemoryProgram,
  recoverMemoryRecord,
} from './forget-memory.js';
export {
  isSqliteStore,
  runSqliteWriterProgram,
  runWriterProgram,
  type WriterProgramScopes,
} from './run-writer.js';
