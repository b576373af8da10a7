import { MemoryError } from '@memory/core';
import {
  type Compilable,
  type CompiledQuery,
  createQueryId,
  isCompilable,
  PostgresQueryCompiler,
  type RootOperationNode,
  SqliteQueryCompiler,
} from 'kysely';
import type { RawQuery, RunResult } from '../internal/sql.js';

/** The SQL dialects a store runs on. */
export type Dialect = 'sqlite' | 'postgres';

/**
 * One statement written for each dialect, for SQL the query builder cannot express portably (full
 * text, vectors, locking clauses). SQLite binds `?`, PostgreSQL binds `$1`, `$2`, ...
 */
export interface DialectQuery {
  /** Absent for work that exists on PostgreSQL only (pgvector's mirror, for one). */
  readonly sqlite?: RawQuery;
  readonly postgres: RawQuery;
}

/**
 * A statement a program can run: a Kysely builder (compiled for whichever dialect runs it), a
 * statement per dialect, or a raw SQLite statement (a program using one runs on SQLite only).
 */
/** A Kysely builder: compiles, and exposes the dialect-neutral tree it compiles from. */
export interface BuiltQuery<R = unknown> extends Compilable<R> {
  toOperationNode(): RootOperationNode;
}

export type PortableQuery<R = unknown> = BuiltQuery<R> | DialectQuery | RawQuery;

/** What a program asks its runner to do. Programs never see a connection. */
export type Step =
  | { readonly kind: 'all'; readonly query: PortableQuery }
  | { readonly kind: 'arrays'; readonly query: PortableQuery }
  | { readonly kind: 'get'; readonly query: PortableQuery }
  | { readonly kind: 'run'; readonly query: PortableQuery };

/**
 * A unit of database work written once for every dialect: a generator that yields statements and
 * receives their results. SQLite runs it synchronously inside one transaction; PostgreSQL runs it
 * with an await per statement. It cannot await anything else, so no provider call (LLM, embedder,
 * fetch) can happen inside the transaction that runs it: the boundary rule holds by construction.
 *
 * @example
 * ```ts
 * function* countMemories(agentId: string): Program<number> {
 *   const row = yield* get<{ n: number }>(
 *     queryBuilder.selectFrom('memories').select((eb) => eb.fn.countAll<number>().as('n')).where('agent_id', '=', agentId),
 *   );
 *   return row?.n ?? 0;
 * }
 * ```
 */
export type Program<R> = Generator<Step, R, unknown>;

/** Rows of a query. */
export function* all<R>(query: PortableQuery<R>): Program<R[]> {
  return (yield { kind: 'all', query }) as R[];
}

/**
 * Rows of a query as arrays of column values, in column order: no object per row on SQLite, for
 * long scans (on PostgreSQL the driver's objects are turned into arrays).
 */
export function* arrays(query: PortableQuery): Program<unknown[][]> {
  return (yield { kind: 'arrays', query }) as unknown[][];
}

/** The first row of a query, or undefined. */
export function* get<R>(query: PortableQuery<R>): Program<R | undefined> {
  return (yield { kind: 'get', query }) as R | undefined;
}

/** Runs a statement; resolves with the number of rows it changed. */
export function* run(query: PortableQuery): Program<RunResult> {
  return (yield { kind: 'run', query }) as RunResult;
}

/** Builds a {@link DialectQuery}. */
export function perDialect(sqlite: RawQuery, postgres: RawQuery): DialectQuery {
  return { sqlite, postgres };
}

/** A statement that exists on PostgreSQL only; on SQLite it fails with `STORAGE_ERROR`. */
export function postgresOnly(postgres: RawQuery): DialectQuery {
  return { postgres };
}

const placeholders = new Map<string, string>();

/**
 * A statement whose text is valid on both dialects once placeholders are numbered: each `?`
 * becomes `$1`, `$2`, ... on PostgreSQL (so the text must hold no other `?`). The numbered text is
 * cached per statement text (statements are constants, so the cache stays small).
 */
export function portable(sql: string, ...parameters: unknown[]): DialectQuery {
  let numbered = placeholders.get(sql);
  if (numbered === undefined) {
    let n = 0;
    numbered = sql.replace(/\?/g, () => `$${++n}`);
    if (placeholders.size >= 1024) placeholders.clear();
    placeholders.set(sql, numbered);
  }
  return { sqlite: { sql, parameters }, postgres: { sql: numbered, parameters } };
}

const compilers = { sqlite: new SqliteQueryCompiler(), postgres: new PostgresQueryCompiler() } as const;

function isDialectQuery(query: PortableQuery): query is DialectQuery {
  return typeof query === 'object' && query !== null && 'postgres' in query;
}

/**
 * The text and parameters of a statement in one dialect. A raw SQLite statement asked for
 * PostgreSQL is a `STORAGE_ERROR`: the program using it has no PostgreSQL form yet.
 */
export function statementFor(query: PortableQuery, dialect: Dialect): RawQuery {
  if (isCompilable(query)) {
    const compiled: CompiledQuery = compilers[dialect].compileQuery(query.toOperationNode(), createQueryId());
    return compiled;
  }
  if (isDialectQuery(query)) {
    const statement = query[dialect];
    if (statement) return statement;
    throw new MemoryError('STORAGE_ERROR', 'this operation exists on PostgreSQL only', {
      details: { statement: query.postgres.sql.slice(0, 80) },
    });
  }
  if (dialect === 'sqlite') return query;
  throw new MemoryError('STORAGE_ERROR', 'this operation has no PostgreSQL form yet (a raw SQLite statement)', {
    details: { statement: query.sql.slice(0, 80) },
  });
}
