export { STOP_WORDS } from '@memory/core';
export type { QueryTerms, TermMatching } from './fts-query.js';
export { bm25Score, ftsTokens, queryTerms } from './fts-query.js';

export type { SqlExecutor } from './internal/sql.js';
export type { SqliteDatabase } from './internal/sqlite.js';
// The one memory writer: every path that creates, changes, forgets or recovers memories uses it.
// Each function has a program form (`...Program`, issue 18) that runs on either dialect: the
// synchronous function runs it on SQLite; `runWriterProgram` runs it (or any program calling it) in
// one write on either dialect, holding the scopes' lock keys on PostgreSQL.
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
  isSqliteStore,
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
  runSqliteWriterProgram,
  runWriterProgram,
  type WriterProgramScopes,
  type WriterTarget,
} from './memory-writer/index.js';
export type { OpenStoreOptions, Store, WalLimits, WriteCallback } from './open-store.js';
export { openStore } from './open-store.js';
// Either dialect: programs run through `store.db` (see `program/database.ts`).
export type { Database, PortableStore, WriteOptions } from './program/database.js';
// --- Dreaming's SQL, moved into the store (issue 10): graph writes, provenance, proposals,
// attention, evidence, passes, the MEMORY.md head, and the reads behind Dreaming's checks and tools.
// --- end of Dreaming's block
// --- Dreaming and the knowledge graph's writes as programs (issue 18): either dialect; the
// synchronous functions above run them on SQLite.
export { type SavepointOutcome, withSavepoint } from './program/portable-writes.js';
export type { Dialect, Program } from './program/program.js';
export { runNested, runSqliteProgram } from './program/run-sqlite.js';
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
export {
  archiveOrphanEntities,
  archiveOrphanEntitiesProgram,
  pruneColdCopies,
  pruneColdCopiesProgram,
  pruneJobArchive,
  pruneJobArchiveProgram,
} from './repositories/archives.js';

// Scoped API tokens (issue 16): the HTTP surface verifies bearer tokens against these rows.

// --- end of Dreaming's programs
// --- Dreaming's review side (issue 19): graph inspection, passes, provenance with row images,
// proposals' decisions and reverts.
export type { AttentionView, OpenAttention } from './repositories/attention.js';
export {
  type AttentionState,
  attentionState,
  attentionStateProgram,
  countOpenAttention,
  countOpenAttentionProgram,
  declineAttention,
  declineAttentionProgram,
  findOpenAttentionId,
  findOpenAttentionIdProgram,
  listAttention,
  listAttentionProgram,
  listOpenAttention,
  listOpenAttentionProgram,
  markDerivedForReview,
  markDerivedForReviewProgram,
  type NewAttention,
  openAttention,
  openAttentionProgram,
  resolveAttentionAbout,
  resolveAttentionAboutProgram,
} from './repositories/attention.js';
// Conflict detection's key index: the checked kinds' text in seq order, the file's data version and
// the memories other connections changed (from memory_history).
export {
  type ChangedMemory,
  type ConflictHead,
  type ConflictSourceRow,
  conflictCandidateVectorsProgram,
  conflictHeadsAfter,
  conflictSourcesAfter,
  conflictSourcesAfterProgram,
  conflictSourcesOf,
  conflictSourcesOfProgram,
  dataVersion,
  historyMark,
  type MemoriesTop,
  memoriesTopProgram,
  memoryChangesBetween,
  scopeHistorySinceProgram,
} from './repositories/conflict-reads.js';
export type { ConnectorItemRow, ConnectorRow, ConnectorUpdate } from './repositories/connectors.js';
export {
  countConnectorDocuments,
  countConnectorDocumentsProgram,
  countConnectorItems,
  countConnectorItemsProgram,
  deleteConnector,
  deleteConnectorItem,
  deleteConnectorItemProgram,
  deleteConnectorProgram,
  findConnector,
  findConnectorItem,
  findConnectorItemProgram,
  findConnectorProgram,
  insertConnector,
  insertConnectorProgram,
  listConnectors,
  listConnectorsProgram,
  liveConnectorDocumentIds,
  liveConnectorDocumentIdsProgram,
  markConnectorItemSeen,
  markConnectorItemSeenProgram,
  renameConnectorItem,
  renameConnectorItemProgram,
  unseenConnectorItems,
  unseenConnectorItemsProgram,
  unseenItemsWithHash,
  unseenItemsWithHashProgram,
  updateConnector,
  updateConnectorProgram,
  upsertConnectorItem,
  upsertConnectorItemProgram,
} from './repositories/connectors.js';
export type {
  ChunkLink,
  ChunkSourceRow,
  ConversionLineage,
  DocumentConversionRow,
  DocumentSource,
  RequeuedSource,
} from './repositories/document-lineage.js';
export {
  beginNextConversion,
  beginNextConversionProgram,
  countCurrentChunkLinks,
  countCurrentChunkLinksProgram,
  findChunkSources,
  findChunkSourcesProgram,
  findDocumentBySource,
  findDocumentBySourceProgram,
  linkChunk,
  linkChunkProgram,
  linkedChunkMemories,
  linkedChunkMemoriesProgram,
  listDocumentConversions,
  listDocumentConversionsProgram,
  moveDocumentSource,
  moveDocumentSourceProgram,
  requeueDocumentSource,
  requeueDocumentSourceProgram,
  retiredChunkMemoryIds,
  retiredChunkMemoryIdsProgram,
} from './repositories/document-lineage.js';
export type { DocumentChunkHit, DocumentSearchFilters, DocumentSearchParams } from './repositories/document-search.js';
export { searchDocumentChunks, searchDocumentChunksProgram } from './repositories/document-search.js';
export type { DocumentListFilter, DocumentRow, DocumentStatusExtra } from './repositories/documents.js';
export {
  countDocumentParts,
  countDocumentPartsProgram,
  deleteDocumentParts,
  deleteDocumentPartsProgram,
  exclusiveDocumentMemoryIds,
  exclusiveDocumentMemoryIdsProgram,
  failDocumentInProgress,
  failDocumentInProgressProgram,
  findDocument,
  findDocumentPart,
  findDocumentPartProgram,
  findDocumentProgram,
  findDocumentStatus,
  findDocumentStatusProgram,
  insertDocument,
  insertDocumentPart,
  insertDocumentPartProgram,
  insertDocumentProgram,
  listDocuments,
  listDocumentsProgram,
  setDocumentStatus,
  setDocumentStatusProgram,
} from './repositories/documents.js';
export type { EvidenceSourceKind, EvidenceSourceRow, UndeliveredSource } from './repositories/dreaming-evidence.js';
export {
  evidenceRendering,
  evidenceRenderingProgram,
  excludeEvidenceSource,
  excludeEvidenceSourceProgram,
  findEvidenceSource,
  findEvidenceSourceProgram,
  insertEvidenceReview,
  insertEvidenceReviewProgram,
  undeliveredEvidence,
  undeliveredEvidenceChars,
  undeliveredEvidenceCharsProgram,
  undeliveredEvidenceProgram,
  upsertDeliveredOffset,
  upsertDeliveredOffsetProgram,
} from './repositories/dreaming-evidence.js';
export type { DreamingPassRecord, DreamingPassView, DreamingStateView } from './repositories/dreaming-passes.js';
export {
  type DreamingToolCallRecord,
  type DreamingToolCallView,
  dreamingCandidateAgents,
  dreamingCandidateAgentsProgram,
  findDreamingPass,
  findDreamingPassProgram,
  findDreamingState,
  findDreamingStateProgram,
  findRunbookNotes,
  findRunbookNotesProgram,
  insertDreamingPass,
  insertDreamingPassProgram,
  insertDreamingToolCall,
  insertDreamingToolCallProgram,
  listDreamingPasses,
  listDreamingPassesProgram,
  listDreamingToolCalls,
  listDreamingToolCallsProgram,
  recordPassOutcome,
  recordPassOutcomeProgram,
  saveRunbookNotes,
  saveRunbookNotesProgram,
} from './repositories/dreaming-passes.js';
export type { EmbedderIdentity, EmbeddingMigration } from './repositories/embedder-identities.js';
export {
  clearReembedRequest,
  clearReembedRequestProgram,
  finishEmbeddingMigrations,
  finishEmbeddingMigrationsProgram,
  latestEmbeddingMigration,
  latestEmbeddingMigrationProgram,
  listEmbedderIdentities,
  listEmbedderIdentitiesProgram,
  reembedRequests,
  reembedRequestsProgram,
  requestReembed,
  requestReembedProgram,
  useEmbedderIdentity,
  useEmbedderIdentityProgram,
} from './repositories/embedder-identities.js';
export { blobToVector } from './repositories/embeddings.js';
export {
  canonicalEntityName,
  insertAspect,
  insertAspectProgram,
  insertClaim,
  insertClaimProgram,
  insertDependency,
  insertDependencyProgram,
  insertEntity,
  insertEntityProgram,
  type NewAspect,
  type NewClaim,
  type NewDependency,
  type NewEntity,
} from './repositories/entities.js';
// --- end of Dreaming's block
// --- Memory lifecycle (issue 13): purge with tombstones, reaping, scope erasure, listing, health.
export type { EraseStep, ErasureState } from './repositories/erase.js';
export {
  beginErasure,
  beginErasureProgram,
  ERASE_STEPS,
  eraseStep,
  eraseStepProgram,
  eraseStepsFor,
  findErasure,
  findErasureProgram,
  unfinishedErasures,
  unfinishedErasuresProgram,
} from './repositories/erase.js';
export type { AspectClaim, EntityLink, EntitySummary } from './repositories/graph-browse.js';
export {
  entityAspectClaims,
  entityAspectClaimsProgram,
  entityLinks,
  entityLinksProgram,
  findActiveEntity,
  findActiveEntityProgram,
  searchEntitiesByName,
  searchEntitiesByNameProgram,
} from './repositories/graph-browse.js';
export {
  activeClaimsPastValidity,
  activeClaimsPastValidityProgram,
  aspectsOverClaimCap,
  aspectsOverClaimCapProgram,
  entitiesNamedLikeAnotherAlias,
  entitiesNamedLikeAnotherAliasProgram,
  entitiesOverAspectCap,
  entitiesOverAspectCapProgram,
  entitiesWithoutContent,
  entitiesWithoutContentProgram,
} from './repositories/graph-hygiene.js';
export type { AspectView, ClaimView, EntityView, LinkView } from './repositories/graph-inspect.js';
export {
  activeLinksAround,
  activeLinksAroundProgram,
  type EntityFilter,
  type EntityMentionView,
  findEntitiesByIds,
  findEntitiesByIdsProgram,
  listEntities,
  listEntitiesProgram,
  listEntityAliases,
  listEntityAliasesProgram,
  listEntityAspects,
  listEntityAspectsProgram,
  listEntityClaims,
  listEntityClaimsProgram,
  listEntityLinks,
  listEntityLinksProgram,
  listEntityMentions,
  listEntityMentionsProgram,
} from './repositories/graph-inspect.js';
export type { ActiveClaimRow, ClaimAsOf, GraphRowState } from './repositories/graph-reads.js';
export {
  activeAspectByName,
  activeAspectByNameProgram,
  activeClaimsForEntities,
  activeClaimsForEntitiesProgram,
  activeEntityByCanonicalName,
  activeEntityByCanonicalNameProgram,
  aspectEntityId,
  aspectEntityIdProgram,
  type ClaimBasis,
  claimsAsOf,
  claimsAsOfProgram,
  countActiveAspects,
  countActiveAspectsProgram,
  countActiveClaims,
  countActiveClaimsProgram,
  dependencyNeighbors,
  dependencyNeighborsProgram,
  entitiesOfMemories,
  entitiesOfMemoriesProgram,
  entityDegreePercentile,
  entityDegreePercentileProgram,
  findClaimBasis,
  findClaimBasisProgram,
  graphRowSnapshot,
  graphRowSnapshotProgram,
  graphRowState,
  graphRowStateProgram,
  latestActiveClaim,
  latestActiveClaimProgram,
  memoriesMentioning,
  memoriesMentioningProgram,
} from './repositories/graph-reads.js';
export type { GraphKind } from './repositories/graph-writes.js';
export {
  addEntityAlias,
  addEntityAliasProgram,
  type ClaimSupersession,
  type DependencyPatch,
  type EntityMerge,
  mergeAspects,
  mergeAspectsProgram,
  mergeEntities,
  mergeEntitiesProgram,
  type NewEntityAlias,
  renameAspect,
  renameAspectProgram,
  renameEntity,
  renameEntityProgram,
  setGraphRowStatus,
  setGraphRowStatusProgram,
  supersedeClaim,
  supersedeClaimProgram,
  updateDependency,
  updateDependencyProgram,
} from './repositories/graph-writes.js';
export {
  deleteHintsProgram,
  insertHints,
  insertHintsProgram,
  searchHints,
  searchHintsProgram,
} from './repositories/hints.js';

export { listHistory, listHistoryProgram } from './repositories/history.js';
export type {
  ImportJobPatch,
  ImportJobRow,
  ImportRecordFilter,
  ImportRecordRow,
  ImportStatus,
  InventoriedLine,
  NewImportJob,
  RecordOutcome,
  SettledLine,
} from './repositories/imports.js';
export {
  failImportOfJob,
  failImportOfJobProgram,
  findImportJob,
  findImportJobProgram,
  findScopedImportJob,
  findScopedImportJobProgram,
  importCounters,
  importCountersProgram,
  insertImportJob,
  insertImportJobProgram,
  inventoryRecord,
  inventoryRecordProgram,
  isRecordRefusal,
  listImportRecords,
  listImportRecordsProgram,
  nextPendingRecords,
  nextPendingRecordsProgram,
  recordSavepointProgram,
  settleRecord,
  settleRecordProgram,
  tombstoneImportedTranscripts,
  tombstoneImportedTranscriptsProgram,
  updateImportJob,
  updateImportJobProgram,
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
  bumpLifecycleCountProgram,
  findMaintenanceState,
  findMaintenanceStateProgram,
  listMaintenanceState,
  listMaintenanceStateProgram,
  saveMaintenanceState,
  saveMaintenanceStateProgram,
} from './repositories/maintenance-state.js';
export {
  findLiveMemoryHashes,
  findLiveMemoryHashesProgram,
  findLiveMemoryIdByHash,
  findLiveMemoryIdByHashProgram,
  findMemory,
  findMemoryProgram,
} from './repositories/memories.js';

// The seam's check that superseded content does not clash (the memories' own block exports the rest).

export type { ScopeMemoryCounts } from './repositories/memory-counts.js';
export {
  liveMemoriesByVectorKey,
  liveMemoriesByVectorKeyAll,
  liveMemoriesByVectorKeyAllProgram,
  liveMemoriesByVectorKeyProgram,
  scopeMemoryCounts,
  scopeMemoryCountsProgram,
} from './repositories/memory-counts.js';
export type { MemoryCandidateRow, MemoryFilters } from './repositories/memory-filters.js';
export type { MemoryHeadRow, MemoryHeadWrite } from './repositories/memory-heads.js';
export {
  findMemoryHead,
  findMemoryHeadEntries,
  findMemoryHeadEntriesProgram,
  findMemoryHeadProgram,
  insertFirstMemoryHead,
  insertFirstMemoryHeadProgram,
  replaceMemoryHead,
  replaceMemoryHeadProgram,
} from './repositories/memory-heads.js';
export type { MemoryHealthCounts } from './repositories/memory-health.js';
export {
  countMemoriesWithoutVector,
  countMemoriesWithoutVectorProgram,
  memoryHealthCounts,
  memoryHealthCountsProgram,
} from './repositories/memory-health.js';
export type { MemoryListQuery } from './repositories/memory-list.js';
export { listMemoryPage, listMemoryPageProgram } from './repositories/memory-list.js';
export type { MemoryNeighbour } from './repositories/memory-neighbours.js';
export { findMemoryNeighbours, findMemoryNeighboursProgram } from './repositories/memory-neighbours.js';
export type { MemoryRowState } from './repositories/memory-state.js';
export { memoryRowState, memoryRowStateProgram } from './repositories/memory-state.js';
export type { EntityMatch } from './repositories/mentions.js';
export { matchEntitiesByName, matchEntitiesByNameProgram } from './repositories/mentions.js';
export type { MemoryWithoutVector, OtherKeyScope } from './repositories/missing-vectors.js';
export {
  clearEmbeddingFailures,
  clearEmbeddingFailuresProgram,
  memoriesWithoutVector,
  memoriesWithoutVectorProgram,
  recordEmbeddingFailure,
  recordEmbeddingFailureProgram,
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
export type { CachedProjection, ProjectionToSave } from './repositories/projections.js';
// --- end of the review block
export {
  findProjection,
  findProjectionProgram,
  memoryMapLabels,
  memoryMapLabelsProgram,
  newestMemoryVectors,
  newestMemoryVectorsProgram,
  projectionSignature,
  projectionSignatureProgram,
  saveProjection,
  saveProjectionProgram,
} from './repositories/projections.js';
export type { OpenContradiction, ProposalView } from './repositories/proposals.js';
export {
  decideProposal,
  decideProposalProgram,
  findProposal,
  findProposalProgram,
  insertContradiction,
  insertContradictionProgram,
  insertProposal,
  insertProposalProgram,
  listOpenContradictions,
  listOpenContradictionsProgram,
  listProposals,
  listProposalsProgram,
  type NewContradiction,
  type NewProposal,
  type ProposalDecision,
} from './repositories/proposals.js';
export type { ProvenanceRecord, ProvenanceRow } from './repositories/provenance.js';
export {
  insertProvenance,
  insertProvenanceProgram,
  insertRevert,
  insertRevertProgram,
  listPassProvenance,
  listPassProvenanceProgram,
  listTargetProvenance,
  listTargetProvenanceProgram,
  markProvenanceReverted,
  markProvenanceRevertedProgram,
  type NewRevert,
} from './repositories/provenance.js';
export type { PurgeCandidate, PurgeCounts } from './repositories/purge.js';
export {
  countDuePurges,
  countDuePurgesProgram,
  duePurges,
  duePurgesProgram,
  emptyPurgeCounts,
  findTombstone,
  findTombstoneProgram,
  purgeMemories,
  purgeMemoriesProgram,
} from './repositories/purge.js';
export type { ReapCandidate } from './repositories/reap.js';
export {
  countReapCandidates,
  countReapCandidatesProgram,
  reapCandidates,
  reapCandidatesProgram,
  reapMemories,
  reapMemoriesProgram,
} from './repositories/reap.js';

// Recall's reads and writes as programs (issue 18): both dialects.
export {
  agentMemoryShare,
  claimCurrentness,
  claimCurrentnessProgram,
  countMemoryVectors,
  countMemoryVectorsProgram,
  findLinkedMemories,
  findLinkedMemoriesProgram,
  memoryVectors,
  memoryVectorsProgram,
  readMemoryCandidates,
  readMemoryCandidatesProgram,
  recentMemoryVectors,
  recentMemoryVectorsProgram,
  recordMemoryAccess,
  recordMemoryAccessProgram,
  resolveLinkLabels,
  resolveLinkLabelsProgram,
  sessionTurns,
  sessionTurnsProgram,
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
  aspectMergeFootprintProgram,
  dependentGraphRows,
  dependentGraphRowsProgram,
  entityAliasRefs,
  entityAliasRefsProgram,
  entityMergeFootprint,
  entityMergeFootprintProgram,
  openAttentionAbout,
  openAttentionAboutProgram,
  readRowImage,
  readRowImageProgram,
  recountEntityMentions,
  recountEntityMentionsProgram,
  restoreRowImage,
  restoreRowImageProgram,
} from './repositories/row-images.js';
export type { ScopeKeyedTable, ScopeRow, ScopeTable } from './repositories/scope-copy.js';
export {
  scopeCategoryParts,
  scopeCategoryPartsProgram,
  scopeDocumentParts,
  scopeDocumentPartsProgram,
  scopeEntityParts,
  scopeEntityPartsProgram,
  scopeKeyedPage,
  scopeKeyedPageProgram,
  scopeMemoriesPage,
  scopeMemoriesPageProgram,
  scopeMemoryParts,
  scopeMemoryPartsProgram,
  scopeNoteEvents,
  scopeNoteEventsProgram,
  scopeTurns,
  scopeTurnsProgram,
} from './repositories/scope-copy.js';
export type { ScopeColumns, ScopeOwnedTable } from './repositories/scope-insert.js';
export {
  findScopeRowOwner,
  findScopeRowOwnerProgram,
  insertScopeMemoryProgram,
  insertScopeNoteProgram,
  insertScopeRow,
  insertScopeRowProgram,
} from './repositories/scope-insert.js';

export type { ScopedRanking, ScoredRow, TextCorpus } from './repositories/scoped-text-search.js';
export { rankScopedText, rankScopedTextProgram } from './repositories/scoped-text-search.js';
export { presentTablesProgram } from './repositories/table-presence.js';
export type { RecallTelemetryRow } from './repositories/telemetry.js';
export {
  insertRecallTelemetry,
  insertRecallTelemetryProgram,
  listRecallTelemetry,
  listRecallTelemetryProgram,
  purgeRecallTelemetry,
  purgeRecallTelemetryProgram,
} from './repositories/telemetry.js';
export { insertExportedTranscriptProgram } from './repositories/transcript-import.js';
export type {
  CompletedTranscript,
  NewTurn,
  TranscriptHit,
  TranscriptListFilter,
  TranscriptSummaryRow,
} from './repositories/transcripts.js';
export {
  completeTranscript,
  completeTranscriptProgram,
  deleteSourceTranscripts,
  deleteSourceTranscriptsProgram,
  deleteTranscript,
  deleteTranscriptProgram,
  findIdleTranscripts,
  findIdleTranscriptsProgram,
  findSessionKeyBySourceRecord,
  findSessionKeyBySourceRecordProgram,
  findTranscript,
  findTranscriptProgram,
  insertCompletedTranscript,
  insertCompletedTranscriptProgram,
  insertTurn,
  insertTurnsProgram,
  listSourceTranscripts,
  listSourceTranscriptsProgram,
  listTranscripts,
  listTranscriptsProgram,
  listTurns,
  listTurnsProgram,
  searchTranscriptTurns,
  searchTranscriptTurnsProgram,
  transcriptExists,
  transcriptExistsProgram,
  turnScopeLockKeys,
  upsertTranscript,
  upsertTranscriptProgram,
} from './repositories/transcripts.js';
export type { WindowExcludedQuery } from './repositories/window-excluded.js';
export { findMatchesBeforeWindow, findMatchesBeforeWindowProgram } from './repositories/window-excluded.js';
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
export type { RegistryCategoryRow, RegistryEventRow, RegistryLinkRow, RegistryObjectKind } from './schema/registry.js';
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
export {
  SCAN_CACHE_MIN_VECTORS,
  type ScanCacheOptions,
  scanCacheIdle,
  scanCacheOf,
} from './vector-index/scan-cache.js';
export type { VectorSearch } from './vector-index/search.js';
export { searchMemoryVectors, searchMemoryVectorsInSlices } from './vector-index/search.js';
export type { VectorUpkeepOptions, VectorUpkeepReport } from './vector-index/upkeep.js';
export { runVectorUpkeep, vectorUpkeepDue } from './vector-index/upkeep.js';
