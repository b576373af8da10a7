export { createInputSchemas } from './inputs.js';
export type {
  ForgetInput,
  GetMemoryOptions,
  InputSchemas,
  ModifyInput,
  RecoverInput,
  RememberInput,
  ScopeInput,
} from './inputs.js';
export type { AuditContext, MemoryWriter } from './writer.js';
export { remember, rememberMany } from './remember.js';
export { embedStoredMemories } from './embed-existing.js';
export type { RememberResult } from './remember.js';
export { forgetMemory, modifyMemory, recoverMemory } from './lifecycle.js';
export type { ForgetResult } from './lifecycle.js';
export { getMemory, memoryHistory } from './read.js';
export { linkMemoryToEntities, properNounCandidates } from './entity-linker.js';
export type { HistoryEntry, LinkedEntity, Memory } from './memory-view.js';
export { DROPPED_ROLES, KEPT_ROLES, createTranscriptSchemas } from './transcripts/inputs.js';
export type { AppendInput, ListTranscriptsInput, SearchTranscriptsInput, SessionInput, TranscriptSchemas } from './transcripts/inputs.js';
export { createTranscripts, renderTranscript } from './transcripts/transcripts.js';
export type { AppendResult, Transcript, TranscriptSearchHit, TranscriptSummary, TranscriptTurn, Transcripts } from './transcripts/transcripts.js';
export { DOCUMENT_INGEST_JOB, createDocuments } from './documents/documents.js';
export type { AddDocumentInput, DocumentRef, DocumentView, Documents, ListDocumentsInput } from './documents/documents.js';
export { chunkText } from './documents/chunk-text.js';
export { extractText, htmlToText } from './documents/extract-text.js';
export { blockedReason, isAllowed } from './documents/address-guard.js';
export { DocumentFetchError, fetchDocument } from './documents/fetch-document.js';
export type { FetchFailure, FetchOptions, FetchedDocument } from './documents/fetch-document.js';
export { TRANSCRIPT_IMPORT_JOB, createImports } from './imports/imports.js';
export type { ImportCounters, ImportRecordView, ImportRef, ImportStatusView, Imports, ListImportRecordsInput, StartImportInput } from './imports/imports.js';
export { parseRecord } from './imports/record.js';
export type { RejectReason } from './imports/record.js';
export { scanLines } from './imports/line-scanner.js';
