// The backends the documents' contract suite runs on: SQLite (a file-less store and its synchronous
// queue), PostgreSQL in-process (PGlite) and the run's real PostgreSQL server when there is one.
// Each backend gets the same manual clock and sequential ids, so ids agree across backends.
import {
  createManualClock,
  createSequentialIds,
  createTimerScheduler,
  defaultConfig,
  type ManualClock,
  type MemoryConfig,
} from '@memory/core';
import { createPostgresQueue, createQueue, type Job, type PortableQueue } from '@memory/queue';
import { type MemoryWriteDeps, openStore, type PortableStore, type Store } from '@memory/store';
import { openPostgresStore } from '@memory/store/postgres';
import { closeSharedPglite, sharedPglite } from '../../../store/test/support/pglite.js';
import { postgresTestDatabase, postgresTestServer } from '../../../store/test/support/postgres.js';
import { CONNECTOR_SYNC_JOB, createConnectors } from '../../src/connectors/connectors.js';
import { createDocuments, DOCUMENT_INGEST_JOB } from '../../src/documents/documents.js';
import { createDocumentSearch } from '../../src/documents/search-documents.js';
import { createInputSchemas } from '../../src/inputs.js';
import type { MemoryWriter } from '../../src/writer.js';

export const T0 = Date.UTC(2026, 0, 1);

/** Small chunks, so a short text makes several. */
export const CONFIG: MemoryConfig = {
  ...defaultConfig,
  documents: { ...defaultConfig.documents, chunkSize: 200, chunkOverlap: 0 },
};

/** Documents, connectors and search over one backend, with a job runner. */
export interface DocumentParts {
  readonly store: PortableStore;
  readonly clock: ManualClock;
  readonly documents: ReturnType<typeof createDocuments>;
  readonly connectors: ReturnType<typeof createConnectors>;
  readonly search: ReturnType<typeof createDocumentSearch>;
  /** Leases and runs sync and ingest jobs until none is due; returns the jobs' results in order. */
  runJobs(): Promise<unknown[]>;
  /** A job's status by id. */
  jobStatus(id: string): Promise<string | undefined>;
  /** Leases the next due job and dead-letters it with `error` (its owner's hook runs). */
  killNextJob(error: string): Promise<string | undefined>;
  /** Ends the extraction workers. */
  close(): Promise<void>;
}

export interface Backend {
  readonly name: string;
  /** Why the backend is left out of this run, or undefined when it runs. */
  readonly skip: string | undefined;
  /** Opens the backend's parts over a fresh database (once per file: tests keep to their own agents). */
  open(): Promise<DocumentParts>;
  close(): Promise<void>;
}

function parts(store: PortableStore, clock: ManualClock, queue: PortableQueue, vectors: boolean): DocumentParts {
  // The writer's store type is SQLite's until the memory writer takes a portable store.
  const writer: MemoryWriter = { store: store as Store, config: CONFIG, schemas: createInputSchemas(CONFIG) };
  const memoryWrites: MemoryWriteDeps = {
    ids: store.ids,
    vectorAvailable: vectors,
    inlineEntityLinking: CONFIG.remember.inlineEntityLinking,
  };
  const documents = createDocuments({ writer, queue, memoryWrites, scheduler: createTimerScheduler() });
  const connectors = createConnectors({ store, queue, config: CONFIG, documents });
  queue.onDead(DOCUMENT_INGEST_JOB, documents.ingestDied);
  queue.onDead(CONNECTOR_SYNC_JOB, connectors.syncDied);
  const handlers: Record<string, (job: Job) => Promise<unknown>> = {
    [CONNECTOR_SYNC_JOB]: (job) => connectors.run(job, { signal: new AbortController().signal, deadline: T0 * 2 }),
    [DOCUMENT_INGEST_JOB]: (job) => documents.ingest(job, { signal: new AbortController().signal, deadline: T0 * 2 }),
  };
  return {
    store,
    clock,
    documents,
    connectors,
    search: createDocumentSearch({ store, config: CONFIG }),
    async runJobs() {
      const results: unknown[] = [];
      for (;;) {
        const job = await queue.lease([CONNECTOR_SYNC_JOB, DOCUMENT_INGEST_JOB], 'contract');
        if (!job) return results;
        const handler = handlers[job.jobType];
        if (!handler) throw new Error(`no handler for ${job.jobType}`);
        const result = await handler(job);
        await queue.complete(job.id, job.leaseToken ?? '', result);
        results.push(result);
      }
    },
    jobStatus: async (id) => (await queue.get(id))?.status,
    async killNextJob(error) {
      const job = await queue.lease([CONNECTOR_SYNC_JOB, DOCUMENT_INGEST_JOB], 'contract');
      if (!job) return undefined;
      await queue.fail(job.id, job.leaseToken ?? '', error, { permanent: true });
      return job.id;
    },
    close: async () => documents.close(),
  };
}

function sqliteBackend(): Backend {
  const open: Store[] = [];
  return {
    name: 'sqlite',
    skip: undefined,
    async open() {
      const clock = createManualClock(T0);
      const store = await openStore({ path: ':memory:', clock, ids: createSequentialIds('x') });
      open.push(store);
      return parts(store, clock, createQueue({ store }).portable, store.vector.available);
    },
    async close() {
      for (const store of open.splice(0)) store.close();
    },
  };
}

function postgresBackend(
  name: string,
  skip: string | undefined,
  target: () => Promise<Parameters<typeof openPostgresStore>[0]['target']>,
  release: () => Promise<void>,
): Backend {
  const open: Array<{ close(): Promise<void> }> = [];
  return {
    name,
    skip,
    async open() {
      const clock = createManualClock(T0);
      const store = await openPostgresStore({ target: await target(), clock, ids: createSequentialIds('x') });
      open.push(store);
      return parts(store, clock, createPostgresQueue({ store }), false);
    },
    async close() {
      for (const store of open.splice(0)) await store.close();
      await release();
    },
  };
}

// A cold PGlite costs seconds: one per file.
function pgliteBackend(): Backend {
  return postgresBackend(
    'pglite',
    undefined,
    async () => ({ pglite: await sharedPglite() }),
    () => closeSharedPglite(),
  );
}

export const server = await postgresTestServer();

/**
 * `count` sets of parts, each over its own store (its own pool, as separate processes would have)
 * on one fresh database of the run's server, with ids that cannot collide between them.
 */
export async function openServerParts(count: number): Promise<{ parts: DocumentParts[]; close(): Promise<void> }> {
  const database = await postgresTestDatabase();
  const stores: Array<{ close(): Promise<void> }> = [];
  const opened: DocumentParts[] = [];
  for (let i = 0; i < count; i++) {
    const clock = createManualClock(T0);
    const store = await openPostgresStore({
      target: { connectionString: database.connectionString, maxConnections: 4 },
      clock,
      ids: createSequentialIds(`p${i}`),
    });
    stores.push(store);
    opened.push(parts(store, clock, createPostgresQueue({ store }), false));
  }
  return {
    parts: opened,
    async close() {
      for (const p of opened) await p.close();
      for (const store of stores) await store.close();
      await database.drop();
    },
  };
}

function serverBackend(): Backend {
  const databases: Array<{ drop(): Promise<void> }> = [];
  return postgresBackend(
    'postgres server',
    server.available ? undefined : server.reason,
    async () => {
      const database = await postgresTestDatabase();
      databases.push(database);
      return { connectionString: database.connectionString, maxConnections: 4 };
    },
    async () => {
      for (const database of databases.splice(0)) await database.drop();
    },
  );
}

export const BACKENDS: readonly Backend[] = [sqliteBackend(), pgliteBackend(), serverBackend()];
