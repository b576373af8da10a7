export type DocumentStatus =
  | 'queued'
  | 'extracting'
  | 'chunking'
  | 'embedding'
  | 'indexing'
  | 'done'
  | 'failed'
  | 'deleted';

export interface DocumentsTable {
  id: string;
  agent_id: string;
  project: string | null;
  source_url: string | null;
  source_type: 'url' | 'text' | 'file';
  content_type: string | null;
  content_hash: string | null;
  title: string | null;
  raw_content: string | null;
  status: DocumentStatus;
  error: string | null;
  connector_id: string | null;
  chunk_count: number;
  memory_count: number;
  metadata_json: string;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

/** One part (about 1 MiB) of a large document's text; the parts in order are the whole text. */
export interface DocumentContentPartsTable {
  document_id: string;
  part: number;
  text: string;
}

export interface DocumentMemoriesTable {
  document_id: string;
  memory_id: string;
  chunk_index: number;
}

export interface ConnectorsTable {
  id: string;
  agent_id: string;
  provider: string;
  display_name: string | null;
  config_json: string;
  cursor_json: string | null;
  status: 'idle' | 'syncing' | 'error';
  last_sync_at: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}
