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
  /** A file's path inside its connector's root (or the path given with `documents.add`). */
  source_path: string | null;
  /** The current conversion: 1 for the first, one more each time a changed source is converted again. */
  conversion: number;
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
  /** The conversion that produced (or kept) this chunk. */
  conversion: number;
  /** JSON `{ page?, pageEnd?, section?, offset }`: where the chunk starts in the extracted text. */
  location_json: string | null;
}

/** A document's earlier conversion, kept when a changed source replaced it. */
export interface DocumentConversionsTable {
  document_id: string;
  conversion: number;
  agent_id: string;
  content_type: string | null;
  content_hash: string | null;
  extraction_json: string;
  chunk_count: number;
  memory_count: number;
  completed_at: number | null;
  replaced_at: number;
}

/** One item a connector has seen: its cursor (version and byte hash) and the document it became. */
export interface ConnectorItemsTable {
  connector_id: string;
  item_key: string;
  agent_id: string;
  version: string;
  byte_hash: string | null;
  document_id: string | null;
  seen_sync: number;
  updated_at: number;
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
