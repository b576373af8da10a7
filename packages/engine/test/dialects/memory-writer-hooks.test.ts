import { createManualClock, createSequentialIds, MemoryError, resolveConfig } from '@memory/core';
import { remember } from '@memory/ingest';
import { createPostgresQueue, createQueue, type PortableQueue, type Queue } from '@memory/queue';
import { PROSPECTIVE_INDEX_JOB } from '@memory/recall';
import { openStore, type Store } from '@memory/store';
import { openPostgresStore } from '@memory/store/postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { closeSharedPglite, sharedPglite } from '../../../store/test/support/pglite.js';
import { postgresTestDatabase, postgresTestServer } from '../../../store/test/support/postgres.js';
import { createEngineWriter } from '../../src/memory-writer.js';
import { REGISTRY_AUTOLINK_JOB } from '../../src/registry-autolink.js';
import { unsupportedOnPostgres } from '../../src/unsupported.js';

// The engine writer's derived work (prospective hints, registry auto-link) is queued inside the
// memory's own write on every dialect: the jobs exist exactly when the memory does.

const T0 = Date.UTC(2026, 0, 1);
const server = await postgresTestServer();

interface Backend {
  readonly name: string;
  readonly skip: string | undefined;
  open(): Promise<{ store: Store; queue: Queue; jobs: PortableQueue; close(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'sqlite',
    skip: undefined,
    async open() {
      const store = await openStore({ path: ':memory:', clock: createManualClock(T0), ids: createSequentialIds('s') });
      const queue = createQueue({ store });
      return { store, queue, jobs: queue.portable, close: async () => store.close() };
    },
  },
  ...[
    {
      name: 'pglite',
      skip: undefined,
      target: async () => ({ target: { pglite: await sharedPglite() }, drop: async () => undefined }),
    },
    {
      name: 'postgres server',
      skip: server.available ? undefined : server.reason,
      target: async () => {
        const db = await postgresTestDatabase();
        return { target: { connectionString: db.connectionString }, drop: db.drop };
      },
    },
  ].map(
    ({ name, skip, target }): Backend => ({
      name,
      skip,
      async open() {
        const where = await target();
        const pg = await openPostgresStore({
          target: where.target,
          clock: createManualClock(T0),
          ids: createSequentialIds(`${name.slice(0, 2)}`),
        });
        const jobs = createPostgresQueue({ store: pg });
        // The engine's stand-in: programs run through `db`; the SQLite-only calls refuse.
        const store = unsupportedOnPostgres<Store>('store', {
          dialect: pg.dialect as unknown as Store['dialect'],
          db: pg.db,
          clock: pg.clock,
          ids: pg.ids,
          logger: pg.logger,
          guard: pg.guard,
        });
        return {
          store,
          queue: unsupportedOnPostgres<Queue>('queue', {}),
          jobs,
          close: async () => {
            await pg.close();
            await where.drop();
          },
        };
      },
    }),
  ),
];

afterAll(() => closeSharedPglite());

describe.each(backends)('the engine writer on $name', (backend) => {
  it.skipIf(backend.skip)(
    'queues hints and auto-link jobs in the memory write, and none when it rolls back',
    async () => {
      const { store, queue, jobs, close } = await backend.open();
      try {
        const config = resolveConfig({});
        const writer = createEngineWriter({
          store,
          config,
          queue,
          jobs,
          embedder: undefined,
          hintsOn: true,
          autoLinkOn: true,
        });
        const agentId = `hooks-${backend.name.replace(/\W/g, '')}`;
        const kept = await remember(writer, { agentId, content: 'Derived work follows me.' });
        const leased = [await jobs.lease([PROSPECTIVE_INDEX_JOB], 'w'), await jobs.lease([REGISTRY_AUTOLINK_JOB], 'w')];
        expect(leased.map((job) => job?.memoryId)).toEqual([kept.id, kept.id]);

        // The same hook, then a failure later in the same write: the memory and its jobs roll back together.
        const failing = {
          ...writer,
          onContentLive: writer.onContentLive
            ? (...args: Parameters<NonNullable<typeof writer.onContentLive>>) => {
                writer.onContentLive?.(...args);
                throw new MemoryError('CONFLICT', 'refused after the hook');
              }
            : undefined,
          onContentLiveProgram: writer.onContentLiveProgram
            ? function* (memory: Parameters<NonNullable<typeof writer.onContentLiveProgram>>[0]) {
                const hook = writer.onContentLiveProgram;
                if (hook) yield* hook(memory);
                throw new MemoryError('CONFLICT', 'refused after the hook');
              }
            : undefined,
        };
        await expect(remember(failing, { agentId, content: 'Never stored.' })).rejects.toMatchObject({
          code: 'CONFLICT',
        });
        expect(await jobs.lease([PROSPECTIVE_INDEX_JOB, REGISTRY_AUTOLINK_JOB], 'w')).toBeUndefined();
      } finally {
        await close();
      }
    },
  );
});
