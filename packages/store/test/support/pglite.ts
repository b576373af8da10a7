import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';

// PGlite: PostgreSQL 18 compiled to WebAssembly, in-process, with pgvector (docs: TOOLCHAIN.md §8).
// A cold PGlite.create runs initdb and takes seconds, so a test file shares one instance and gives
// each test its own schema or tables rather than its own instance.

/** Opens an in-memory PGlite with the `vector` extension created. Close it with `close()`. */
export async function createPgliteWithVector(): Promise<PGlite> {
  const db = await PGlite.create({ extensions: { vector } });
  await db.exec('create extension if not exists vector');
  return db;
}

let shared: Promise<PGlite> | undefined;

/**
 * One PGlite (with pgvector) per test file: vitest isolates modules per file, so this module-level
 * instance is never shared across files. Close it in `afterAll` with `closeSharedPglite()`.
 * @example
 * const db = await sharedPglite();
 * await db.query(`select '[1,2,3]'::vector <=> '[1,2,4]'::vector as distance`);
 */
export function sharedPglite(): Promise<PGlite> {
  shared ??= createPgliteWithVector();
  return shared;
}

/** Closes the file's shared PGlite, if one was opened. */
export async function closeSharedPglite(): Promise<void> {
  const opened = shared;
  shared = undefined;
  if (opened) await (await opened).close();
}
