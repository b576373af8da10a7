import type {
  Clock,
  EmbeddingProvider,
  IdGenerator,
  LlmProvider,
  Logger,
  MemoryConfigInput,
  RandomSource,
  Scheduler,
  Tracer,
} from '@memory/core';
import { MemoryError } from '@memory/core';
import type { ConnectorKind } from '@memory/ingest';
import type { SqliteDatabase } from '@memory/store';
import type { PostgresTarget } from '@memory/store/postgres';

/**
 * A PostgreSQL database (needs the `pg` package installed): a connection string (the engine owns
 * and ends its pool), a host's `pg.Pool` (left open on close) or an in-process PGlite database
 * (`@electric-sql/pglite`, left open on close). See the README's PostgreSQL section.
 */
export type PostgresDatabaseOption = PostgresTarget;

/** Where the engine keeps its data. */
export type DatabaseOption =
  /** A SQLite file (created if missing) or `":memory:"`. The engine owns and closes it. */
  | { readonly path: string }
  /** An open better-sqlite3 database owned by the host; `engine.close()` leaves it open. */
  | { readonly database: SqliteDatabase }
  /** PostgreSQL, for many processes sharing one memory (preview: see the README). */
  | { readonly postgres: PostgresDatabaseOption };

export interface MemoryEngineOptions {
  readonly database: DatabaseOption;
  /** Enables the semantic channel and vectors at write time. */
  readonly embedder?: EmbeddingProvider;
  /** Enables the prospective-hints worker and Dreaming passes. Called only outside write transactions. */
  readonly llm?: LlmProvider;
  /** When background work runs. @default timers */
  readonly scheduler?: Scheduler;
  /** @default the system clock */
  readonly clock?: Clock;
  /** @default time-ordered random ids */
  readonly ids?: IdGenerator;
  /** Randomness for jitter. @default crypto */
  readonly random?: RandomSource;
  /** @default silent */
  readonly logger?: Logger;
  /**
   * OpenTelemetry tracer (`trace.getTracer('@memory')` from `@opentelemetry/api`): spans for
   * remember, recall (per-channel timings), jobs and provider calls. @default none: no spans, no cost
   */
  readonly tracer?: Tracer;
  /** Partial configuration, deep-merged onto the documented defaults. */
  readonly config?: MemoryConfigInput;
  /**
   * The host's own connector kinds (a mail box, a wiki), next to the built-in `folder`: see
   * `engine.connectors`. Given here, they exist before any sync job left by a crash runs. @default []
   */
  readonly connectorKinds?: readonly ConnectorKind[];
}

/** Checks the parts of the options zod does not see (provider objects, the database choice). */
export function checkOptions(options: unknown): asserts options is MemoryEngineOptions {
  if (typeof options !== 'object' || options === null) {
    throw new MemoryError('INVALID_CONFIG', 'createMemoryEngine needs an options object');
  }
  const { database, embedder, llm } = options as Record<string, unknown>;
  const db = database as Record<string, unknown> | undefined;
  const hasPath = typeof db?.['path'] === 'string' && (db['path'] as string).length > 0;
  const hasDatabase = typeof db?.['database'] === 'object' && db['database'] !== null;
  const hasPostgres = db !== undefined && db !== null && 'postgres' in db;
  if (!db || [hasPath, hasDatabase, hasPostgres].filter(Boolean).length !== 1) {
    throw new MemoryError(
      'INVALID_CONFIG',
      'options.database needs exactly one of { path } (a file or ":memory:"), { database } (a better-sqlite3 instance) or { postgres } ({ connectionString }, { pool } or { pglite })',
    );
  }
  if (hasPostgres) checkPostgresOption(db['postgres']);
  if (embedder !== undefined) {
    const e = embedder as Partial<EmbeddingProvider> | null;
    if (
      !e ||
      typeof e.embed !== 'function' ||
      typeof e.model !== 'string' ||
      e.model.length === 0 ||
      !Number.isInteger(e.dimensions) ||
      (e.dimensions ?? 0) <= 0
    ) {
      throw new MemoryError(
        'INVALID_CONFIG',
        'options.embedder needs embed(), a non-empty model name and positive integer dimensions',
      );
    }
  }
  const { scheduler, random } = options as Record<string, unknown>;
  if (scheduler !== undefined && typeof (scheduler as Partial<Scheduler> | null)?.schedule !== 'function') {
    throw new MemoryError('INVALID_CONFIG', 'options.scheduler needs a schedule(task, delayMs) method');
  }
  if (random !== undefined && typeof (random as Partial<RandomSource> | null)?.float !== 'function') {
    throw new MemoryError('INVALID_CONFIG', 'options.random needs fill() and float() methods');
  }
  if (llm !== undefined && typeof (llm as Partial<LlmProvider> | null)?.generate !== 'function') {
    throw new MemoryError('INVALID_CONFIG', 'options.llm needs a generate() method');
  }
  const { connectorKinds } = options as Record<string, unknown>;
  if (
    connectorKinds !== undefined &&
    (!Array.isArray(connectorKinds) ||
      connectorKinds.some(
        (k) =>
          typeof (k as Partial<ConnectorKind> | null)?.open !== 'function' ||
          typeof (k as Partial<ConnectorKind>).parseConfig !== 'function' ||
          typeof (k as Partial<ConnectorKind>).kind !== 'string',
      ))
  ) {
    throw new MemoryError(
      'INVALID_CONFIG',
      'options.connectorKinds needs connector kinds ({ kind, listing, parseConfig, open })',
    );
  }
  const { tracer } = options as Record<string, unknown>;
  if (tracer !== undefined && typeof (tracer as Partial<Tracer> | null)?.startSpan !== 'function') {
    throw new MemoryError('INVALID_CONFIG', 'options.tracer needs a startSpan() method (an OpenTelemetry Tracer)');
  }
}

function checkPostgresOption(value: unknown): void {
  const target = value as Record<string, unknown> | null;
  const kinds =
    target && typeof target === 'object' ? ['connectionString', 'pool', 'pglite'].filter((k) => k in target) : [];
  const problem =
    kinds.length !== 1
      ? 'needs exactly one of { connectionString }, { pool } (a pg.Pool) or { pglite } (a PGlite database)'
      : kinds[0] === 'connectionString'
        ? typeof target?.['connectionString'] !== 'string' || target['connectionString'].length === 0
          ? 'connectionString must be a non-empty string'
          : undefined
        : typeof target?.[kinds[0] as string] !== 'object' || target[kinds[0] as string] === null
          ? `${kinds[0]} must be an object`
          : undefined;
  if (problem) throw new MemoryError('INVALID_CONFIG', `options.database.postgres ${problem}`);
}
