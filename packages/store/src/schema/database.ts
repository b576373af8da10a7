import type { ConnectorsTable, DocumentContentPartsTable, DocumentMemoriesTable, DocumentsTable } from './documents.js';
import type {
  DreamingEvidenceExclusionsTable,
  DreamingEvidenceOffsetsTable,
  DreamingEvidenceReviewsTable,
  DreamingPassesTable,
  DreamingStateTable,
  DreamingToolCallsTable,
  MemoryMdHeadsTable,
} from './dreaming.js';
import type {
  EntitiesTable,
  EntityAliasesTable,
  EntityAspectsTable,
  EntityAttributesTable,
  EntityCommunitiesTable,
  EntityDependenciesTable,
  EntityPinningTable,
  MemoryEntityMentionsTable,
  RelationsTable,
} from './graph.js';
import type { ImportJobsTable, ImportRecordsTable, ImportTombstonesTable } from './imports.js';
import type {
  LifecycleCountsTable,
  MaintenanceStateTable,
  MemoryTombstonesTable,
  ScopeErasuresTable,
} from './lifecycle.js';
import type { MemoriesColdTable, MemoriesTable, MemoryHistoryTable, MemoryLinksTable } from './memories.js';
import type { SchemaMigrationsAuditTable, SchemaMigrationsTable } from './migrations.js';
import type {
  NoteEventsTable,
  NoteLinksTable,
  NotesTable,
  NoteTextPostingsTable,
  NoteTextScopesTable,
  NoteVectorsTable,
} from './notes.js';
import type {
  DreamingAttentionTable,
  DreamingProvenanceTable,
  DreamingRevertsTable,
  OntologyContradictionsTable,
  OntologyProposalsTable,
} from './ontology.js';
import type { MemoryJobsArchiveTable, MemoryJobsTable } from './queue.js';
import type {
  EmbeddingFailuresTable,
  EmbeddingProjectionsTable,
  EmbeddingsTable,
  MemoryHintsTable,
  RecallTelemetryTable,
  TextPostingsTable,
  TextScopesTable,
  VectorAuditsTable,
  VectorBuildsTable,
  VectorCentroidsTable,
  VectorIndexesTable,
  VectorIndexStateTable,
  VectorPartitionsTable,
} from './retrieval.js';
import type { ApiTokensTable } from './tokens.js';
import type { SessionTranscriptsTable, SessionTranscriptTurnsTable } from './transcripts.js';

/**
 * Every table Kysely knows about: all ordinary tables the migrations (and the runner's bookkeeping)
 * create. Virtual FTS5/vec0 tables and their shadow tables are reached with raw SQL in the store.
 */
export interface DatabaseSchema {
  memories: MemoriesTable;
  memory_history: MemoryHistoryTable;
  memories_cold: MemoriesColdTable;
  memory_links: MemoryLinksTable;
  memory_hints: MemoryHintsTable;
  text_scopes: TextScopesTable;
  text_postings: TextPostingsTable;
  embeddings: EmbeddingsTable;
  vector_index_state: VectorIndexStateTable;
  vector_indexes: VectorIndexesTable;
  vector_partitions: VectorPartitionsTable;
  vector_centroids: VectorCentroidsTable;
  vector_builds: VectorBuildsTable;
  vector_audits: VectorAuditsTable;
  embedding_failures: EmbeddingFailuresTable;
  recall_telemetry: RecallTelemetryTable;
  entities: EntitiesTable;
  entity_aliases: EntityAliasesTable;
  relations: RelationsTable;
  memory_entity_mentions: MemoryEntityMentionsTable;
  entity_aspects: EntityAspectsTable;
  entity_attributes: EntityAttributesTable;
  entity_dependencies: EntityDependenciesTable;
  entity_communities: EntityCommunitiesTable;
  entity_pinning: EntityPinningTable;
  session_transcripts: SessionTranscriptsTable;
  session_transcript_turns: SessionTranscriptTurnsTable;
  import_jobs: ImportJobsTable;
  import_records: ImportRecordsTable;
  import_tombstones: ImportTombstonesTable;
  documents: DocumentsTable;
  document_memories: DocumentMemoriesTable;
  document_content_parts: DocumentContentPartsTable;
  connectors: ConnectorsTable;
  memory_jobs: MemoryJobsTable;
  memory_jobs_archive: MemoryJobsArchiveTable;
  dreaming_attention: DreamingAttentionTable;
  dreaming_provenance: DreamingProvenanceTable;
  dreaming_reverts: DreamingRevertsTable;
  embedding_projections: EmbeddingProjectionsTable;
  ontology_proposals: OntologyProposalsTable;
  ontology_contradictions: OntologyContradictionsTable;
  dreaming_state: DreamingStateTable;
  dreaming_passes: DreamingPassesTable;
  dreaming_tool_calls: DreamingToolCallsTable;
  dreaming_evidence_offsets: DreamingEvidenceOffsetsTable;
  dreaming_evidence_exclusions: DreamingEvidenceExclusionsTable;
  dreaming_evidence_reviews: DreamingEvidenceReviewsTable;
  memory_md_heads: MemoryMdHeadsTable;
  api_tokens: ApiTokensTable;
  memory_tombstones: MemoryTombstonesTable;
  maintenance_state: MaintenanceStateTable;
  scope_erasures: ScopeErasuresTable;
  lifecycle_counts: LifecycleCountsTable;
  notes: NotesTable;
  note_links: NoteLinksTable;
  note_events: NoteEventsTable;
  note_vectors: NoteVectorsTable;
  note_text_scopes: NoteTextScopesTable;
  note_text_postings: NoteTextPostingsTable;
  schema_migrations: SchemaMigrationsTable;
  schema_migrations_audit: SchemaMigrationsAuditTable;
}

export type TableName = keyof DatabaseSchema;

// A mapped type over the schema's keys: leaving a typed table out, or naming one that is not typed,
// fails to compile. So this list and `DatabaseSchema` cannot drift, and the schema test compares the
// list with the tables a migrated database really has.
const TABLES: { readonly [Name in TableName]: true } = {
  memories: true,
  memory_history: true,
  memories_cold: true,
  memory_links: true,
  memory_hints: true,
  text_scopes: true,
  text_postings: true,
  embeddings: true,
  vector_index_state: true,
  vector_indexes: true,
  vector_partitions: true,
  vector_centroids: true,
  vector_builds: true,
  vector_audits: true,
  embedding_failures: true,
  recall_telemetry: true,
  entities: true,
  entity_aliases: true,
  relations: true,
  memory_entity_mentions: true,
  entity_aspects: true,
  entity_attributes: true,
  entity_dependencies: true,
  entity_communities: true,
  entity_pinning: true,
  session_transcripts: true,
  session_transcript_turns: true,
  import_jobs: true,
  import_records: true,
  import_tombstones: true,
  documents: true,
  document_memories: true,
  document_content_parts: true,
  connectors: true,
  memory_jobs: true,
  memory_jobs_archive: true,
  dreaming_attention: true,
  dreaming_provenance: true,
  dreaming_reverts: true,
  embedding_projections: true,
  ontology_proposals: true,
  ontology_contradictions: true,
  dreaming_state: true,
  dreaming_passes: true,
  dreaming_tool_calls: true,
  dreaming_evidence_offsets: true,
  dreaming_evidence_exclusions: true,
  dreaming_evidence_reviews: true,
  memory_md_heads: true,
  api_tokens: true,
  memory_tombstones: true,
  maintenance_state: true,
  scope_erasures: true,
  lifecycle_counts: true,
  notes: true,
  note_links: true,
  note_events: true,
  note_vectors: true,
  note_text_scopes: true,
  note_text_postings: true,
  schema_migrations: true,
  schema_migrations_audit: true,
};

/** The names of every table in {@link DatabaseSchema}, at run time (for the schema coverage test). */
export const DATABASE_TABLES: readonly TableName[] = Object.keys(TABLES) as TableName[];
