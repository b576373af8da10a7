import type { SqliteDatabase } from './internal/sqlite.js';

/** Whether sqlite-vec is loaded into the connection. */
export type VectorSupport =
  | { readonly available: true; readonly version: string }
  | { readonly available: false; readonly reason: string };

interface SqliteVecModule {
  load(db: SqliteDatabase): void;
}

function isSqliteVecModule(value: unknown): value is SqliteVecModule {
  return typeof value === 'object' && value !== null && typeof (value as { load?: unknown }).load === 'function';
}

/**
 * Loads sqlite-vec when it is installed. Its absence (package missing, no binary for this platform,
 * extension loading disabled) is reported, never fatal: recall then uses the bounded fallback scan.
 */
export async function loadVectorExtension(db: SqliteDatabase, mode: 'auto' | 'off'): Promise<VectorSupport> {
  if (mode === 'off') return { available: false, reason: 'disabled by config.store.vectorExtension' };
  try {
    // A host that passes its own connection may already have loaded it.
    const existing = tryVersion(db);
    if (existing) return { available: true, version: existing };
    const mod: unknown = await import('sqlite-vec');
    if (!isSqliteVecModule(mod)) return { available: false, reason: 'the sqlite-vec module has no load()' };
    mod.load(db);
    const version = tryVersion(db);
    return version ? { available: true, version } : { available: false, reason: 'vec_version() failed after load' };
  } catch (error) {
    return { available: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

function tryVersion(db: SqliteDatabase): string | undefined {
  try {
    const row = db.prepare('SELECT vec_version() AS v').get() as { v: string } | undefined;
    return row?.v;
  } catch {
    return undefined;
  }
}
