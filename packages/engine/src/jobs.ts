import { createHash } from 'node:crypto';
import { agentIdSchema, invalidInput, labelSchema, parseInput } from '@memory/core';
import type { EnqueueInput, EnqueueResult, Job } from '@memory/queue';
import { z } from 'zod';
import { RESERVED_JOB_TYPES } from './background.js';
import type { EngineContext } from './context.js';

/** A job by id, within a scope: a host job enqueued with `agentId` is found only with that `agentId`. */
export interface JobRef {
  readonly id: string;
  /** The job's agent scope; leave it out for jobs enqueued without one. */
  readonly agentId?: string | undefined;
}

const jobRefSchema = z.strictObject({ id: labelSchema(128, 'id'), agentId: agentIdSchema.optional() });

const MAX_DEDUP_KEY = 512;

/** The dedup-key prefix of one agent's host jobs: keys of different scopes never meet. */
function scopeTag(agentId: string): string {
  return `@${createHash('sha256').update(agentId, 'utf8').digest('hex').slice(0, 24)}/`;
}

/**
 * The stored dedup key of a host job. The queue deduplicates live jobs by type and key across the
 * whole database, so without a scope prefix agent B, enqueuing with agent A's key, would be handed
 * A's job id (`deduped: true`): a test of whether A has such a job, and B's work silently dropped.
 * Keys too long for the prefix are hashed (`@tag#sha256`). Unscoped keys are the host's own.
 */
function storedDedupKey(agentId: string, key: string): string {
  const tag = scopeTag(agentId);
  if (tag.length + key.length <= MAX_DEDUP_KEY) return `${tag}${key}`;
  return `${tag.slice(0, -1)}#${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

/** The dedup key as the host gave it (a hashed long key stays hashed). */
function hostDedupKey(job: Job): string | null {
  if (job.dedupKey === null || job.agentId === null) return job.dedupKey;
  const tag = scopeTag(job.agentId);
  return job.dedupKey.startsWith(tag) ? job.dedupKey.slice(tag.length) : job.dedupKey;
}

const isReserved = (jobType: unknown): boolean => typeof jobType === 'string' && RESERVED_JOB_TYPES.includes(jobType);

/**
 * Adds a host job. The engine's own job types are reserved (`INVALID_INPUT`): a host job of type
 * `document_ingest` would run the engine's handler on a payload the host chose. With `agentId` the
 * job belongs to that scope: its dedup key is scoped too, and `jobs.get` finds it only with the
 * same `agentId`.
 */
export async function enqueueHostJob(ctx: EngineContext, input: unknown): Promise<EnqueueResult> {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalidInput('enqueue', [{ path: [], message: 'enqueue needs { jobType, payload?, ... }' }]);
  const request = input as { jobType?: unknown; agentId?: unknown; dedupKey?: unknown };
  if (isReserved(request.jobType))
    throw invalidInput('enqueue', [
      { path: ['jobType'], message: `job type ${String(request.jobType)} is reserved for the engine's own workers` },
    ]);
  const scoped =
    typeof request.agentId === 'string' && typeof request.dedupKey === 'string' && request.dedupKey.length > 0
      ? { ...request, dedupKey: storedDedupKey(request.agentId, request.dedupKey) }
      : request;
  // The queue parses the rest of the request (and reports its problems).
  return ctx.jobs.enqueue(scoped as EnqueueInput);
}

/**
 * A job in the caller's scope, or undefined: a job of another scope (or of no scope, when
 * `agentId` is given) is answered exactly like a missing one. The engine's own jobs come back
 * without their payload and result (`null`): those are the engine's internals, not the host's.
 */
export async function getJob(ctx: EngineContext, input: unknown): Promise<Job | undefined> {
  const { id, agentId } = parseInput(jobRefSchema, input, 'jobs.get');
  const job = await ctx.jobs.get(id);
  if (!job || job.agentId !== (agentId ?? null)) return undefined;
  if (isReserved(job.jobType)) return { ...job, payload: null, result: null };
  return { ...job, dedupKey: hostDedupKey(job) };
}
