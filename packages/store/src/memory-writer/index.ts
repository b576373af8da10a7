export { attachMemoryVector } from './attach-vector.js';
export { changeMemory, type MemoryChange, memoryNotFound } from './change-memory.js';
export type { ContentCause, MemoryAudit, MemoryVector, MemoryWriteDeps } from './context.js';
export {
  type CreatedMemory,
  createMemories,
  type NewMemory,
  type PreparedContent,
  prepareContent,
} from './create-memories.js';
export { linkMemoryToEntities, properNounCandidates } from './entity-mentions.js';
export { type ForgetRequest, forgetMemoryRecord, type RecoverRequest, recoverMemoryRecord } from './forget-memory.js';
