import { createHash } from 'node:crypto';
import { yieldToEventLoop } from '@memory/core';
import {
  deleteConnectorItem,
  findConnectorItem,
  findDocument,
  markConnectorItemSeen,
  moveDocumentSource,
  renameConnectorItem,
  type SqlExecutor,
  type Store,
  unseenConnectorItems,
  unseenItemsWithHash,
  updateConnector,
  upsertConnectorItem,
} from '@memory/store';
import type { Documents } from '../documents/documents.js';
import type { ConnectorBatch, ConnectorItem, ConnectorSource } from './connector-kind.js';
import { MAX_REPORTED_REFUSALS, type SyncState } from './sync-state.js';

/** What processing a sync's batches needs. */
export interface SyncRun {
  readonly store: Store;
  readonly documents: Pick<Documents, 'register' | 'deleteWithin'>;
  readonly connectorId: string;
  readonly agentId: string;
  readonly project: string | null;
  readonly source: ConnectorSource;
  readonly signal: AbortSignal;
  /** The sync's state; counters are written with the rows they count, so a resumed sync counts on. */
  readonly state: SyncState;
}

/** Items gone from the source that are deleted per transaction. */
const DELETE_BATCH = 16;

const saveState = (run: SyncRun, sql: SqlExecutor): void =>
  updateConnector(sql, run.connectorId, { cursor_json: JSON.stringify(run.state) }, run.store.clock.now());

/**
 * Applies one batch of a scan: unchanged items (same version) are marked seen; others are read and
 * hashed: the same bytes under a new key as an item that no longer exists is a rename (the document
 * moves), new bytes are registered as a document (new, or the item's own document replaced). Every
 * item's rows, and the counters, are one transaction: a crash between two items loses neither.
 */
export async function applyBatch(run: SyncRun, batch: ConnectorBatch): Promise<void> {
  const { store, state } = run;
  const seen: string[] = [];
  for (const item of batch.items) {
    if (run.signal.aborted) throw run.signal.reason;
    const row = store.read((sql) => findConnectorItem(sql, run.connectorId, item.key));
    if (row && row.version === item.version) {
      if (row.seen_sync !== state.sync) seen.push(item.key);
      continue;
    }
    await applyItem(run, item, row?.byte_hash ?? null, row !== undefined);
  }
  store.write((sql) => {
    for (const key of seen) markConnectorItemSeen(sql, run.connectorId, key, state.sync);
    state.stats.unchanged += seen.length;
    state.stats.skipped += batch.skipped ?? 0;
    for (const refusal of batch.refused ?? []) {
      state.stats.refused++;
      if (state.refusals.length < MAX_REPORTED_REFUSALS && !state.refusals.some((r) => r.key === refusal.key))
        state.refusals.push(refusal);
    }
    saveState(run, sql);
  });
  if (batch.deleted && batch.deleted.length > 0) await deleteItems(run, batch.deleted);
}

async function applyItem(run: SyncRun, item: ConnectorItem, knownHash: string | null, known: boolean): Promise<void> {
  const { store, state } = run;
  const bytes = await item.read(run.signal);
  const hash = createHash('sha256').update(bytes).digest('hex');
  const now = () => store.clock.now();
  const cursor = (documentId: string | null) => ({
    connector_id: run.connectorId,
    item_key: item.key,
    agent_id: run.agentId,
    version: item.version,
    byte_hash: hash,
    document_id: documentId,
    seen_sync: state.sync,
    updated_at: now(),
  });
  if (known && knownHash === hash) {
    // Touched, not changed (a new mtime): the new version is recorded, nothing is converted.
    store.write((sql) => {
      const row = findConnectorItem(sql, run.connectorId, item.key);
      upsertConnectorItem(sql, cursor(row?.document_id ?? null));
      state.stats.unchanged++;
      saveState(run, sql);
    });
    return;
  }
  if (!known && run.source.exists && (await renamedFrom(run, item, hash))) return;
  await run.documents.register(
    {
      agentId: run.agentId,
      project: run.project,
      title: item.title ?? item.key.slice(item.key.lastIndexOf('/') + 1),
      url: null,
      path: item.key,
      connectorId: run.connectorId,
      content: Buffer.from(bytes).toString('base64'),
      base64: true,
      contentType: item.mediaType,
      contentHash: hash,
    },
    (sql, registered) => {
      upsertConnectorItem(sql, cursor(registered.id));
      if (registered.outcome === 'added') state.stats.added++;
      else if (registered.outcome === 'updated') state.stats.updated++;
      else state.stats.unchanged++;
      saveState(run, sql);
    },
  );
}

/**
 * A rename: an item this sync has not seen, with the same bytes, that no longer exists. Its cursor
 * and document move to the new key. Returns whether the item was one.
 */
async function renamedFrom(run: SyncRun, item: ConnectorItem, hash: string): Promise<boolean> {
  const { store, state } = run;
  const candidates = store.read((sql) => unseenItemsWithHash(sql, run.connectorId, hash, state.sync));
  for (const candidate of candidates) {
    if (await run.source.exists?.(candidate.item_key)) continue;
    return store.write((sql) => {
      // Re-checked inside the transaction: the candidate may have been moved or deleted meanwhile.
      const from = findConnectorItem(sql, run.connectorId, candidate.item_key);
      if (!from || from.seen_sync === state.sync || findConnectorItem(sql, run.connectorId, item.key)) return false;
      renameConnectorItem(sql, run.connectorId, candidate.item_key, item.key);
      upsertConnectorItem(sql, { ...from, item_key: item.key, version: item.version, seen_sync: state.sync });
      if (from.document_id) moveDocumentSource(sql, from.document_id, item.key, item.title ?? null, store.clock.now());
      state.stats.renamed++;
      saveState(run, sql);
      return true;
    });
  }
  return false;
}

/** Deletes the documents of items gone from the source, and their cursors. */
export async function deleteItems(run: SyncRun, keys: readonly string[]): Promise<void> {
  for (let start = 0; start < keys.length; start += DELETE_BATCH) {
    run.store.write((sql) => {
      for (const key of keys.slice(start, start + DELETE_BATCH)) deleteItem(run, sql, key);
      saveState(run, sql);
    });
    await yieldToEventLoop();
  }
}

function deleteItem(run: SyncRun, sql: SqlExecutor, key: string): void {
  const row = findConnectorItem(sql, run.connectorId, key);
  if (!row) return;
  const doc = row.document_id ? findDocument(sql, run.agentId, row.document_id) : undefined;
  if (doc) run.documents.deleteWithin(sql, doc, 'connector-sync', `${key} is gone from connector ${run.connectorId}`);
  deleteConnectorItem(sql, run.connectorId, key);
  run.state.stats.deleted++;
}

/** After a complete full listing: every item the sync did not see is gone. */
export async function deleteUnseen(run: SyncRun): Promise<void> {
  for (;;) {
    if (run.signal.aborted) throw run.signal.reason;
    const gone = run.store.read((sql) => unseenConnectorItems(sql, run.connectorId, run.state.sync, DELETE_BATCH));
    if (gone.length === 0) return;
    await deleteItems(
      run,
      gone.map((row) => row.item_key),
    );
  }
}
