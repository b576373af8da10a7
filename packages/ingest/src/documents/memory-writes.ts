import {
  memoryScopeLockKeys,
  POSTGRES_WRITER,
  type PortableStore,
  type Program,
  type SqlExecutor,
  type Store,
  type WriteCallback,
  type WriterTarget,
} from '@memory/store';
import { runSqliteProgram } from '@memory/store/sql';

/** True when a portable store is a SQLite `Store` (its executor, vec0 index and checkpoints exist). */
export function isSqliteStore(store: PortableStore): store is Store {
  return store.dialect === 'sqlite' && 'checkpoint' in store;
}

/**
 * Runs a program that writes memories through the store's memory writer, in one write transaction
 * on either dialect. The writer's programs need their target: on SQLite the executor (the vec0
 * index and the executor hooks run on it between statements), on PostgreSQL nothing. With
 * `deferTextIndex` (a program that creates memories) SQLite's text index insert trigger stays idle
 * and the writer indexes the batch itself, as `createMemories` does. On PostgreSQL the write holds
 * the scope's lock key, as the memory writer's other paths do (writers of one scope take turns).
 */
export function writeMemories<R>(
  store: PortableStore,
  agentId: string,
  program: (target: WriterTarget) => Program<R>,
  options: { readonly deferTextIndex?: boolean } = {},
): Promise<R> {
  if (!isSqliteStore(store))
    return store.db.write(() => program(POSTGRES_WRITER), { lockKeys: memoryScopeLockKeys([agentId]) });
  try {
    const run = (sql: SqlExecutor): R => {
      const go = () => runSqliteProgram(sql, program({ dialect: 'sqlite', sql }));
      return options.deferTextIndex ? sql.withMemoryTextIndexDeferred(go) : go();
    };
    // A program's result is never a promise (it cannot await), which WriteCallback's type cannot see.
    return Promise.resolve(store.write(run as WriteCallback<R>));
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Lets SQLite's background checkpoint catch up after a large write (a window of chunks, parts of a
 * text); PostgreSQL has nothing to wait for.
 */
export async function checkpointAfterWrites(store: PortableStore): Promise<void> {
  if (isSqliteStore(store)) await store.checkpoint();
}
