/**
 * The open connector interface: a kind turns its stored configuration into a source that lists
 * items in batches, each with a cheap version (a folder file's mtime and size) and a way to read
 * its bytes. A host registers its own kinds (a mail box, a wiki) with `engine.connectors.registerKind`.
 */

/** One item a source lists. */
export interface ConnectorItem {
  /** Stable key of the item inside its connector (a folder file's path relative to the root). */
  readonly key: string;
  /**
   * The item's version as the source tells it without reading it (mtime and size, an ETag, a
   * message UID): an item whose version did not change since the last sync is not read again.
   */
  readonly version: string;
  /** Its media type, one `documents.add` extracts (text, Markdown, JSON, HTML, PDF, DOCX). */
  readonly mediaType: string;
  /** A title for the document (default: the key's last segment). */
  readonly title?: string | undefined;
  /** Reads the item's bytes (at most `maxBytes`, see {@link ConnectorOpenContext}). */
  read(signal: AbortSignal): Promise<Uint8Array>;
}

/** An item the source will not give, and why (outside the root, too large, a refused format). */
export interface ConnectorRefusal {
  readonly key: string;
  readonly reason: string;
}

/** One batch of a scan. Keep batches small (tens of items): each is written before the next is read. */
export interface ConnectorBatch {
  readonly items: readonly ConnectorItem[];
  /** Items left out, reported in the connector's status; a document one had is deleted as for a gone item. */
  readonly refused?: readonly ConnectorRefusal[] | undefined;
  /** Items not indexed by choice (an unknown file type): counted, never reported one by one. */
  readonly skipped?: number | undefined;
  /** Keys the source says are gone (sources that list changes only): their documents are deleted. */
  readonly deleted?: readonly string[] | undefined;
}

/** What a scan is given. */
export interface ConnectorScanContext {
  readonly signal: AbortSignal;
  /** The cursor the last complete scan returned from `cursor()` (undefined the first time). */
  readonly cursor: unknown;
}

/** A configured source, opened for one sync. */
export interface ConnectorSource {
  /** Lists items in batches. A sync interrupted by a crash scans again from the same cursor. */
  scan(context: ConnectorScanContext): AsyncIterable<ConnectorBatch>;
  /**
   * Whether an item still exists. With it, an item that appears under a new key with the same bytes
   * as one that no longer exists is a rename: its document moves, nothing is extracted again.
   */
  exists?(key: string): Promise<boolean>;
  /** After a complete scan, the cursor to hand the next one (sources that list changes since a point). */
  cursor?(): unknown;
}

/** What opening a source is given. */
export interface ConnectorOpenContext {
  /** Largest item the engine ingests (`documents.maxBytes`): larger ones should be refused unread. */
  readonly maxBytes: number;
}

/** A kind of connector. */
export interface ConnectorKind {
  /** Its name, as `register({ kind })` gives it: lower-case letters, digits and dashes. */
  readonly kind: string;
  /**
   * `full`: every scan lists every item, and items a finished scan did not list are gone (a
   * folder). `changes`: a scan lists what changed since its cursor and reports deletions itself.
   */
  readonly listing: 'full' | 'changes';
  /**
   * Checks the configuration given to `register` (`root`, `include`, `exclude` and `config`, merged
   * into one object) and returns what is stored; throws a `MemoryError('INVALID_INPUT')` if bad.
   */
  parseConfig(config: Readonly<Record<string, unknown>>): Promise<Readonly<Record<string, unknown>>>;
  /** Opens a source over a stored configuration. */
  open(config: Readonly<Record<string, unknown>>, context: ConnectorOpenContext): ConnectorSource;
}
