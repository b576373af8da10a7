import { createHash } from 'node:crypto';
import { yieldToEventLoop } from '@memory/core';
import {
  deleteConnectorItemProgram,
  findConnectorItemProgram,
  findDocumentProgram,
  markConnectorItemSeenProgram,
  moveDocumentSourceProgram,
  type PortableStore,
  type Program,
  renameConnectorItemProgram,
  runWriterProgram,
  unseenConnectorItemsProgram,
  unseenItemsWithHashProgram,
  updateConnectorProgram,
  upsertConnectorItemProgram,
  type WriterTarget,
} from '@memory/store';
import type { Documents } from '../documents/documents.js';
import type { ConnectorBatch, ConnectorItem, ConnectorSource } from './connector-kind.js';
import { MAX_REPORTED_REFUSALS, type SyncState } from './sync-state.js';

/** What processing a sync's batches needs. */
export interface SyncRun {
  readonly store: PortableStore;
  readonly documents: Pick<Documents, 'register' | 'deleteProgram' | 'cancelIngests'>;
  readonly connectorId: string;
  readonly agentId: string;
  readonly project: string | null;
  readonly source: ConnectorSource;
  readonly signal: AbortSignal;
  /**
   * The sync's state; counters are written with the rows they count, so a resumed sync counts on.
   * A write changes a copy and saves it; the copy replaces this once the write committed (on
   * PostgreSQL a write may run twice, and must not count twice).
   */
  readonly state: SyncState;
}

/** Items gone from the source that are deleted per transaction. */
const DELETE_BATCH = 16;

/** A copy of the sync state for one attempt of a write. */
const draft = (run: SyncRun): SyncState => structuredClone(run.state);

function* saveState(run: SyncRun, state: SyncState, now: number): Program<void> {
  yield* updateConnectorProgram(run.connectorId, { cursor_json: JSON.stringify(state) }, now);
}

/** The state a committed write saved becomes the sync's state. */
const commit = (run: SyncRun, state: SyncState): void => {
  Object.assign(run.state, state);
};

/**
 * Applies one batch of a scan: unchanged items (same version) are marked seen; others are read and
 * hashed: the same bytes under a new key as an item that no longer exists is a rename (the document
 * moves), new bytes are registered as a document (new, or the item's own document replaced). Every
 * item's rows, and the counters, are one transaction: a crash between two items loses neither.
 */
export async function applyBatch(run: SyncRun, batch: ConnectorBatch): Promise<void> {
  const { store } = run;
  const seen: string[] = [];
  for (const item of batch.items) {
    if (run.signal.aborted) throw run.signal.reason;
    const row = await store.db.read(() => findConnectorItemProgram(run.connectorId, item.key));
    if (row && row.version === item.version) {
      if (row.seen_sync !== run.state.sync) seen.push(item.key);
      continue;
    }
    await applyItem(run, item, row?.byte_hash ?? null, row !== undefined);
  }
  const now = store.clock.now();
  const saved = await store.db.write(function* () {
    const state = draft(run);
    for (const key of seen) yield* markConnectorItemSeenProgram(run.connectorId, key, state.sync);
    state.stats.unchanged += seen.length;
    state.stats.skipped += batch.skipped ?? 0;
    for (const refusal of batch.refused ?? []) {
      state.stats.refused++;
      if (state.refusals.length < MAX_REPORTED_REFUSALS && !state.refusals.some((r) => r.key === refusal.key))
        state.refusals.push(refusal);
    }
    yield* saveState(run, state, now);
    return state;
  });
  commit(run, saved);
  if (batch.deleted && batch.deleted.length > 0) await deleteItems(run, batch.deleted);
}

async function applyItem(run: SyncRun, item: ConnectorItem, knownHash: string | null, known: boolean): Promise<void> {
  const { store } = run;
  const bytes = await item.read(run.signal);
  const hash = createHash('sha256').update(bytes).digest('hex');
  const now = store.clock.now();
  const cursor = (documentId: string | null) => ({
    connector_id: run.connectorId,
    item_key: item.key,
    agent_id: run.agentId,
    version: item.version,
    byte_hash: hash,
    document_id: documentId,
    seen_sync: run.state.sync,
    updated_at: now,
  });
  if (known && knownHash === hash) {
    // Touched, not changed (a new mtime): the new version is recorded, nothing is converted.
    const saved = await store.db.write(function* () {
      const state = draft(run);
      const row = yield* findConnectorItemProgram(run.connectorId, item.key);
      yield* upsertConnectorItemProgram(cursor(row?.document_id ?? null));
      state.stats.unchanged++;
      yield* saveState(run, state, now);
      return state;
    });
    commit(run, saved);
    return;
  }
  if (!known && run.source.exists && (await renamedFrom(run, item, hash))) return;
  // The state of the attempt that committed (each attempt of the write starts a fresh copy).
  let saved: SyncState | undefined;
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
    function* (registered) {
      const state = draft(run);
      yield* upsertConnectorItemProgram(cursor(registered.id));
      if (registered.outcome === 'added') state.stats.added++;
      else if (registered.outcome === 'updated') state.stats.updated++;
      else state.stats.unchanged++;
      yield* saveState(run, state, now);
      saved = state;
    },
  );
  if (saved) commit(run, saved);
}

/**
 * A rename: an item this sync has not seen, with the same bytes, that no longer exists. Its cursor
 * and document move to the new key. Returns whether the item was one.
 */
async function renamedFrom(run: SyncRun, item: ConnectorItem, hash: string): Promise<boolean> {
  const { store } = run;
  const sync = run.state.sync;
  const candidates = await store.db.read(() => unseenItemsWithHashProgram(run.connectorId, hash, sync));
  for (const candidate of candidates) {
    if (await run.source.exists?.(candidate.item_key)) continue;
    const now = store.clock.now();
    const saved = await store.db.write(function* () {
      // Re-checked inside the transaction: the candidate may have been moved or deleted meanwhile.
      const from = yield* findConnectorItemProgram(run.connectorId, candidate.item_key);
      if (!from || from.seen_sync === sync || (yield* findConnectorItemProgram(run.connectorId, item.key)))
        return undefined;
      const state = draft(run);
      yield* renameConnectorItemProgram(run.connectorId, candidate.item_key, item.key);
      yield* upsertConnectorItemProgram({ ...from, item_key: item.key, version: item.version, seen_sync: sync });
      if (from.document_id) yield* moveDocumentSourceProgram(from.document_id, item.key, item.title ?? null, now);
      state.stats.renamed++;
      yield* saveState(run, state, now);
      return state;
    });
    if (!saved) return false;
    commit(run, saved);
    return true;
  }
  return false;
}

/** Deletes the documents of items gone from the source, and their cursors. */
export async function deleteItems(run: SyncRun, keys: readonly string[]): Promise<void> {
  for (let start = 0; start < keys.length; start += DELETE_BATCH) {
    const now = run.store.clock.now();
    const batch = keys.slice(start, start + DELETE_BATCH);
    const { state, documentIds } = await runWriterProgram(run.store, { agentIds: [run.agentId] }, function* (target) {
      const next = draft(run);
      const deleted: string[] = [];
      for (const key of batch) {
        const documentId = yield* deleteItem(run, target, next, key, now);
        if (documentId) deleted.push(documentId);
      }
      yield* saveState(run, next, now);
      return { state: next, documentIds: deleted };
    });
    commit(run, state);
    await run.documents.cancelIngests(documentIds);
    await yieldToEventLoop();
  }
}

/** Deletes one gone item's document and cursor; returns the id of the document it deleted. */
function* deleteItem(
  run: SyncRun,
  target: WriterTarget,
  state: SyncState,
  key: string,
  now: number,
): Program<string | undefined> {
  const row = yield* findConnectorItemProgram(run.connectorId, key);
  if (!row) return undefined;
  const doc = row.document_id ? yield* findDocumentProgram(run.agentId, row.document_id) : undefined;
  const deletion = doc
    ? yield* run.documents.deleteProgram(
        target,
        doc,
        'connector-sync',
        `${key} is gone from connector ${run.connectorId}`,
        now,
      )
    : undefined;
  yield* deleteConnectorItemProgram(run.connectorId, key);
  state.stats.deleted++;
  return deletion?.deleted ? doc?.id : undefined;
}

/** After a complete full listing: every item the sync did not see is gone. */
export async function deleteUnseen(run: SyncRun): Promise<void> {
  for (;;) {
    if (run.signal.aborted) throw run.signal.reason;
    const sync = run.state.sync;
    const gone = await run.store.db.read(() => unseenConnectorItemsProgram(run.connectorId, sync, DELETE_BATCH));
    if (gone.length === 0) return;
    await deleteItems(
      run,
      gone.map((row) => row.item_key),
    );
  }
}
