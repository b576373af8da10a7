export { ConflictKeyIndex } from './conflict-keys.js';
export type {
  ConnectorBatch,
  ConnectorItem,
  ConnectorKind,
  ConnectorOpenContext,
  ConnectorRefusal,
  ConnectorScanContext,
  ConnectorSource,
} from './connectors/connector-kind.js';
export type {
  ConnectorRef,
  Connectors,
  ConnectorView,
  ListConnectorsInput,
  RegisterConnectorInput,
} from './connectors/connectors.js';
export { CONNECTOR_SYNC_JOB, createConnectors } from './connectors/connectors.js';
export { folderKind } from './connectors/folder-kind.js';
export type { SyncStats } from './connectors/sync-state.js';
export type { ChunkLocation } from './documents/chunk-location.js';
export type { DocumentConversionView, DocumentView } from './documents/document-view.js';
export type { AddDocumentInput, DocumentRef, Documents, ListDocumentsInput } from './documents/documents.js';
export { createDocuments, DOCUMENT_INGEST_JOB } from './documents/documents.js';
export type {
  DocumentExtraction,
  RegisteredSource,
  SourceInput,
  SourceOutcome,
} from './documents/register-source.js';
export type { DocumentCitation, DocumentSearchHit, SearchDocumentsInput } from './documents/search-documents.js';
export { createDocumentSearch } from './documents/search-documents.js';
export { embedStoredMemories } from './embed-existing.js';
export type { ExtractOptions } from './extract/extract.js';
export { EXTRACTABLE_TYPES, extract, isExtractable } from './extract/extract.js';
export type { ExtractedSection, ExtractFailure, ExtractLimits, ExtractResult } from './extract/extract-types.js';
export { DEFAULT_EXTRACT_LIMITS, ExtractError, REFUSED_TYPES } from './extract/extract-types.js';
export type { ExtractionPool } from './extract/extraction-pool.js';
export { createExtractionPool } from './extract/extraction-pool.js';
export type { FillVectorsReport } from './fill-vectors.js';
export { fillMissingVectors } from './fill-vectors.js';
export type { CategoryRecord, CategoryRecordWriter, WrittenExport } from './imports/export-record.js';
export { EXPORT_FORMAT, EXPORT_VERSION } from './imports/export-record.js';
export type {
  ImportCounters,
  ImportRecordView,
  ImportRef,
  ImportStatusView,
  Imports,
  ListImportRecordsInput,
  StartImportInput,
} from './imports/imports.js';
export { createImports, TRANSCRIPT_IMPORT_JOB } from './imports/imports.js';
export type {
  ForgetInput,
  GetMemoryOptions,
  InputSchemas,
  ModifyInput,
  RecoverInput,
  RememberInput,
  ScopeInput,
} from './inputs.js';
export { createInputSchemas } from './inputs.js';
export type { ForgetResult } from './lifecycle.js';
export { forgetMemory, modifyMemory, recoverMemory } from './lifecycle.js';
export type { HistoryEntry, LinkedEntity, Memory } from './memory-view.js';
export { toHistoryEntry, toMemory } from './memory-view.js';
export { getMemory, memoryHistory } from './read.js';
export type { RememberResult } from './remember.js';
export { remember, rememberMany } from './remember.js';
export type {
  AppendInput,
  ListTranscriptsInput,
  SearchTranscriptsInput,
  SessionInput,
  TranscriptSchemas,
} from './transcripts/inputs.js';
export { createTranscriptSchemas } from './transcripts/inputs.js';
export type {
  AppendResult,
  Transcript,
  TranscriptSearchHit,
  TranscriptSummary,
  Transcripts,
  TranscriptTurn,
} from './transcripts/transcripts.js';
export { createTranscripts } from './transcripts/transcripts.js';
export type { AuditContext, MemoryWriter } from './writer.js';
export { writeDeps } from './writer.js';
