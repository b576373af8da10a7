import {
  agentIdSchema,
  isMemoryError,
  labelSchema,
  type MemoryConfig,
  MemoryError,
  parseInput,
  yieldToEventLoop,
} from '@memory/core';
import { type Job, type JobContext, PermanentJobError, type PortableQueue } from '@memory/queue';
import {
  type ConnectorRow,
  countConnectorDocumentsProgram,
  countConnectorItemsProgram,
  deleteConnectorProgram,
  findConnectorProgram,
  findDocumentProgram,
  insertConnectorProgram,
  listConnectorsProgram,
  liveConnectorDocumentIdsProgram,
  type PortableStore,
  type Program,
  runWriterProgram,
  updateConnectorProgram,
} from '@memory/store';
import { z } from 'zod';
import type { Documents } from '../documents/documents.js';
import type { ConnectorKind, ConnectorRefusal } from './connector-kind.js';
import { folderKind } from './folder-kind.js';
import { applyBatch, deleteUnseen, type SyncRun } from './sync-items.js';
import { emptyStats, parseSyncState, type SyncState, type SyncStats } from './sync-state.js';

export const CONNECTOR_SYNC_JOB = 'connector_sync';

/** A connector as the API returns it. */
export interface ConnectorView {
  readonly id: string;
  readonly agentId: string;
  readonly kind: string;
  readonly name: string | null;
  readonly project: string | null;
  /** The kind's stored configuration (a folder's `root`, `include`, `exclude`). */
  readonly config: Readonly<Record<string, unknown>>;
  /** `syncing` from `sync()` until the sync finished; `error` when its last attempt failed. */
  readonly status: 'idle' | 'syncing' | 'error';
  readonly lastSyncAt: number | null;
  readonly lastError: string | null;
  readonly sync: {
    readonly number: number;
    readonly running: boolean;
    readonly jobId: string | null;
    readonly stats: SyncStats;
    readonly refusals: readonly ConnectorRefusal[];
    readonly startedAt: number | null;
    readonly finishedAt: number | null;
  };
  /** Items tracked (each with its cursor). */
  readonly items: number;
  /** The connector's documents by status (their ingest runs after the sync, as document jobs). */
  readonly documents: Readonly<Record<string, number>>;
  readonly createdAt: number;
}

interface StoredConfig {
  readonly config: Readonly<Record<string, unknown>>;
  readonly project: string | null;
}

const KIND_NAME = /^[a-z][a-z0-9-]{0,63}$/;

const schemas = {
  register: z.strictObject({
    agentId: agentIdSchema,
    /** `folder`, or a kind the host registered. */
    kind: z.string().regex(KIND_NAME, 'kind must be lower-case letters, digits and dashes'),
    name: labelSchema(256, 'name').optional(),
    project: labelSchema(256, 'project').optional(),
    /** A folder's absolute root directory. */
    root: z.string().min(1).max(4096).optional(),
    include: z.array(z.string().min(1).max(1024)).max(100).optional(),
    exclude: z.array(z.string().min(1).max(1024)).max(100).optional(),
    /** A host kind's own settings. */
    config: z.record(z.string(), z.unknown()).optional(),
  }),
  scoped: z.strictObject({ agentId: agentIdSchema, id: labelSchema(128, 'id') }),
  list: z.strictObject({ agentId: agentIdSchema, limit: z.number().int().min(1).max(500).optional() }),
};

export type RegisterConnectorInput = z.input<typeof schemas.register>;
export type ConnectorRef = z.input<typeof schemas.scoped>;
export type ListConnectorsInput = z.input<typeof schemas.list>;

const storedOf = (row: ConnectorRow): StoredConfig => {
  try {
    return JSON.parse(row.config_json) as StoredConfig;
  } catch {
    return { config: {}, project: null };
  }
};

/** Documents a connector's removal deletes per transaction. */
const REMOVE_BATCH = 16;

/**
 * Connectors: external sources (a folder, or a host's own kind) kept in sync with an agent's
 * documents by durable `connector_sync` jobs, on either dialect.
 */
export function createConnectors(deps: {
  store: PortableStore;
  /** The queue's promise API (`createPostgresQueue`, or a SQLite queue's `portable`). */
  queue: PortableQueue;
  config: MemoryConfig;
  documents: Pick<Documents, 'register' | 'deleteProgram' | 'cancelIngests'>;
}) {
  const { store, queue, config, documents } = deps;
  const kinds = new Map<string, ConnectorKind>([[folderKind.kind, folderKind]]);

  function* view(row: ConnectorRow): Program<ConnectorView> {
    const stored = storedOf(row);
    const state = parseSyncState(row.cursor_json);
    return {
      id: row.id,
      agentId: row.agent_id,
      kind: row.provider,
      name: row.display_name,
      project: stored.project,
      config: stored.config,
      status: row.status,
      lastSyncAt: row.last_sync_at,
      lastError: row.last_error,
      sync: {
        number: state.sync,
        running: state.running,
        jobId: (state as SyncState & { jobId?: string }).jobId ?? null,
        stats: state.stats,
        refusals: state.refusals,
        startedAt: state.startedAt,
        finishedAt: state.finishedAt,
      },
      items: yield* countConnectorItemsProgram(row.id),
      documents: yield* countConnectorDocumentsProgram(row.id),
      createdAt: row.created_at,
    };
  }

  function* mustFind(agentId: string, id: string): Program<ConnectorRow> {
    const row = yield* findConnectorProgram(agentId, id);
    if (!row) throw new MemoryError('NOT_FOUND', `no connector ${id} in this scope`, { details: { id } });
    return row;
  }

  /**
   * The queue's dead-letter hook for `connector_sync` jobs (a program, run in the transaction that
   * dead-letters the job): the connector says `error`, its sync is no longer running (a new `sync()`
   * starts over, skipping unchanged items).
   */
  function* syncDied(job: Job): Program<void> {
    const payload = job.payload as { connectorId?: unknown; agentId?: unknown };
    if (typeof payload.connectorId !== 'string' || typeof payload.agentId !== 'string') return;
    const row = yield* findConnectorProgram(payload.agentId, payload.connectorId);
    if (!row) return;
    const state = parseSyncState(row.cursor_json);
    state.running = false;
    yield* updateConnectorProgram(
      row.id,
      {
        status: 'error',
        last_error: `sync job ${job.id} died: ${job.error ?? 'no error recorded'}`,
        cursor_json: JSON.stringify(state),
      },
      store.clock.now(),
    );
  }

  async function run(job: Job, context: JobContext): Promise<unknown> {
    const payload = job.payload as { connectorId?: unknown; agentId?: unknown };
    if (typeof payload.connectorId !== 'string' || typeof payload.agentId !== 'string')
      throw new PermanentJobError('connector_sync payload needs connectorId and agentId');
    const { connectorId, agentId } = payload as { connectorId: string; agentId: string };
    const row = await store.db.read(() => findConnectorProgram(agentId, connectorId));
    if (!row) return { skipped: 'removed' };
    const kind = kinds.get(row.provider);
    // Retried, not dead-lettered: a host registers its kinds with `connectorKinds` (or may not have
    // called `registerKind` yet after a restart).
    if (!kind)
      throw new MemoryError('INVALID_CONFIG', `connector kind ${row.provider} is not registered in this engine`, {
        details: { kind: row.provider },
      });
    const state = parseSyncState(row.cursor_json);
    if (!state.running) return { skipped: 'not syncing' };
    const stored = storedOf(row);
    const source = kind.open(stored.config, { maxBytes: config.documents.maxBytes });
    const sync: SyncRun = {
      store,
      documents,
      connectorId,
      agentId,
      project: stored.project,
      source,
      signal: context.signal,
      state,
    };
    try {
      const started = store.clock.now();
      await store.db.write(() => updateConnectorProgram(connectorId, { status: 'syncing', last_error: null }, started));
      for await (const batch of source.scan({ signal: context.signal, cursor: state.source })) {
        if (!(await store.db.read(() => findConnectorProgram(agentId, connectorId)))) return { skipped: 'removed' };
        await applyBatch(sync, batch);
        await yieldToEventLoop();
      }
      if (kind.listing === 'full') await deleteUnseen(sync);
      const now = store.clock.now();
      state.running = false;
      state.finishedAt = now;
      if (source.cursor) state.source = source.cursor();
      const finished = {
        status: 'idle',
        last_sync_at: now,
        last_error: null,
        cursor_json: JSON.stringify(state),
      } as const;
      await store.db.write(() => updateConnectorProgram(connectorId, finished, now));
      return { sync: state.sync, ...state.stats };
    } catch (error) {
      // Interrupted by shutdown: the sync stays `syncing` and resumes with the job.
      if (isMemoryError(context.signal.reason, 'ENGINE_CLOSED')) throw error;
      const message = error instanceof Error ? error.message : String(error);
      const now = store.clock.now();
      await store.db.write(() => updateConnectorProgram(connectorId, { status: 'error', last_error: message }, now));
      throw error;
    }
  }

  return {
    run,
    syncDied,
    /** Adds a connector kind (a host's own source). `CONFLICT` if one of that name exists. */
    registerKind(kind: ConnectorKind): void {
      if (!KIND_NAME.test(kind.kind))
        throw new MemoryError(
          'INVALID_INPUT',
          'a connector kind needs a name of lower-case letters, digits and dashes',
          {
            details: { kind: kind.kind },
          },
        );
      if (kind.listing !== 'full' && kind.listing !== 'changes')
        throw new MemoryError('INVALID_INPUT', "a connector kind's listing is 'full' or 'changes'", {
          details: { kind: kind.kind },
        });
      if (kinds.has(kind.kind))
        throw new MemoryError('CONFLICT', `connector kind ${kind.kind} is already registered`, {
          details: { kind: kind.kind },
        });
      kinds.set(kind.kind, kind);
    },
    /** Registers a connector (its configuration checked by its kind). Nothing is read until `sync`. */
    async register(input: unknown): Promise<ConnectorView> {
      const request = parseInput(schemas.register, input, 'connectors.register');
      const kind = kinds.get(request.kind);
      if (!kind)
        throw new MemoryError('INVALID_INPUT', `connectors.register: unknown kind ${request.kind}`, {
          details: { kind: request.kind, known: [...kinds.keys()] },
        });
      const given: Record<string, unknown> = { ...request.config };
      if (request.root !== undefined) given.root = request.root;
      if (request.include !== undefined) given.include = request.include;
      if (request.exclude !== undefined) given.exclude = request.exclude;
      const parsed = await kind.parseConfig(given);
      const now = store.clock.now();
      const id = store.ids.next();
      return store.db.write(function* () {
        yield* insertConnectorProgram({
          id,
          agent_id: request.agentId,
          provider: kind.kind,
          display_name: request.name ?? null,
          config_json: JSON.stringify({ config: parsed, project: request.project ?? null } satisfies StoredConfig),
          cursor_json: null,
          status: 'idle',
          last_sync_at: null,
          last_error: null,
          created_at: now,
          updated_at: now,
        });
        return yield* view(yield* mustFind(request.agentId, id));
      });
    },
    /**
     * Starts a sync as a durable job (runs after `start()` or on `runDue()`, under document
     * admission); a sync already running is returned as is. New and changed items become document
     * ingest jobs; gone items' documents are deleted at the end.
     */
    async sync(input: unknown): Promise<{ id: string; jobId: string; sync: number }> {
      const { agentId, id } = parseInput(schemas.scoped, input, 'connectors.sync');
      const now = store.clock.now();
      return store.db.write(function* () {
        const row = yield* mustFind(agentId, id);
        const state = parseSyncState(row.cursor_json) as SyncState & { jobId?: string };
        const next: SyncState & { jobId?: string } = state.running
          ? state
          : {
              sync: state.sync + 1,
              running: true,
              stats: emptyStats(),
              refusals: [],
              source: state.source,
              startedAt: now,
              finishedAt: null,
            };
        const job = yield* queue.enqueueProgram({
          jobType: CONNECTOR_SYNC_JOB,
          payload: { connectorId: id, agentId },
          dedupKey: id,
          agentId,
          resumable: true,
        });
        const jobId = job.id;
        next.jobId = jobId;
        yield* updateConnectorProgram(id, { status: 'syncing', cursor_json: JSON.stringify(next) }, now);
        return { id, jobId, sync: next.sync };
      });
    },
    /** The connector with its sync state and counts, or undefined outside its scope. */
    status(input: unknown): Promise<ConnectorView | undefined> {
      const { agentId, id } = parseInput(schemas.scoped, input, 'connectors.status');
      return store.db.read(function* () {
        const row = yield* findConnectorProgram(agentId, id);
        return row ? yield* view(row) : undefined;
      });
    },
    list(input: unknown): Promise<ConnectorView[]> {
      const { agentId, limit } = parseInput(schemas.list, input, 'connectors.list');
      return store.db.read(function* () {
        const views: ConnectorView[] = [];
        for (const row of yield* listConnectorsProgram(agentId, limit ?? 50)) views.push(yield* view(row));
        return views;
      });
    },
    /**
     * Removes a connector: its sync job is cancelled, its documents deleted (their chunk memories
     * forgotten with history, unless another document shares them), its cursors dropped.
     */
    async remove(input: unknown): Promise<{ removed: boolean; deletedDocuments: number }> {
      const { agentId, id } = parseInput(schemas.scoped, input, 'connectors.remove');
      const row = await store.db.read(() => mustFind(agentId, id));
      const state = parseSyncState(row.cursor_json) as SyncState & { jobId?: string };
      if (state.jobId) await queue.cancel({ ids: [state.jobId], apply: true });
      let deleted = 0;
      for (;;) {
        const now = store.clock.now();
        const ids = await runWriterProgram(store, { agentIds: [agentId] }, function* (target) {
          const ids = yield* liveConnectorDocumentIdsProgram(id, REMOVE_BATCH);
          for (const docId of ids) {
            const doc = yield* findDocumentProgram(agentId, docId);
            if (doc) yield* documents.deleteProgram(target, doc, 'connector-remove', `connector ${id} removed`, now);
          }
          return ids;
        });
        await documents.cancelIngests(ids);
        deleted += ids.length;
        if (ids.length < REMOVE_BATCH) break;
        await yieldToEventLoop();
      }
      await store.db.write(() => deleteConnectorProgram(id));
      return { removed: true, deletedDocuments: deleted };
    },
  };
}

export type Connectors = ReturnType<typeof createConnectors>;
