import { createMemoryEngine, type MemoryEngine, MemoryError } from '@memory/engine';
import { createOfflineEmbedder } from '@memory/providers';

/** Embedders a command-line host can choose without code. */
export const EMBEDDER_CHOICES = ['none', 'offline'] as const;
/** One of `EMBEDDER_CHOICES`. */
export type EmbedderChoice = (typeof EMBEDDER_CHOICES)[number];

/** The engine a command-line host opens. */
export interface OpenEngineOptions {
  /** A SQLite file (created if missing), or a `postgres://` / `postgresql://` connection string. */
  readonly db: string;
  /** `offline`: the bundled GloVe embedder (no network); `none`: recall without its semantic channel. @default 'none' */
  readonly embedder?: EmbedderChoice;
  /** Directories `imports.start` may read files from. */
  readonly allowedImportDirectories?: readonly string[];
}

/** Checks an `--embedder` value. */
export function parseEmbedderChoice(value: string): EmbedderChoice {
  const choice = EMBEDDER_CHOICES.find((c) => c === value);
  if (!choice)
    throw new MemoryError('INVALID_INPUT', `--embedder must be one of ${EMBEDDER_CHOICES.join(', ')}, not ${value}`);
  return choice;
}

/**
 * Opens the engine a command-line host serves: a database file and the chosen embedder, with the
 * engine's documented defaults for everything else.
 *
 * @example
 * ```ts
 * const engine = await openEngineForHost({ db: './memory.db', embedder: 'offline' });
 * ```
 */
export async function openEngineForHost(options: OpenEngineOptions): Promise<MemoryEngine> {
  const embedder = options.embedder === 'offline' ? createOfflineEmbedder() : undefined;
  const dirs = options.allowedImportDirectories;
  return createMemoryEngine({
    database: isPostgresUrl(options.db) ? { postgres: { connectionString: options.db } } : { path: options.db },
    ...(embedder ? { embedder } : {}),
    ...(dirs && dirs.length > 0 ? { config: { imports: { allowedDirectories: [...dirs] } } } : {}),
  });
}

/** Whether a `--db` value names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}
