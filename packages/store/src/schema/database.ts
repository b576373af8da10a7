import type { ConnectorsTable, DocumentMemoriesTable, DocumentsTable } from './documents.js';
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
import type { MemoriesColdTable, MemoriesTable, MemoryHistoryTable, MemoryLinksTable } from './memories.js';
import type { MemoryJobsArchiveTable, MemoryJobsTable } from './queue.js';
import type { EmbeddingsTable, VectorIndexStateTable } from './retrieval.js';
import type { SessionTranscriptsTable, SessionTranscriptTurnsTable } from './transcripts.js';

/** Every table Kysely knows about (virtual FTS5/vec0 tables are reached with raw SQL in the store). */
export interface DatabaseSchema {
  memories: MemoriesTable;
  memory_history: MemoryHistoryTable;
  memories_cold: MemoriesColdTable;
  memory_links: MemoryLinksTable;
  embeddings: EmbeddingsTable;
  vector_index_state: VectorIndexStateTable;
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
  documents: DocumentsTable;
  document_memories: DocumentMemoriesTable;
  connectors: ConnectorsTable;
  memory_jobs: MemoryJobsTable;
  memory_jobs_archive: MemoryJobsArchiveTable;
}
