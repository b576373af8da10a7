export { STOP_WORDS } from '@memory/core';
export {
  bm25Score,
  buildFtsMatch,
  ftsTokens,
  queryTokens,
  quoteFtsToken,
  scopedMatch,
  scopeToken,
} from './fts-query.js';
export type { CheckpointResult } from './internal/checkpointer.js';
export type { RunResult } from './internal/sql.js';
export { queryBuilder, SqlExecutor } from './internal/sql.js';
export type { SqliteDatabase } from './internal/sqlite.js';
export { MIGRATIONS } from './migrations/index.js';
export type { Migration } from './migrations/migration.js';
export type { MigrationResult, MigrationStatus } from './migrations/runner.js';
export { migrationChecksum, runMigrations } from './migrations/runner.js';
export type { OpenStoreOptions, RawQuery, Store, WriteCallback } from './open-store.js';
export { openStore, raw } from './open-store.js';
export { markDerivedForReview } from './repositories/attention.js';
export type { DocumentRow } from './repositories/documents.js';
export {
  countDocumentMemories,
  exclusiveDocumentMemoryIds,
  findDocument,
  insertDocument,
  linkDocumentMemory,
  linkedChunkHashes,
  listDocuments,
  setDocumentStatus,
} from './repositories/documents.js';
export {
  blobToVector,
  countEmbeddings,
  ensureVectorIndex,
  signSketch,
  sketchBits,
  upsertEmbedding,
  VECTOR_TABLE,
} from './repositories/embeddings.js';
export {
  canonicalEntityName,
  insertAspect,
  insertClaim,
  insertDependency,
  insertEntity,
} from './repositories/entities.js';
export type { ClaimAsOf, GraphRowState } from './repositories/graph-reads.js';
export {
  activeClaimsForEntities,
  activeEntityByCanonicalName,
  attentionState,
  claimsAsOf,
  countActiveAspects,
  countActiveClaims,
  dependencyNeighbors,
  entitiesOfMemories,
  entityDegreePercentile,
  graphRowState,
  memoriesMentioning,
} from './repositories/graph-reads.js';
export { deleteHints, insertHints, listHints, searchHints } from './repositories/hints.js';
export { insertHistory, listHistory } from './repositories/history.js';
export type { ImportJobRow, ImportRecordRow, ImportStatus, RecordOutcome } from './repositories/imports.js';
export {
  findImportJob,
  importCounters,
  insertImportJob,
  inventoryRecord,
  listImportRecords,
  nextPendingRecords,
  settleRecord,
  tombstoneImportedTranscripts,
  updateImportJob,
} from './repositories/imports.js';
export type { LexicalHit } from './repositories/lexical-search.js';
export { searchMemoriesLexical } from './repositories/lexical-search.js';
export type { LinkRef } from './repositories/links.js';
export { findMemoryIdsByLink, replaceMemoryLinks } from './repositories/links.js';
export type { NewLiveMemory } from './repositories/memories.js';
export {
  findLiveMemoryIdByHash,
  findMemory,
  insertMemory,
  updateMemory,
} from './repositories/memories.js';
export type { MemoryCandidateRow, MemoryFilters } from './repositories/memory-filters.js';
export { MEMORY_CANDIDATE_COLUMNS, MEMORY_FILTERS_SQL, memoryFilterParams } from './repositories/memory-filters.js';
export type { EntityMatch } from './repositories/mentions.js';
export { agentHasEntities, insertMention, listMentions, matchEntitiesByName } from './repositories/mentions.js';
export {
  agentMemoryShare,
  claimCurrentness,
  countMemoryVectors,
  findLinkedMemories,
  knnMemoryVectors,
  memoryVectors,
  readMemoryCandidates,
  recentMemoryVectors,
  recordMemoryAccess,
  resolveLinkLabels,
  sessionTurns,
  vectorIndexState,
} from './repositories/recall-reads.js';
export type { RecallTelemetryRow } from './repositories/telemetry.js';
export { insertRecallTelemetry, listRecallTelemetry, purgeRecallTelemetry } from './repositories/telemetry.js';
export type { TranscriptHit, TranscriptSummaryRow } from './repositories/transcripts.js';
export {
  completeTranscript,
  deleteSourceTranscripts,
  findIdleTranscripts,
  findSessionKeyBySourceRecord,
  findTranscript,
  insertCompletedTranscript,
  insertTurn,
  listSourceTranscripts,
  listTranscripts,
  listTurns,
  searchTranscriptTurns,
  transcriptExists,
  upsertTranscript,
} from './repositories/transcripts.js';
export type { DatabaseSchema } from './schema/database.js';
export type { DocumentStatus } from './schema/documents.js';
export type { EntityRow, MentionRow } from './schema/graph.js';
export type {
  ActorType,
  HistoryEvent,
  MemoryHistoryRow,
  MemoryRow,
  MemoryRowUpdate,
  MemoryType,
  NewMemoryRow,
} from './schema/memories.js';
export { ACTOR_TYPES, HISTORY_EVENTS, MEMORY_TYPES } from './schema/memories.js';
export type { JobStatus, MemoryJobRow, MemoryJobsTable } from './schema/queue.js';
export type { TranscriptRole, TranscriptRow, TranscriptTurnRow } from './schema/transcripts.js';
export { TransactionGuard } from './transaction-guard.js';
export type { VectorSupport } from './vector-extension.js';
