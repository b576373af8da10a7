import type { SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

/** An embedder identity the file has seen: its model, dimensions and the key its vectors are stored under. */
export interface EmbedderIdentity {
  readonly vectorKey: string;
  readonly model: string;
  readonly dimensions: number;
  readonly firstUsedAt: number;
  readonly lastUsedAt: number;
}

/** A change of embedder identity an engine saw at open. */
export interface EmbeddingMigration {
  readonly id: number;
  /** The identity used before (null: the file had no vectors yet). */
  readonly fromKey: string | null;
  readonly toKey: string;
  readonly changedAt: number;
  /** When the last memory got a vector of `toKey` (null: still running, or deferred). */
  readonly finishedAt: number | null;
}

const IDENTITY = `SELECT vector_key AS "vectorKey", model, dimensions, first_used_at AS "firstUsedAt",
  last_used_at AS "lastUsedAt" FROM embedder_identities`;

// Never moves backwards: a clock set back must not make an older identity look current.
const TOUCH = {
  sqlite: 'UPDATE embedder_identities SET last_used_at = max(last_used_at, ?) WHERE vector_key = ?',
  postgres: 'UPDATE embedder_identities SET last_used_at = greatest(last_used_at, $1) WHERE vector_key = $2',
};

/**
 * The key an embedder's vectors are stored under, recorded on first use: the model name, unless
 * that name already means other dimensions in this file (a host changed `dimensions` and kept the
 * name), then `model#dims` (then `model#dims#2`, ... should a real model be named like that). So
 * vectors of two identities never share a key, and a later open with either identity finds its own
 * vectors again. Records a change when the most recently used identity was another one.
 */
export function useEmbedderIdentity(
  sql: SqlExecutor,
  embedder: { model: string; dimensions: number },
  now: number,
): { identity: EmbedderIdentity; change?: EmbeddingMigration } {
  return runSqliteProgram(sql, useEmbedderIdentityProgram(embedder, now));
}

/**
 * {@link useEmbedderIdentity} as a program (both dialects; PostgreSQL's `embedder_identities.rowid`
 * is the explicit insert order SQLite's rowid is).
 */
export function* useEmbedderIdentityProgram(
  embedder: { model: string; dimensions: number },
  now: number,
): Program<{ identity: EmbedderIdentity; change?: EmbeddingMigration }> {
  const previous = yield* get<EmbedderIdentity>(portable(`${IDENTITY} ORDER BY last_used_at DESC, rowid DESC LIMIT 1`));
  let identity = yield* get<EmbedderIdentity>(
    portable(`${IDENTITY} WHERE model = ? AND dimensions = ?`, embedder.model, embedder.dimensions),
  );
  if (!identity) {
    let key = embedder.model;
    for (let n = 1; ; n++) {
      const taken = yield* get(portable('SELECT 1 AS x FROM embedder_identities WHERE vector_key = ?', key));
      if (taken === undefined) break;
      key = `${embedder.model}#${embedder.dimensions}${n > 1 ? `#${n}` : ''}`;
    }
    yield* run(
      portable(
        `INSERT INTO embedder_identities (vector_key, model, dimensions, first_used_at, last_used_at)
         VALUES (?, ?, ?, ?, ?)`,
        key,
        embedder.model,
        embedder.dimensions,
        now,
        now,
      ),
    );
    identity = { vectorKey: key, ...embedder, firstUsedAt: now, lastUsedAt: now };
  } else {
    const parameters = [Math.max(now, previous?.lastUsedAt ?? now), identity.vectorKey];
    yield* run(perDialect({ sql: TOUCH.sqlite, parameters }, { sql: TOUCH.postgres, parameters }));
  }
  if (previous?.vectorKey === identity.vectorKey || (!previous && !(yield* hasMemoryVectors()))) return { identity };
  const inserted = yield* get<{ id: number }>(
    portable(
      'INSERT INTO embedding_migrations (from_key, to_key, changed_at) VALUES (?, ?, ?) RETURNING id',
      previous?.vectorKey ?? null,
      identity.vectorKey,
      now,
    ),
  );
  const id = inserted?.id as number;
  return {
    identity,
    change: { id, fromKey: previous?.vectorKey ?? null, toKey: identity.vectorKey, changedAt: now, finishedAt: null },
  };
}

function* hasMemoryVectors(): Program<boolean> {
  return (yield* get(portable("SELECT 1 AS x FROM embeddings WHERE source_type = 'memory' LIMIT 1"))) !== undefined;
}

/** Every identity the file has seen, most recently used first. */
export function listEmbedderIdentities(sql: SqlExecutor): EmbedderIdentity[] {
  return runSqliteProgram(sql, listEmbedderIdentitiesProgram());
}

/** {@link listEmbedderIdentities} as a program (both dialects). */
export function* listEmbedderIdentitiesProgram(): Program<EmbedderIdentity[]> {
  return yield* all<EmbedderIdentity>(portable(`${IDENTITY} ORDER BY last_used_at DESC, rowid DESC`));
}

const LATEST_MIGRATION = `SELECT id, from_key AS "fromKey", to_key AS "toKey", changed_at AS "changedAt",
  finished_at AS "finishedAt" FROM embedding_migrations ORDER BY id DESC LIMIT 1`;

/** The latest recorded change of embedder identity, if any. */
export function latestEmbeddingMigration(sql: SqlExecutor): EmbeddingMigration | undefined {
  return runSqliteProgram(sql, latestEmbeddingMigrationProgram());
}

/** {@link latestEmbeddingMigration} as a program (both dialects). */
export function* latestEmbeddingMigrationProgram(): Program<EmbeddingMigration | undefined> {
  return yield* get<EmbeddingMigration>(portable(LATEST_MIGRATION));
}

/** Marks the open migrations to `toKey` finished (every live memory has a vector of it). */
export function finishEmbeddingMigrations(sql: SqlExecutor, toKey: string, now: number): void {
  runSqliteProgram(sql, finishEmbeddingMigrationsProgram(toKey, now));
}

/** {@link finishEmbeddingMigrations} as a program (both dialects). */
export function* finishEmbeddingMigrationsProgram(toKey: string, now: number): Program<void> {
  yield* run(
    portable('UPDATE embedding_migrations SET finished_at = ? WHERE to_key = ? AND finished_at IS NULL', now, toKey),
  );
}

/** Records a host's request to re-embed a scope ('' = every scope) with `vectorKey`; kept until done. */
export function requestReembed(sql: SqlExecutor, agentId: string, vectorKey: string, now: number): void {
  runSqliteProgram(sql, requestReembedProgram(agentId, vectorKey, now));
}

/** {@link requestReembed} as a program (both dialects). */
export function* requestReembedProgram(agentId: string, vectorKey: string, now: number): Program<void> {
  yield* run(
    portable(
      `INSERT INTO embedding_reembeds (agent_id, vector_key, requested_at) VALUES (?, ?, ?)
       ON CONFLICT (agent_id, vector_key) DO NOTHING`,
      agentId,
      vectorKey,
      now,
    ),
  );
}

/** The scopes with a pending re-embed request for `vectorKey` ('' = every scope). */
export function reembedRequests(sql: SqlExecutor, vectorKey: string): string[] {
  return runSqliteProgram(sql, reembedRequestsProgram(vectorKey));
}

/** {@link reembedRequests} as a program (both dialects). */
export function* reembedRequestsProgram(vectorKey: string): Program<string[]> {
  const rows = yield* all<{ agentId: string }>(
    portable('SELECT agent_id AS "agentId" FROM embedding_reembeds WHERE vector_key = ? ORDER BY agent_id', vectorKey),
  );
  return rows.map((r) => r.agentId);
}

/** Drops a fulfilled re-embed request. */
export function clearReembedRequest(sql: SqlExecutor, agentId: string, vectorKey: string): void {
  runSqliteProgram(sql, clearReembedRequestProgram(agentId, vectorKey));
}

/** {@link clearReembedRequest} as a program (both dialects). */
export function* clearReembedRequestProgram(agentId: string, vectorKey: string): Program<void> {
  yield* run(portable('DELETE FROM embedding_reembeds WHERE agent_id = ? AND vector_key = ?', agentId, vectorKey));
}
