export { STOP_WORDS } from '@memory/core';
export type { QueryTerms, TermMatching } from './fts-query.js';
export { bm25Score, ftsTokens, queryTerms } from './fts-query.js';

export type { SqlExecutor } from './internal/sql.js';
export type { SqliteDatabase } from './internal/sqlite.js';
// The one memory writer: every path that creates, changes, forgets or recovers memories uses it.
// Each function has a program form (`...Program`, issue 18) that runs on either dialect: the
// synchronous function runs it on SQLite; a PostgreSQL store runs it with `store.write(() => program)`.
export { attachMemoryVector, attachMemoryVectorProgram, type ContentCause, type CreatedMemory, changeMemory, changeMemoryProgram, createMemories, createMemoriesProgram, type ForgetRequest, forgetMemoryProgram, forgetMemoryRecord, isSqliteStore, type LiveContent, type MemoryAudit, type MemoryChange, type MemoryVector, type MemoryWriteDeps, memoryNotFound, memoryScopeLockKeys, type NewMemory, POSTGRES_WRITER, type PreparedContent, prepareContent, type RecoverRequest, recoverMemoryProgram, recoverMemoryRecord, runMemoryWrite, runScopeLocked, type WriterTarget } from './memory-writer/index.js';
export { writeWithTarget } from './memory-writer/write-with-target.js';

// Memory-writer programs in one write on either dialect (documents, connectors: issue 18).
export { runMemoryWriteOnSqlite, writeMemories } from './memory-writer/write-memories.js';
export type { OpenStoreOptions, Store, WriteCallback } from './open-store.js';
export { openStore } from './open-store.js';
// Either dialect: programs run through `store.db` (see `program/database.ts`).
export type { Database, PortableStore, WriteOptions } from './program/database.js';
export type { Dialect, Program } from './program/program.js';
export { runSqliteProgram } from './program/run-sqlite.js';
// Scoped API tokens (issue 16): the HTTP surface verifies bearer tokens against these rows.
export { findApiToken, insertApiToken, listApiTokens, revokeApiToken } from './repositories/api-tokens.js';
export { archiveOrphanEntities, archiveOrphanEntitiesProgram, pruneColdCopies, pruneColdCopiesProgram, pruneJobArchive, pruneJobArchiveProgram } from './repositories/archives.js';
export { findApiTokenProgram, insertApiTokenProgram, listApiTokensProgram, revokeApiTokenProgram } from './repositories/api-tokens.js';

// --- Dreaming's SQL, moved into the store (issue 10): graph writes, provenance, proposals,
// attention, evidence, passes, the MEMORY.md head, and the reads behind Dreaming's checks and tools.
// --- end of Dreaming's block
// --- Dreaming and the knowledge graph's writes as programs (issue 18): either dialect; the
// synchronous functions above run them on SQLite.
export { runSqliteWriterProgram, type SavepointOutcome, withSavepoint, writeMemoriesWithTarget } from './program/portable-writes.js';

// Scoped API tokens (issue 16): the HTTP surface verifies bearer tokens against these rows.

// --- end of Dreaming's programs
// --- Dreaming's review side (issue 19): graph inspection, passes, provenance with row images,
// proposals' decisions and reverts.
export type { AttentionView, OpenAttention } from './repositories/attention.js';
export { attentionState, countOpenAttention, declineAttention, findOpenAttentionId, listAttention, listOpenAttention, markDerivedForReview, openAttention, resolveAttentionAbout } from './repositories/attention.js';
export { type AttentionState, attentionStateProgram, countOpenAttentionProgram, declineAttentionProgram, findOpenAttentionIdProgram, listAttentionProgram, listOpenAttentionProgram, markDerivedForReviewProgram, type NewAttention, openAttentionProgram, resolveAttentionAboutProgram } from './repositories/attention.js';
// Conflict detection's key index: the checked kinds' text in seq order, the file's data version and
// the memories other connections changed (from memory_history).
export { type ChangedMemory, type ConflictSourceRow, conflictCandidateVectorsProgram, conflictSourcesAfter, conflictSourcesAfterProgram, conflictSourcesOf, conflictSourcesOfProgram, dataVersion, historyMark, memoryChangesBetween, scopeHistorySinceProgram } from './repositories/conflict-reads.js';
export type { ConnectorItemRow, ConnectorRow } from './repositories/connectors.js';
export { countConnectorDocuments, countConnectorItems, deleteConnector, deleteConnectorItem, findConnector, findConnectorItem, insertConnector, listConnectors, liveConnectorDocumentIds, markConnectorItemSeen, renameConnectorItem, unseenConnectorItems, unseenItemsWithHash, updateConnector, upsertConnectorItem } from './repositories/connectors.js';
export type { ChunkSourceRow, DocumentConversionRow } from './repositories/document-lineage.js';
export { beginNextConversion, countCurrentChunkLinks, findChunkSources, findChunkSourcesProgram, findDocumentBySource, linkChunk, linkedChunkMemories, listDocumentConversions, moveDocumentSource, requeueDocumentSource, retiredChunkMemoryIds } from './repositories/document-lineage.js';
export type { DocumentChunkHit, DocumentSearchFilters } from './repositories/document-search.js';
export { searchDocumentChunks } from './repositories/document-search.js';
export type { DocumentRow } from './repositories/documents.js';
export { countDocumentParts, deleteDocumentParts, exclusiveDocumentMemoryIds, failDocumentInProgress, findDocument, findDocumentPart, findDocumentStatus, insertDocument, insertDocumentPart, listDocuments, setDocumentStatus } from './repositories/documents.js';

export type { ConnectorUpdate } from './repositories/connectors.js';
export { countConnectorDocumentsProgram, countConnectorItemsProgram, deleteConnectorItemProgram, deleteConnectorProgram, findConnectorItemProgram, findConnectorProgram, insertConnectorProgram, listConnectorsProgram, liveConnectorDocumentIdsProgram, markConnectorItemSeenProgram, renameConnectorItemProgram, unseenConnectorItemsProgram, unseenItemsWithHashProgram, updateConnectorProgram, upsertConnectorItemProgram } from './repositories/connectors.js';
export type { ChunkLink, ConversionLineage, DocumentSource, RequeuedSource } from './repositories/document-lineage.js';
export { beginNextConversionProgram, countCurrentChunkLinksProgram, findDocumentBySourceProgram, linkChunkProgram, linkedChunkMemoriesProgram, listDocumentConversionsProgram, moveDocumentSourceProgram, requeueDocumentSourceProgram, retiredChunkMemoryIdsProgram } from './repositories/document-lineage.js';
export type { DocumentSearchParams } from './repositories/document-search.js';
export { searchDocumentChunksProgram } from './repositories/document-search.js';
export type { DocumentListFilter, DocumentStatusExtra } from './repositories/documents.js';
export { countDocumentPartsProgram, deleteDocumentPartsProgram, exclusiveDocumentMemoryIdsProgram, failDocumentInProgressProgram, findDocumentPartProgram, findDocumentProgram, findDocumentStatusProgram, insertDocumentPartProgram, insertDocumentProgram, listDocumentsProgram, setDocumentStatusProgram } from './repositories/documents.js';
export type { EvidenceSourceKind, EvidenceSourceRow, UndeliveredSource } from './repositories/dreaming-evidence.js';
export { evidenceRendering, excludeEvidenceSource, findEvidenceSource, insertEvidenceReview, undeliveredEvidence, undeliveredEvidenceChars, upsertDeliveredOffset } from './repositories/dreaming-evidence.js';
export type { DreamingPassRecord, DreamingPassView, DreamingStateView } from './repositories/dreaming-passes.js';
export { dreamingCandidateAgents, findDreamingPass, findDreamingState, findRunbookNotes, insertDreamingPass, insertDreamingToolCall, listDreamingPasses, listDreamingToolCalls, recordPassOutcome, saveRunbookNotes } from './repositories/dreaming-passes.js';
export { evidenceRenderingProgram, excludeEvidenceSourceProgram, findEvidenceSourceProgram, insertEvidenceReviewProgram, undeliveredEvidenceCharsProgram, undeliveredEvidenceProgram, upsertDeliveredOffsetProgram } from './repositories/dreaming-evidence.js';

export { type DreamingToolCallRecord, type DreamingToolCallView, dreamingCandidateAgentsProgram, findDreamingPassProgram, findDreamingStateProgram, findRunbookNotesProgram, insertDreamingPassProgram, insertDreamingToolCallProgram, listDreamingPassesProgram, listDreamingToolCallsProgram, recordPassOutcomeProgram, saveRunbookNotesProgram } from './repositories/dreaming-passes.js';
export type { EmbedderIdentity, EmbeddingMigration } from './repositories/embedder-identities.js';
export { clearReembedRequest, clearReembedRequestProgram, finishEmbeddingMigrations, finishEmbeddingMigrationsProgram, latestEmbeddingMigration, latestEmbeddingMigrationProgram, listEmbedderIdentities, listEmbedderIdentitiesProgram, reembedRequests, reembedRequestsProgram, requestReembed, requestReembedProgram, useEmbedderIdentity, useEmbedderIdentityProgram } from './repositories/embedder-identities.js';
export { blobToVector } from './repositories/embeddings.js';
export { canonicalEntityName, insertAspect, insertClaim, insertDependency, insertEntity } from './repositories/entities.js';
export { insertAspectProgram, insertClaimProgram, insertDependencyProgram, insertEntityProgram, type NewAspect, type NewClaim, type NewDependency, type NewEntity } from './repositories/entities.js';
// --- end of Dreaming's block
// --- Memory lifecycle (issue 13): purge with tombstones, reaping, scope erasure, listing, health.
export type { EraseStep, ErasureState } from './repositories/erase.js';
export { beginErasure, beginErasureProgram, ERASE_STEPS, eraseStep, eraseStepProgram, eraseStepsFor, findErasure, findErasureProgram, unfinishedErasures, unfinishedErasuresProgram } from './repositories/erase.js';
export type { AspectClaim, EntityLink, EntitySummary } from './repositories/graph-browse.js';
export { entityAspectClaims, entityLinks, findActiveEntity, searchEntitiesByName } from './repositories/graph-browse.js';
export { activeClaimsPastValidity, aspectsOverClaimCap, entitiesNamedLikeAnotherAlias, entitiesOverAspectCap, entitiesWithoutContent } from './repositories/graph-hygiene.js';
export type { AspectView, ClaimView, EntityView, LinkView } from './repositories/graph-inspect.js';
export { activeLinksAround, findEntitiesByIds, listEntities, listEntityAliases, listEntityAspects, listEntityClaims, listEntityLinks, listEntityMentions } from './repositories/graph-inspect.js';
export type { ActiveClaimRow, ClaimAsOf, GraphRowState } from './repositories/graph-reads.js';
export { activeAspectByName, activeClaimsForEntities, activeClaimsForEntitiesProgram, activeEntityByCanonicalName, aspectEntityId, claimsAsOf, countActiveAspects, countActiveClaims, dependencyNeighbors, dependencyNeighborsProgram, entitiesOfMemories, entitiesOfMemoriesProgram, entityDegreePercentile, entityDegreePercentileProgram, findClaimBasis, graphRowSnapshot, graphRowState, latestActiveClaim, memoriesMentioning, memoriesMentioningProgram } from './repositories/graph-reads.js';
export type { GraphKind } from './repositories/graph-writes.js';
export { addEntityAlias, mergeAspects, mergeEntities, renameAspect, renameEntity, setGraphRowStatus, supersedeClaim, updateDependency } from './repositories/graph-writes.js';
export { deleteHintsProgram, insertHints, insertHintsProgram, searchHints, searchHintsProgram } from './repositories/hints.js';
export { entityAspectClaimsProgram, entityLinksProgram, findActiveEntityProgram, searchEntitiesByNameProgram } from './repositories/graph-browse.js';
export { activeClaimsPastValidityProgram, aspectsOverClaimCapProgram, entitiesNamedLikeAnotherAliasProgram, entitiesOverAspectCapProgram, entitiesWithoutContentProgram } from './repositories/graph-hygiene.js';

export { activeLinksAroundProgram, type EntityFilter, type EntityMentionView, findEntitiesByIdsProgram, listEntitiesProgram, listEntityAliasesProgram, listEntityAspectsProgram, listEntityClaimsProgram, listEntityLinksProgram, listEntityMentionsProgram } from './repositories/graph-inspect.js';

export { activeAspectByNameProgram, activeEntityByCanonicalNameProgram, aspectEntityIdProgram, type ClaimBasis, claimsAsOfProgram, countActiveAspectsProgram, countActiveClaimsProgram, findClaimBasisProgram, graphRowSnapshotProgram, graphRowStateProgram, latestActiveClaimProgram } from './repositories/graph-reads.js';

export { addEntityAliasProgram, type ClaimSupersession, type DependencyPatch, type EntityMerge, mergeAspectsProgram, mergeEntitiesProgram, type NewEntityAlias, renameAspectProgram, renameEntityProgram, setGraphRowStatusProgram, supersedeClaimProgram, updateDependencyProgram } from './repositories/graph-writes.js';

export { listHistory, listHistoryProgram } from './repositories/history.js';
export type { ImportJobPatch, ImportJobRow, ImportRecordFilter, ImportRecordRow, ImportStatus, InventoriedLine, NewImportJob, RecordOutcome, SettledLine } from './repositories/imports.js';
export { failImportOfJob, failImportOfJobProgram, findImportJob, findImportJobProgram, findScopedImportJob, findScopedImportJobProgram, importCounters, importCountersProgram, insertImportJob, insertImportJobProgram, inventoryRecord, inventoryRecordProgram, isRecordRefusal, listImportRecords, listImportRecordsProgram, nextPendingRecords, nextPendingRecordsProgram, recordSavepointProgram, settleRecord, settleRecordProgram, tombstoneImportedTranscripts, tombstoneImportedTranscriptsProgram, updateImportJob, updateImportJobProgram } from './repositories/imports.js';
export type { LexicalHit } from './repositories/lexical-search.js';
export { type LexicalSearch, searchMemoriesLexical, searchMemoriesLexicalProgram } from './repositories/lexical-search.js';
export type { LinkedMemoryRow } from './repositories/linked-memories.js';
export { findLiveLinkedMemories, findLiveLinkedMemoriesProgram } from './repositories/linked-memories.js';
export type { MaintenanceState } from './repositories/maintenance-state.js';
export { bumpLifecycleCount, bumpLifecycleCountProgram, findMaintenanceState, findMaintenanceStateProgram, listMaintenanceState, listMaintenanceStateProgram, saveMaintenanceState, saveMaintenanceStateProgram } from './repositories/maintenance-state.js';
export { findLiveMemoryHashes, findLiveMemoryHashesProgram, findLiveMemoryIdByHash, findLiveMemoryIdByHashProgram, findMemory, findMemoryProgram } from './repositories/memories.js';

// The seam's check that superseded content does not clash (the memories' own block exports the rest).

export type { ScopeMemoryCounts } from './repositories/memory-counts.js';
export { liveMemoriesByVectorKey, liveMemoriesByVectorKeyAll, liveMemoriesByVectorKeyAllProgram, liveMemoriesByVectorKeyProgram, scopeMemoryCounts, scopeMemoryCountsProgram } from './repositories/memory-counts.js';
export type { MemoryCandidateRow, MemoryFilters } from './repositories/memory-filters.js';
export type { MemoryHeadRow, MemoryHeadWrite } from './repositories/memory-heads.js';
export { findMemoryHead, findMemoryHeadEntries, findMemoryHeadEntriesProgram, insertFirstMemoryHead, replaceMemoryHead, replaceMemoryHeadProgram } from './repositories/memory-heads.js';
export { findMemoryHeadProgram, insertFirstMemoryHeadProgram } from './repositories/memory-heads.js';
export type { MemoryHealthCounts } from './repositories/memory-health.js';
export { countMemoriesWithoutVector, countMemoriesWithoutVectorProgram, memoryHealthCounts, memoryHealthCountsProgram } from './repositories/memory-health.js';
export type { MemoryListQuery } from './repositories/memory-list.js';
export { listMemoryPage, listMemoryPageProgram } from './repositories/memory-list.js';
export type { MemoryNeighbour } from './repositories/memory-neighbours.js';
export { findMemoryNeighbours, findMemoryNeighboursProgram } from './repositories/memory-neighbours.js';
export type { MemoryRowState } from './repositories/memory-state.js';
export { memoryRowState, memoryRowStateProgram } from './repositories/memory-state.js';
export type { EntityMatch } from './repositories/mentions.js';
export { matchEntitiesByName, matchEntitiesByNameProgram } from './repositories/mentions.js';
export type { MemoryWithoutVector, OtherKeyScope } from './repositories/missing-vectors.js';
export { clearEmbeddingFailures, clearEmbeddingFailuresProgram, memoriesWithoutVector, memoriesWithoutVectorProgram, recordEmbeddingFailure, recordEmbeddingFailureProgram } from './repositories/missing-vectors.js';
export type { NoteLinkHit, NoteListFilter, NotePatch } from './repositories/notes.js';
export { findLinkedNotes, findNote, findNotesById, findNotesBySeq, insertNote, insertNoteEvent, listNoteEvents, listNotePage, replaceNoteLinks, updateNote } from './repositories/notes.js';
export { countStaleActiveNotes, staleActiveNotes } from './repositories/notes-reap.js';
export type { NoteTextHit, NoteVectorHit, NoteVectorQuery } from './repositories/notes-search.js';
export { nearestNoteVectors, noteVectorCosines, rankNotesByText, upsertNoteVector } from './repositories/notes-search.js';
export type { CachedProjection, ProjectionToSave } from './repositories/projections.js';
// Working notes as programs (both dialects).
export { findLinkedNotesProgram, findNoteProgram, findNotesByIdProgram, findNotesBySeqProgram, insertNoteEventProgram, insertNoteProgram, listNoteEventsProgram, listNotePageProgram, replaceNoteLinksProgram, updateNoteProgram } from './repositories/notes.js';
export { countStaleActiveNotesProgram, staleActiveNotesProgram } from './repositories/notes-reap.js';
export type { NoteVectorRow } from './repositories/notes-search.js';
export { nearestNoteVectorsProgram, noteVectorCosinesProgram, rankNotesByTextProgram, upsertNoteVectorProgram } from './repositories/notes-search.js';
// --- end of the review block
export { findProjection, findProjectionProgram, memoryMapLabels, memoryMapLabelsProgram, newestMemoryVectors, newestMemoryVectorsProgram, projectionSignature, projectionSignatureProgram, saveProjection, saveProjectionProgram } from './repositories/projections.js';
export type { OpenContradiction, ProposalView } from './repositories/proposals.js';
export { decideProposal, findProposal, insertContradiction, insertProposal, listOpenContradictions, listProposals } from './repositories/proposals.js';
export type { ProvenanceRecord, ProvenanceRow } from './repositories/provenance.js';
export { insertProvenance, insertRevert, listPassProvenance, listTargetProvenance, markProvenanceReverted } from './repositories/provenance.js';
export { decideProposalProgram, findProposalProgram, insertContradictionProgram, insertProposalProgram, listOpenContradictionsProgram, listProposalsProgram, type NewContradiction, type NewProposal, type ProposalDecision } from './repositories/proposals.js';

export { insertProvenanceProgram, insertRevertProgram, listPassProvenanceProgram, listTargetProvenanceProgram, markProvenanceRevertedProgram, type NewRevert } from './repositories/provenance.js';
export type { PurgeCandidate, PurgeCounts } from './repositories/purge.js';
export { countDuePurges, countDuePurgesProgram, duePurges, duePurgesProgram, emptyPurgeCounts, findTombstone, findTombstoneProgram, purgeMemories, purgeMemoriesProgram } from './repositories/purge.js';
export type { ReapCandidate } from './repositories/reap.js';
export { countReapCandidates, countReapCandidatesProgram, reapCandidates, reapCandidatesProgram, reapMemories, reapMemoriesProgram } from './repositories/reap.js';

// Recall's reads and writes as programs (issue 18): both dialects.
export { agentMemoryShare, claimCurrentness, claimCurrentnessProgram, countMemoryVectors, countMemoryVectorsProgram, findLinkedMemories, findLinkedMemoriesProgram, memoryVectors, memoryVectorsProgram, readMemoryCandidates, readMemoryCandidatesProgram, recentMemoryVectors, recentMemoryVectorsProgram, recordMemoryAccess, recordMemoryAccessProgram, resolveLinkLabels, resolveLinkLabelsProgram, sessionTurns, sessionTurnsProgram } from './repositories/recall-reads.js';
// The entity registry (issue 14): categories, their links to objects, and their audit trail.
export { countRegistryCategories, deleteRegistryCategory, findRegistryCategory, findRegistryCategoryByName, insertRegistryCategory, insertRegistryEvent, listRegistryCategories, listRegistryEvents, type RegistryCategoryWithCount, type RegistryEventInput, updateRegistryCategory } from './repositories/registry-categories.js';
export { countCategoryLinksByKind, deleteRegistryLink, insertRegistryLink, listCategoryLinks, listObjectCategories, moveCategoryLinks, partitionCategoryObjects, type RegistryObjectKey } from './repositories/registry-links.js';
// The entity registry as programs (both dialects).
export { countRegistryCategoriesProgram, deleteRegistryCategoryProgram, findRegistryCategoryByNameProgram, findRegistryCategoryOwnerProgram, findRegistryCategoryProgram, insertRegistryCategoryProgram, insertRegistryEventProgram, insertRegistryEventRowProgram, listRegistryCategoriesProgram, listRegistryEventsProgram, type RegistryCategoryPatch, updateRegistryCategoryProgram } from './repositories/registry-categories.js';
export { countCategoryLinksByKindProgram, deleteRegistryLinkProgram, insertRegistryLinkProgram, listCategoryLinksProgram, listObjectCategoriesProgram, moveCategoryLinksProgram, partitionCategoryObjectsProgram, type RegistryLinkInput } from './repositories/registry-links.js';
export { findRegistryObjectProgram, findRegistryObjectTextProgram, type RegistryObjectFacts } from './repositories/registry-objects.js';
export type { RowImage, RowKind, RowRef } from './repositories/row-images.js';
export { aspectMergeFootprint, aspectMergeFootprintProgram, dependentGraphRows, dependentGraphRowsProgram, entityAliasRefs, entityAliasRefsProgram, entityMergeFootprint, entityMergeFootprintProgram, openAttentionAbout, openAttentionAboutProgram, readRowImage, readRowImageProgram, recountEntityMentions, recountEntityMentionsProgram, restoreRowImage, restoreRowImageProgram } from './repositories/row-images.js';
export type { ScopeKeyedTable, ScopeRow, ScopeTable } from './repositories/scope-copy.js';
export { scopeCategoryParts, scopeCategoryPartsProgram, scopeDocumentParts, scopeDocumentPartsProgram, scopeEntityParts, scopeEntityPartsProgram, scopeKeyedPage, scopeKeyedPageProgram, scopeMemoriesPage, scopeMemoriesPageProgram, scopeMemoryParts, scopeMemoryPartsProgram, scopeNoteEvents, scopeNoteEventsProgram, scopeTurns, scopeTurnsProgram } from './repositories/scope-copy.js';
export type { ScopeOwnedTable } from './repositories/scope-insert.js';
export { findScopeRowOwner, findScopeRowOwnerProgram, insertScopeRow, insertScopeRowProgram } from './repositories/scope-insert.js';

export type { ScopedRanking, ScoredRow, TextCorpus } from './repositories/scoped-text-search.js';
export { rankScopedText, rankScopedTextProgram } from './repositories/scoped-text-search.js';
export { presentTablesProgram } from './repositories/table-presence.js';
export type { RecallTelemetryRow } from './repositories/telemetry.js';
export { insertRecallTelemetry, insertRecallTelemetryProgram, listRecallTelemetry, listRecallTelemetryProgram, purgeRecallTelemetry, purgeRecallTelemetryProgram } from './repositories/telemetry.js';
export type { TranscriptHit, TranscriptSummaryRow } from './repositories/transcripts.js';

export { insertExportedTranscriptProgram } from './repositories/transcript-import.js';
export type { CompletedTranscript, NewTurn, TranscriptListFilter } from './repositories/transcripts.js';
export { completeTranscript, completeTranscriptProgram, deleteSourceTranscripts, deleteSourceTranscriptsProgram, deleteTranscript, deleteTranscriptProgram, findIdleTranscripts, findIdleTranscriptsProgram, findSessionKeyBySourceRecord, findSessionKeyBySourceRecordProgram, findTranscript, findTranscriptProgram, insertCompletedTranscript, insertCompletedTranscriptProgram, insertTurn, insertTurnsProgram, listSourceTranscripts, listSourceTranscriptsProgram, listTranscripts, listTranscriptsProgram, listTurns, listTurnsProgram, searchTranscriptTurns, searchTranscriptTurnsProgram, transcriptExists, transcriptExistsProgram, turnScopeLockKeys, upsertTranscript, upsertTranscriptProgram } from './repositories/transcripts.js';
export type { WindowExcludedQuery } from './repositories/window-excluded.js';
export { findMatchesBeforeWindow, findMatchesBeforeWindowProgram } from './repositories/window-excluded.js';
export type { DatabaseSchema } from './schema/database.js';
export type { DocumentStatus } from './schema/documents.js';
export type { EntityRow, MentionRow } from './schema/graph.js';
export type { ActorType, HistoryEvent, MemoryHistoryRow, MemoryRow, MemoryRowUpdate, MemoryType, NewMemoryRow } from './schema/memories.js';
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
export type { VectorSearch } from './vector-index/search.js';
export { searchMemoryVectors, searchMemoryVectorsInSlices } from './vector-index/search.js';
export type { VectorUpkeepOptions, VectorUpkeepReport } from './vector-index/upkeep.js';
export { runVectorUpkeep, vectorUpkeepDue } from './vector-index/upkeep.js';
