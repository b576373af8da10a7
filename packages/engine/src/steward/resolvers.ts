import { type Clock, type Logger, labelSchema, MemoryError, parseInput, type Scheduler } from '@memory/core';
import { z } from 'zod';
import { capitalizedNames } from './names.js';
import type { EntityRef, ParsedTaskContext, ResolvedEntity } from './task-context.js';

/**
 * Resolver kinds in the seed's confidence order: sender email → contact; thread id → recent jobs;
 * linked reminder; capitalized names → contacts; project keywords; embedding fallback.
 */
export const RESOLVER_KINDS = ['sender', 'thread', 'reminder', 'names', 'keywords', 'embedding'] as const;
export type ResolverKind = (typeof RESOLVER_KINDS)[number];

/** The confidence a kind's results get when the resolver gives none. */
const DEFAULT_CONFIDENCE: Readonly<Record<ResolverKind, number>> = {
  sender: 1,
  thread: 0.9,
  reminder: 0.9,
  names: 0.7,
  keywords: 0.6,
  embedding: 0.4,
};

/** What a resolver is given: the task, the names the engine found in its text, and what earlier resolvers found. */
export interface ResolverInput extends ParsedTaskContext {
  /** Capitalized names in the task's text ("Alice Chen", "Northwind"), longest runs first. */
  readonly names: readonly string[];
  /** Host objects found by the resolvers that ran before this one. */
  readonly found: readonly ResolvedEntity[];
  /** Aborted when the resolver's time is up. */
  readonly signal: AbortSignal;
}

/** A host object a resolver found. `confidence` defaults to its kind's (sender 1 … embedding 0.4). */
export interface ResolverMatch extends EntityRef {
  readonly confidence?: number | undefined;
}

/**
 * A host lookup from task context to host objects. Read-only by contract: the engine never creates
 * anything from what resolvers return, and a resolver must not either.
 */
export interface StewardResolver {
  /** Unique per engine; shown in `via`. */
  readonly name: string;
  /** Where in the pipeline it runs; see {@link RESOLVER_KINDS}. */
  readonly kind: ResolverKind;
  resolve(input: ResolverInput): readonly ResolverMatch[] | Promise<readonly ResolverMatch[]>;
}

const registrationSchema = z.strictObject({
  name: labelSchema(64, 'name'),
  kind: z.enum(RESOLVER_KINDS, { error: `kind must be one of: ${RESOLVER_KINDS.join(', ')}` }),
  resolve: z.custom<StewardResolver['resolve']>((v) => typeof v === 'function', 'resolve must be a function'),
});

const matchSchema = z.object({
  type: labelSchema(64, 'type'),
  refId: z.union([labelSchema(256, 'refId'), z.number().finite().transform(String)]),
  label: labelSchema(256, 'label').optional(),
  confidence: z.number().min(0).max(1).optional(),
});

/** The engine's resolvers, in registration order. */
export interface ResolverRegistry {
  register(resolver: StewardResolver): void;
  list(): readonly StewardResolver[];
}

/** A registry; a second resolver with the same name is `CONFLICT`. */
export function createResolverRegistry(): ResolverRegistry {
  const resolvers: StewardResolver[] = [];
  return {
    register(resolver) {
      const parsed = parseInput(registrationSchema, resolver, 'steward.registerResolver');
      if (resolvers.some((r) => r.name === parsed.name))
        throw new MemoryError('CONFLICT', `a resolver named ${parsed.name} is already registered`, {
          details: { name: parsed.name },
        });
      resolvers.push(Object.freeze({ name: parsed.name, kind: parsed.kind, resolve: parsed.resolve }));
    },
    list: () => resolvers,
  };
}

export interface ResolveDeps {
  readonly resolvers: readonly StewardResolver[];
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly logger: Logger;
  readonly config: {
    readonly maxEntities: number;
    readonly resolverTimeoutMs: number;
    readonly resolveBudgetMs: number;
    readonly fallbackBelow: number;
  };
}

/** What resolution found, and what it skipped and why. */
export interface Resolution {
  readonly entities: readonly ResolvedEntity[];
  readonly warnings: readonly string[];
  /** Milliseconds spent in host resolvers. */
  readonly resolverMs: number;
}

/** Whether a kind has anything to work on for this task. */
function applies(kind: ResolverKind, task: ParsedTaskContext, names: readonly string[], found: number, below: number) {
  switch (kind) {
    case 'sender':
      return task.sender !== undefined;
    case 'thread':
      return task.threadId !== undefined;
    case 'reminder':
      return task.reminderId !== undefined;
    case 'names':
      return names.length > 0;
    case 'keywords':
      return task.text.trim().length > 0;
    case 'embedding':
      return found < below;
  }
}

const key = (r: EntityRef): string => `${r.type}\u0000${r.refId}`;

/**
 * Runs the resolvers in the seed's confidence order (by kind, then registration order), one at a
 * time so each sees what the ones before found. Results are validated and deduplicated by
 * (type, refId): the first (most confident) finding keeps its place and `via`, a later one can
 * only raise its confidence or fill in a missing label. A resolver that throws, answers garbage or
 * runs past its time is logged and skipped; resolvers not started within the budget are skipped.
 */
export async function resolveEntities(deps: ResolveDeps, task: ParsedTaskContext): Promise<Resolution> {
  const { config, clock, logger } = deps;
  const started = clock.now();
  const warnings: string[] = [];
  const found = new Map<string, ResolvedEntity>();
  const add = (entity: ResolvedEntity): void => {
    const existing = found.get(key(entity));
    if (!existing) {
      found.set(key(entity), entity);
      return;
    }
    found.set(key(entity), {
      ...existing,
      confidence: Math.max(existing.confidence, entity.confidence),
      ...(existing.label === undefined && entity.label !== undefined ? { label: entity.label } : {}),
    });
  };
  for (const ref of task.entities ?? []) add({ ...ref, confidence: 1, via: 'host' });
  const names = capitalizedNames(task.text);
  const ordered = RESOLVER_KINDS.flatMap((kind) => deps.resolvers.filter((r) => r.kind === kind));
  let resolverMs = 0;
  for (const resolver of ordered) {
    if (!applies(resolver.kind, task, names, found.size, config.fallbackBelow)) continue;
    const elapsed = clock.now() - started;
    const left = config.resolveBudgetMs - elapsed;
    if (left <= 0) {
      warnings.push(`resolver ${resolver.name} skipped: the resolve budget (${config.resolveBudgetMs} ms) is spent`);
      logger.warn('steward resolver skipped: budget spent', { resolver: resolver.name, elapsedMs: elapsed });
      continue;
    }
    // Reported time is wall time (the injected clock decides budgets, and may be a manual one).
    const before = performance.now();
    const outcome = await runOne(deps, resolver, { ...task, names, found: [...found.values()] }, left);
    resolverMs += performance.now() - before;
    if ('error' in outcome) {
      warnings.push(`resolver ${resolver.name} skipped: ${outcome.error}`);
      logger.warn('steward resolver failed', { resolver: resolver.name, error: outcome.error });
      continue;
    }
    for (const match of outcome.matches) {
      const parsed = matchSchema.safeParse(match);
      if (!parsed.success) {
        warnings.push(`resolver ${resolver.name} returned an invalid reference (ignored)`);
        logger.warn('steward resolver returned an invalid reference', { resolver: resolver.name });
        continue;
      }
      const { type, refId, label, confidence } = parsed.data;
      add({
        type,
        refId,
        ...(label !== undefined ? { label } : {}),
        confidence: confidence ?? DEFAULT_CONFIDENCE[resolver.kind],
        via: `${resolver.kind}:${resolver.name}`,
      });
    }
  }
  return { entities: [...found.values()].slice(0, config.maxEntities), warnings, resolverMs };
}

type Outcome = { matches: readonly unknown[] } | { error: string };

/** One resolver under its time limit (the smaller of its own and what is left of the budget). */
async function runOne(
  deps: ResolveDeps,
  resolver: StewardResolver,
  input: Omit<ResolverInput, 'signal'>,
  budgetLeft: number,
): Promise<Outcome> {
  const limit = Math.min(deps.config.resolverTimeoutMs, budgetLeft);
  const controller = new AbortController();
  // Read before the resolver starts: a synchronous resolver runs inside the call below.
  const start = deps.clock.now();
  let timer: { cancel(): void } | undefined;
  const timeout = new Promise<Outcome>((resolve) => {
    timer = deps.scheduler.schedule(() => {
      controller.abort();
      resolve({ error: `timed out after ${limit} ms` });
    }, limit);
  });
  const work = (async (): Promise<Outcome> => {
    try {
      const matches: unknown = await resolver.resolve(Object.freeze({ ...input, signal: controller.signal }));
      if (!Array.isArray(matches)) return { error: 'did not return an array' };
      return { matches };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  })();
  try {
    const outcome = await Promise.race([work, timeout]);
    // The clock decides too: a resolver that blocked the event loop past its limit is late even
    // though the timer could not fire while it ran.
    const took = deps.clock.now() - start;
    if ('matches' in outcome && took > limit) return { error: `took ${took} ms (limit ${limit} ms)` };
    return outcome;
  } finally {
    timer?.cancel();
  }
}
