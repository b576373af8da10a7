import type { Migration } from './migration.js';
import { POSTGRES_DOCUMENT_PARTS } from './postgres/documents.js';

// A large document's text, in parts of about 1 MiB. Kept in the document row, a 50 MB text made
// every status change rewrite the whole row (~0.4 s each) and its single insert held the event loop
// as long; in parts, each insert, read and status change is a short statement. `raw_content` stays
// for small documents and for rows written before this migration.
export const documentParts: Migration = {
  version: 9,
  name: 'document-parts',
  statements: [
    `CREATE TABLE IF NOT EXISTS document_content_parts (
      document_id TEXT NOT NULL,
      part INTEGER NOT NULL,
      text TEXT NOT NULL,
      PRIMARY KEY (document_id, part)
    )`,
  ],
  postgres: [...POSTGRES_DOCUMENT_PARTS],
};
