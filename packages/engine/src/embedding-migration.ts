import { agentIdSchema, type EmbeddingProvider, type MemoryConfig, MemoryError, parseInput } from '@memory/core';
import {
  clearReembedRequestProgram,
  type EmbedderIdentity,
  type EmbeddingMigration,
  finishEmbeddingMigrationsProgram,
  latestEmbeddingMigrationProgram,
  liveMemoriesByVectorKeyAllProgram,
  liveMemoriesByVectorKeyProgram,
  type OtherKeyScope,
  type PortableStore,
  type Program,
  reembedRequestsProgram,
  requestReembedProgram,
  useEmbedderIdentityProgram,
} from '@memory/store';
import { z } from 'zod';
import type { EngineContext } from './context.js';
import { FILL_VECTORS_JOB } from './vector-upkeep.js';

// The embedding migration (issue 13, part 5). Vectors are stored under a key per embedder identity
// (model and dimensions; see `useEmbedderIdentity`), and everything that reads or writes vectors
// (the writer, recall, conflict detection, the vector index, the fill-in job) sees the engine's
// embedder through `keyedEmbedder`, whose `model` is that key. So vectors of two embedders are never
// compared with each other, and a memory whose vector is under another key is simply one the
// semantic channel cannot find yet: the fill-in job (`embedding_migration`) re-embeds it.

/** Where the file's vectors stand against the current embedder (diagnostics). */
export interface EmbeddingStatus {
  readonly model: string;
  readonly dimensions: number;
  /** The key this embedder's vectors are stored under: the model name, or `model#dims` when that name already meant other dimensions. */
  readonly vectorKey: string;
  readonly reembed: MemoryConfig['vectors']['reembed'];
  /** The latest change of embedder this file saw (from and to are vector keys), if any. */
  readonly lastChange?: EmbeddingMigration;
  /** Live memories (every scope) with a vector of this embedder, of all live memories. */
  readonly embedded: number;
  readonly total: number;
  /** Scopes a host asked to re-embed (`engine.maintenance.reembed`), not done yet ('' = every scope). */
  readonly requested: readonly string[];
}

/**
 * Checks the pin, records the embedder's identity (and a change from the last one) and returns the
 * embedder as the engine's parts see it: `model` is the identity's vector key. Throws
 * `INVALID_CONFIG` before writing anything when `vectors.pinnedEmbedder` names another embedder.
 */
export async function keyEmbedder(
  store: PortableStore,
  config: MemoryConfig,
  embedder: EmbeddingProvider,
): Promise<{ embedder: EmbeddingProvider; identity: EmbedderIdentity; change?: EmbeddingMigration }> {
  const pin = config.vectors.pinnedEmbedder;
  if (
    pin &&
    (pin.model !== embedder.model || (pin.dimensions !== undefined && pin.dimensions !== embedder.dimensions))
  ) {
    throw new MemoryError(
      'INVALID_CONFIG',
      `vectors.pinnedEmbedder is ${pin.model}${pin.dimensions ? ` (${pin.dimensions} dimensions)` : ''} but the engine was given ${embedder.model} (${embedder.dimensions} dimensions); pass the pinned embedder, or unpin to migrate`,
      { details: { pinnedModel: pin.model, model: embedder.model, dimensions: embedder.dimensions } },
    );
  }
  const now = store.clock.now();
  const used = await store.db.write(() =>
    useEmbedderIdentityProgram({ model: embedder.model, dimensions: embedder.dimensions }, now),
  );
  if (used.change)
    store.logger.info('embedder changed; memories are re-embedded', {
      from: used.change.fromKey,
      to: used.change.toKey,
      reembed: config.vectors.reembed,
    });
  const keyed: EmbeddingProvider = {
    model: used.identity.vectorKey,
    dimensions: embedder.dimensions,
    ...(embedder.conflictThreshold !== undefined ? { conflictThreshold: embedder.conflictThreshold } : {}),
    embed: (texts, options) => embedder.embed(texts, options),
    ...(embedder.check ? { check: () => (embedder.check as () => Promise<void>)() } : {}),
  };
  return { embedder: keyed, identity: used.identity, ...(used.change ? { change: used.change } : {}) };
}

/**
 * Which memories under another key the fill-in job re-embeds now: all of them in `background`
 * mode; in `manual` mode only the scopes a host asked for (none until asked).
 */
export function* reembedScope(config: MemoryConfig, vectorKey: string): Program<OtherKeyScope> {
  if (config.vectors.reembed === 'background') return 'all';
  const requested = yield* reembedRequestsProgram(vectorKey);
  if (requested.includes('')) return 'all';
  return requested.length > 0 ? requested : 'none';
}

/**
 * After a fill-in run found nothing left in `scope`: the host's requests it covered are done, and
 * when it covered every scope, so is the migration to this key.
 */
export function* settleReembed(vectorKey: string, scope: OtherKeyScope, now: number): Program<void> {
  if (scope === 'none') return;
  const done = scope === 'all' ? yield* reembedRequestsProgram(vectorKey) : scope;
  for (const agentId of done) yield* clearReembedRequestProgram(agentId, vectorKey);
  if (scope === 'all') yield* finishEmbeddingMigrationsProgram(vectorKey, now);
}

/** The embedding migration's state for diagnostics (the per-key live counts: a read of the maintained counts). */
export async function embeddingStatus(ctx: EngineContext): Promise<EmbeddingStatus | undefined> {
  const described = ctx.providers.embedder;
  if (!described) return undefined;
  const { vectorKey } = described;
  return ctx.portable.db.read(function* () {
    const byKey = yield* liveMemoriesByVectorKeyAllProgram();
    const lastChange = yield* latestEmbeddingMigrationProgram();
    return {
      model: described.model,
      dimensions: described.dimensions,
      vectorKey,
      reembed: ctx.config.vectors.reembed,
      ...(lastChange ? { lastChange } : {}),
      embedded: byKey.find((k) => k.key === vectorKey)?.n ?? 0,
      total: byKey.reduce((sum, k) => sum + k.n, 0),
      requested: yield* reembedRequestsProgram(vectorKey),
    };
  });
}

/** What `engine.maintenance.reembed` did. */
export interface ReembedRequest {
  /** The scope asked for; absent: every scope. */
  readonly agentId?: string;
  /** Live memories of that scope (or all) without a vector of the current embedder now. */
  readonly remaining: number;
  /** Whether a re-embed job was queued (false when nothing remains). */
  readonly queued: boolean;
}

const reembedSchema = z.strictObject({ agentId: agentIdSchema.optional() }).optional();

/**
 * Asks for a scope's (or every scope's) memories to be re-embedded with the current embedder: the
 * request is stored (it survives a crash and is cleared once done) and the job is queued; the
 * started engine (or `runDue`) runs it in bounded batches. The way to migrate with `reembed: 'manual'`.
 */
export async function reembed(ctx: EngineContext, input: unknown): Promise<ReembedRequest> {
  const parsed = parseInput(reembedSchema, input, 'maintenance.reembed') ?? {};
  const described = ctx.providers.embedder;
  if (!described) throw new MemoryError('CONFLICT', 'maintenance.reembed needs an embedder; this engine has none');
  const { vectorKey } = described;
  const { portable: store } = ctx;
  const now = store.clock.now();
  const remaining = await store.db.write(function* () {
    const byKey =
      parsed.agentId === undefined
        ? yield* liveMemoriesByVectorKeyAllProgram()
        : yield* liveMemoriesByVectorKeyProgram(parsed.agentId);
    const left = byKey.filter((k) => k.key !== vectorKey).reduce((sum, k) => sum + k.n, 0);
    if (left > 0) yield* requestReembedProgram(parsed.agentId ?? '', vectorKey, now);
    return left;
  });
  if (remaining > 0) await ctx.jobs.enqueue({ jobType: FILL_VECTORS_JOB, dedupKey: `fill:${vectorKey}` });
  return { ...(parsed.agentId !== undefined ? { agentId: parsed.agentId } : {}), remaining, queued: remaining > 0 };
}
