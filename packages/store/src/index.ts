export { STOP_WORDS } from '@memory/core';
export type { QueryTerms, TermMatching } from './fts-query.js';
export { bm25Score, ftsTokens, queryTerms } from './fts-query.js';

export type { SqlExecutor } from './internal/sql.js';
export type { SqliteDatabase } from './internal/sqlite.js';
// The one memory writer: every path that creates, changes, forgets or recovers memories uses it.
// Each function has a program form (`...Program`, issue 18) that runs on either dialect: the
// synchronous function runs it on SQLite; a PostgreSQL store runs it with `store.write(() => program)`.
export {
  attachMemoryVector,
  attachMemoryVectorProgram,
  type ContentCause,
  type CreatedMemory,
  changeMemory,
  changeMemoryProgram,
  createMemories,
  createMemoriesProgram,
  type ForgetRequest,
  forgetMemoryProgram,
  forgetMemoryRecord,
  type LiveContent,
  type MemoryAudit,
  type MemoryChange,
  type MemoryVector,
  type MemoryWriteDeps,
  memoryNotFound,
  memoryScopeLockKeys,
  type NewMemory,
  POSTGRES_WRITER,
  type PreparedContent,
  prepareContent,
  type RecoverRequest,
  recoverMemoryProgram,
  recoverMemoryRecord,
  type WriterTarget,
} from './memory-writer/index.js';
export type { OpenStoreOptions, Store, WriteCallback } from './open-store.js';
export { openStore } from './open-store.js';
// Either dialect: programs run through `store.db` (see `program/database.ts`).
export type { Database, PortableStore, WriteOptions } from './program/database.js';
export type { Dialect, Program } from './program/program.js';
export { runSqliteProgram } from './program/run-sqlite.js';
// Scoped API tokens (issue 16): the HTTP surface verifies bearer tokens against these rows.
export {
  findApiToken,
  findApiTokenProgram,
  insertApiToken,
  insertApiTokenProgram,
  listApiTokens,
  listApiTokensProgram,
  revokeApiToken,
  revokeApiTokenProgram,
} from './repositories/api-tokens.js';
export { archiveOrphanEntities, pruneColdCopies, pruneJobArchive } from './repositories/archives.js';
// --- Dreaming's SQL, moved into the store (issue 10): graph writes, provenance, proposals,
// attention, evidence, passes, the MEMORY.md head, and the reads behind Dreaming's checks and tools.
// --- end of Dreaming's block
// --- Dreaming's review side (issue 19): graph inspection, passes, provenance with row images,
// proposals' decisions and reverts.
export type { AttentionView, OpenAttention } from './repositories/attention.js';
export {
  attentionState,
  countOpenAttention,
  declineAttention,
  findOpenAttentionId,
  listAttention,
  listOpenAttention,
  markDerivedForReview,
  openAttention,
  resolveAttentionAbout,
} from './repositories/attention.js';
// Conflict detection's key index: the checked kinds' text in seq order, the file's data version and
// the memories other connections changed (from memory_history).
export {
  type ChangedMemory,
  type ConflictSourceRow,
  conflictSourcesAfter,
  conflictSourcesOf,
  dataVersion,
  historyMark,
  memoryChangesBetween,
} from './repositories/conflict-reads.js';
export type { ConnectorItemRow, ConnectorRow } from './repositories/connectors.js';
export {
  countConnectorDocuments,
  countConnectorItems,
  deleteConnector,
  deleteConnectorItem,
  findConnector,
  findConnectorItem,
  insertConnector,
  listConnectors,
  liveConnectorDocumentIds,
  markConnectorItemSeen,
  renameConnectorItem,
  unseenConnectorItems,
  unseenItemsWithHash,
  updateConnector,
  upsertConnectorItem,
} from './repositories/connectors.js';
export type { ChunkSourceRow, DocumentConversionRow } from './repositories/document-lineage.js';
export {
  beginNextConversion,
  countCurrentChunkLinks,
  findChunkSources,
  findDocumentBySource,
  linkChunk,
  linkedChunkMemories,
  listDocumentConversions,
  moveDocumentSource,
  requeueDocumentSource,
  retiredChunkMemoryIds,
} from './repositories/document-lineage.js';
export type { DocumentChunkHit, DocumentSearchFilters } from './repositories/document-search.js';
export { searchDocumentChunks } from './repositories/document-search.js';
export type { DocumentRow } from './repositories/documents.js';
export {
  countDocumentParts,
  deleteDocumentParts,
  exclusiveDocumentMemoryIds,
  failDocumentInProgress,
  findDocument,
  findDocumentPart,
  findDocumentStatus,
  insertDocument,
  insertDocumentPart,
  listDocuments,
  setDocumentStatus,
} from './repositories/documents.js';
export type { EvidenceSourceKind, EvidenceSourceRow, UndeliveredSource } from './repositories/dreaming-evidence.js';
export {
  evidenceRendering,
  excludeEvidenceSource,
  findEvidenceSource,
  insertEvidenceReview,
  undeliveredEvidence,
  undeliveredEvidenceChars,
  upsertDeliveredOffset,
} from './repositories/dreaming-evidence.js';
export type { DreamingPassRecord, DreamingPassView, DreamingStateView } from './repositories/dreaming-passes.js';
export {
  dreamingCandidateAgents,
  findDreamingPass,
  findDreamingState,
  findRunbookNotes,
  insertDreamingPass,
  insertDreamingToolCall,
  listDreamingPasses,
  listDreamingToolCalls,
  recordPassOutcome,
  saveRunbookNotes,
} from './repositories/dreaming-passes.js';
export type { EmbedderIdentity, EmbeddingMigration } from './repositories/embedder-identities.js';
export {
  clearReembedRequest,
  finishEmbeddingMigrations,
  latestEmbeddingMigration,
  listEmbedderIdentities,
  reembedRequests,
  requestReembed,
  useEmbedderIdentity,
} from './repositories/embedder-identities.js';
export { blobToVector } from './repositories/embeddings.js';
export {
  canonicalEntityName,
  insertAspect,
  insertClaim,
  insertDependency,
  insertEntity,
} from './repositories/entities.js';
// --- end of Dreaming's block
// --- Memory lifecycle (issue 13): purge with tombstones, reaping, scope erasure, listing, health.
export type { ErasureState } from './repositories/erase.js';
export { beginErasure, ERASE_STEPS, eraseStep, findErasure, unfinishedErasures } from './repositories/erase.js';
export type { AspectClaim, EntityLink, EntitySummary } from './repositories/graph-browse.js';
export {
  entityAspectClaims,
  entityLinks,
  findActiveEntity,
  searchEntitiesByName,
} from './repositories/graph-browse.js';
export {
  activeClaimsPastValidity,
  aspectsOverClaimCap,
  entitiesNamedLikeAnotherAlias,
  entitiesOverAspectCap,
  entitiesWithoutContent,
} from './repositories/graph-hygiene.js';
export type { AspectView, ClaimView, EntityView, LinkView } from './repositories/graph-inspect.js';
export {
  activeLinksAround,
  findEntitiesByIds,
  listEntities,
  listEntityAliases,
  listEntityAspects,
  listEntityClaims,
  listEntityLinks,
  listEntityMentions,
} from './repositories/graph-inspect.js';
export type { ClaimAsOf, GraphRowState } from './repositories/graph-reads.js';
export {
  activeAspectByName,
  activeClaimsForEntities,
  activeEntityByCanonicalName,
  aspectEntityId,
  claimsAsOf,
  countActiveAspects,
  countActiveClaims,
  dependencyNeighbors,
  entitiesOfMemories,
  entityDegreePercentile,
  findClaimBasis,
  graphRowSnapshot,
  graphRowState,
  latestActiveClaim,
  memoriesMentioning,
} from './repositories/graph-reads.js';
export type { GraphKind } from './repositories/graph-writes.js';
export {
  addEntityAlias,
  mergeAspects,
  mergeEntities,
  renameAspect,
  renameEntity,
  setGraphRowStatus,
  supersedeClaim,
  updateDependency,
} from './repositories/graph-writes.js';
export {
  deleteHintsProgram,
  insertHints,
  insertHintsProgram,
  searchHints,
  searchHintsProgram,
} from './repositories/hints.js';
export { listHistory, listHistoryProgram } from './repositories/history.js';
export type { ImportJobRow, ImportRecordRow, ImportStatus, RecordOutcome } from './repositories/imports.js';
export {
  failImportOfJob,
  findImportJob,
  findScopedImportJob,
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
export {
  type LexicalSearch,
  searchMemoriesLexical,
  searchMemoriesLexicalProgram,
} from './repositories/lexical-search.js';
export type { LinkedMemoryRow } from './repositories/linked-memories.js';
export { findLiveLinkedMemories, findLiveLinkedMemoriesProgram } from './repositories/linked-memories.js';
export type { MaintenanceState } from './repositories/maintenance-state.js';
export {
  bumpLifecycleCount,
  findMaintenanceState,
  listMaintenanceState,
  saveMaintenanceState,
} from './repositories/maintenance-state.js';
export {
  findLiveMemoryHashes,
  findLiveMemoryIdByHash,
  findMemory,
  findMemoryProgram,
} from './repositories/memories.js';
export type { ScopeMemoryCounts } from './repositories/memory-counts.js';
export {
  liveMemoriesByVectorKey,
  liveMemoriesByVectorKeyAll,
  scopeMemoryCounts,
} from './repositories/memory-counts.js';
export type { MemoryCandidateRow, MemoryFilters } from './repositories/memory-filters.js';
export type { MemoryHeadRow, MemoryHeadWrite } from './repositories/memory-heads.js';
export {
  findMemoryHead,
  findMemoryHeadEntries,
  insertFirstMemoryHead,
  replaceMemoryHead,
} from './repositories/memory-heads.js';
export type { MemoryHealthCounts } from './repositories/memory-health.js';
export { countMemoriesWithoutVector, memoryHealthCounts } from './repositories/memory-health.js';
export type { MemoryListQuery } from './repositories/memory-list.js';
export { listMemoryPage, listMemoryPageProgram } from './repositories/memory-list.js';
export type { MemoryNeighbour } from './repositories/memory-neighbours.js';
export { findMemoryNeighbours } from './repositories/memory-neighbours.js';
export type { MemoryRowState } from './repositories/memory-state.js';
export { memoryRowState } from './repositories/memory-state.js';
export type { EntityMatch } from './repositories/mentions.js';
export { matchEntitiesByName } from './repositories/mentions.js';
export type { MemoryWithoutVector, OtherKeyScope } from './repositories/missing-vectors.js';
export {
  clearEmbeddingFailures,
  memoriesWithoutVector,
  recordEmbeddingFailure,
} from './repositories/missing-vectors.js';
export type { NoteLinkHit, NoteListFilter, NotePatch } from './repositories/notes.js';
// Working notes as programs (both dialects).
export {
  findLinkedNotes,
  findLinkedNotesProgram,
  findNote,
  findNoteProgram,
  findNotesById,
  findNotesByIdProgram,
  findNotesBySeq,
  findNotesBySeqProgram,
  insertNote,
  insertNoteEvent,
  insertNoteEventProgram,
  insertNoteProgram,
  listNoteEvents,
  listNoteEventsProgram,
  listNotePage,
  listNotePageProgram,
  replaceNoteLinks,
  replaceNoteLinksProgram,
  updateNote,
  updateNoteProgram,
} from './repositories/notes.js';
export {
  countStaleActiveNotes,
  countStaleActiveNotesProgram,
  staleActiveNotes,
  staleActiveNotesProgram,
} from './repositories/notes-reap.js';
export type { NoteTextHit, NoteVectorHit, NoteVectorQuery, NoteVectorRow } from './repositories/notes-search.js';
export {
  nearestNoteVectors,
  nearestNoteVectorsProgram,
  noteVectorCosines,
  noteVectorCosinesProgram,
  rankNotesByText,
  rankNotesByTextProgram,
  upsertNoteVector,
  upsertNoteVectorProgram,
} from './repositories/notes-search.js';
// --- end of the review block
export {
  findProjection,
  memoryMapLabels,
  newestMemoryVectors,
  projectionSignature,
  saveProjection,
} from './repositories/projections.js';
export type { OpenContradiction, ProposalView } from './repositories/proposals.js';
export {
  decideProposal,
  findProposal,
  insertContradiction,
  insertProposal,
  listOpenContradictions,
  listProposals,
} from './repositories/proposals.js';
export type { ProvenanceRecord, ProvenanceRow } from './repositories/provenance.js';
export {
  insertProvenance,
  insertRevert,
  listPassProvenance,
  listTargetProvenance,
  markProvenanceReverted,
} from './repositories/provenance.js';
export type { PurgeCandidate, PurgeCounts } from './repositories/purge.js';
export { countDuePurges, duePurges, emptyPurgeCounts, findTombstone, purgeMemories } from './repositories/purge.js';
export type { ReapCandidate } from './repositories/reap.js';
export { countReapCandidates, reapCandidates, reapMemories } from './repositories/reap.js';
export {
  agentMemoryShare,
  claimCurrentness,
  countMemoryVectors,
  findLinkedMemories,
  memoryVectors,
  readMemoryCandidates,
  recentMemoryVectors,
  recordMemoryAccess,
  resolveLinkLabels,
  sessionTurns,
} from './repositories/recall-reads.js';
// The entity registry (issue 14): categories, their links to objects, and their audit trail.
// The entity registry as programs (both dialects).
export {
  countRegistryCategories,
  countRegistryCategoriesProgram,
  deleteRegistryCategory,
  deleteRegistryCategoryProgram,
  findRegistryCategory,
  findRegistryCategoryByName,
  findRegistryCategoryByNameProgram,
  findRegistryCategoryOwnerProgram,
  findRegistryCategoryProgram,
  insertRegistryCategory,
  insertRegistryCategoryProgram,
  insertRegistryEvent,
  insertRegistryEventProgram,
  insertRegistryEventRowProgram,
  listRegistryCategories,
  listRegistryCategoriesProgram,
  listRegistryEvents,
  listRegistryEventsProgram,
  type RegistryCategoryPatch,
  type RegistryCategoryWithCount,
  type RegistryEventInput,
  updateRegistryCategory,
  updateRegistryCategoryProgram,
} from './repositories/registry-categories.js';
export {
  countCategoryLinksByKind,
  countCategoryLinksByKindProgram,
  deleteRegistryLink,
  deleteRegistryLinkProgram,
  insertRegistryLink,
  insertRegistryLinkProgram,
  listCategoryLinks,
  listCategoryLinksProgram,
  listObjectCategories,
  listObjectCategoriesProgram,
  moveCategoryLinks,
  moveCategoryLinksProgram,
  partitionCategoryObjects,
  partitionCategoryObjectsProgram,
  type RegistryLinkInput,
  type RegistryObjectKey,
} from './repositories/registry-links.js';
export {
  findRegistryObjectProgram,
  findRegistryObjectTextProgram,
  type RegistryObjectFacts,
} from './repositories/registry-objects.js';
export type { RowImage, RowKind, RowRef } from './repositories/row-images.js';
export {
  aspectMergeFootprint,
  dependentGraphRows,
  entityAliasRefs,
  entityMergeFootprint,
  openAttentionAbout,
  readRowImage,
  recountEntityMentions,
  restoreRowImage,
} from './repositories/row-images.js';
export type { ScopeRow, ScopeTable } from './repositories/scope-copy.js';
export {
  findScopeRowOwner,
  insertScopeRow,
  scopeCategoryParts,
  scopeDocumentParts,
  scopeEntityParts,
  scopeKeyedPage,
  scopeMemoriesPage,
  scopeMemoryParts,
  scopeNoteEvents,
  scopeTurns,
} from './repositories/scope-copy.js';
export type { ScopedRanking, ScoredRow, TextCorpus } from './repositories/scoped-text-search.js';
export { rankScopedText, rankScopedTextProgram } from './repositories/scoped-text-search.js';
export type { RecallTelemetryRow } from './repositories/telemetry.js';
export { insertRecallTelemetry, listRecallTelemetry, purgeRecallTelemetry } from './repositories/telemetry.js';
export type { TranscriptHit, TranscriptSummaryRow } from './repositories/transcripts.js';
export {
  completeTranscript,
  deleteSourceTranscripts,
  deleteTranscript,
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
export { findMatchesBeforeWindow } from './repositories/window-excluded.js';
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
export { ACTOR_TYPES, MEMORY_TYPES } from './schema/memories.js';
export type { NewNoteRow, NoteEventKind, NoteEventRow, NoteRow, NoteStatus } from './schema/notes.js';
export { NOTE_EVENTS, NOTE_STATUSES } from './schema/notes.js';
export type { JobStatus, MemoryJobRow, MemoryJobsTable } from './schema/queue.js';
export type {
  RegistryCategoryRow,
  RegistryEventRow,
  RegistryLinkRow,
  RegistryObjectKind,
} from './schema/registry.js';
export type { ApiTokenRow } from './schema/tokens.js';
export type { TranscriptRole, TranscriptRow, TranscriptTurnRow } from './schema/transcripts.js';
export { TransactionGuard } from './transaction-guard.js';
export type { VectorSupport } from './vector-extension.js';
export { VectorIndexWriter } from './vector-index/index-writer.js';
export type { VectorIndex } from './vector-index/indexes.js';
export { ensureVectorIndex, findVectorIndex, legacyMirrorModel, listVectorIndexes } from './vector-index/indexes.js';
export { knnLegacyMirror } from './vector-index/legacy-mirror.js';
export type { VectorPartition } from './vector-index/partitions.js';
export { findPartition, listPartitions } from './vector-index/partitions.js';
export type { VectorSearch } from './vector-index/search.js';
export { searchMemoryVectors, searchMemoryVectorsInSlices } from './vector-index/search.js';
export type { VectorUpkeepOptions, VectorUpkeepReport } from './vector-index/upkeep.js';
export { runVectorUpkeep, vectorUpkeepDue } from './vector-index/upkeep.js';
