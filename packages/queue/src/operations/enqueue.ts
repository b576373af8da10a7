import { agentIdSchema, type JobId, labelSchema, MemoryError, parseInput, timeSchema } from '@memory/core';
import type { MemoryJobsTable } from '@memory/store';
import { get, type Program } from '@memory/store/sql';
import { z } from 'zod';
import type { ProgramContext, QueueContext } from '../context.js';
import { writeOnSqlite } from './run.js';
import { dual, same } from './statement.js';

const enqueueSchema = z.strictObject({
  /** What kind of work: handlers are registered per job type. */
  jobType: labelSchema(64, 'jobType'),
  /** JSON-serializable input for the handler. @default {} */
  payload: z.unknown().optional(),
  /** A pending or leased job with the same type and key is not added twice. */
  dedupKey: labelSchema(512, 'dedupKey').optional(),
  /** Not before this time. @default now */
  runAt: timeSchema.optional(),
  /** @default config.queue.maxAttempts */
  maxAttempts: z.number().int().min(1).max(100).optional(),
  /**
   * The handler checkpoints its progress, so a run whose process dies loses little: the job is never
   * dead-lettered for interruptions (expired leases). Other jobs die after `maxAttempts`
   * interruptions: a job that kills its process every time. @default false
   */
  resumable: z.boolean().optional(),
  agentId: agentIdSchema.optional(),
  memoryId: labelSchema(128, 'memoryId').optional(),
  documentId: labelSchema(128, 'documentId').optional(),
});

export type EnqueueInput = z.input<typeof enqueueSchema>;

export interface EnqueueResult {
  readonly id: JobId;
  /** True when an equivalent pending or leased job already existed; its id is returned. */
  readonly deduped: boolean;
}

function serializePayload(payload: unknown, maxBytes: number): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(payload ?? {});
  } catch (error) {
    throw new MemoryError('INVALID_INPUT', 'job payload must be JSON-serializable', { cause: error });
  }
  if (text === undefined) throw new MemoryError('INVALID_INPUT', 'job payload must be JSON-serializable');
  if (Buffer.byteLength(text, 'utf8') > maxBytes) {
    throw new MemoryError('INVALID_INPUT', `job payload is larger than ${maxBytes} bytes`, { details: { maxBytes } });
  }
  return text;
}

/** Validates an enqueue request and serializes its payload (outside any transaction). */
export function parseEnqueue(ctx: ProgramContext, input: unknown): { request: EnqueueRequest; payload: string } {
  const request = parseInput(enqueueSchema, input, 'enqueue');
  return { request, payload: serializePayload(request.payload, ctx.config.maxPayloadBytes) };
}

export type EnqueueRequest = z.output<typeof enqueueSchema>;

/**
 * Adds a pending job in its own short transaction (a savepoint when the caller's write is open), or
 * returns the live job with the same type and dedup key.
 */
export function enqueue(ctx: QueueContext, input: unknown): EnqueueResult {
  const { request, payload } = parseEnqueue(ctx, input);
  return writeOnSqlite(ctx, enqueueProgram(ctx, request, payload));
}

const DEDUP_LOOKUP =
  "SELECT id FROM memory_jobs WHERE job_type = ? AND dedup_key = ? AND status IN ('pending', 'leased')";

/**
 * The live job with the request's type and dedup key, or a new pending job. SQLite has one writer,
 * so the lookup alone keeps keys unique. On PostgreSQL two transactions can both miss in the
 * lookup: the partial unique index `memory_jobs_dedup` lets one insert win, and the other's
 * `ON CONFLICT DO NOTHING` inserts nothing (or it fails serialization and is re-run, and then finds
 * the winner's job in the lookup).
 */
export function* enqueueProgram(ctx: ProgramContext, request: EnqueueRequest, payload: string): Program<EnqueueResult> {
  if (request.dedupKey !== undefined) {
    const existing = yield* get<{ id: string }>(same(DEDUP_LOOKUP, request.jobType, request.dedupKey));
    if (existing) return { id: existing.id as JobId, deduped: true };
  }
  const now = ctx.store.clock.now();
  const id = ctx.store.ids.next() as JobId;
  const maxAttempts = request.maxAttempts ?? ctx.config.maxAttempts;
  const row: MemoryJobsTable = {
    id,
    job_type: request.jobType,
    status: 'pending',
    dedup_key: request.dedupKey ?? null,
    payload,
    result: null,
    attempts: 0,
    max_attempts: maxAttempts,
    interruptions: 0,
    max_interruptions: request.resumable === true ? null : maxAttempts,
    run_at: request.runAt ?? now,
    lease_token: null,
    lease_expires_at: null,
    leased_at: null,
    leased_by: null,
    completed_at: null,
    failed_at: null,
    error: null,
    memory_id: request.memoryId ?? null,
    document_id: request.documentId ?? null,
    agent_id: request.agentId ?? null,
    created_at: now,
    updated_at: now,
  };
  const columns = Object.keys(row);
  const insert = `INSERT INTO memory_jobs (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
  const inserted = yield* get<{ id: string }>(
    dual(
      `${insert} RETURNING id`,
      `${insert} ON CONFLICT (job_type, dedup_key) WHERE dedup_key IS NOT NULL AND status IN ('pending', 'leased')
       DO NOTHING RETURNING id`,
      ...Object.values(row),
    ),
  );
  if (inserted) return { id, deduped: false };
  // Lost the race on PostgreSQL to a transaction that committed the same key after our lookup.
  const winner = yield* get<{ id: string }>(same(DEDUP_LOOKUP, request.jobType, request.dedupKey ?? null));
  if (winner) return { id: winner.id as JobId, deduped: true };
  throw new MemoryError('STORAGE_ERROR', 'the job was neither inserted nor found (a concurrent enqueue)', {
    details: { jobType: request.jobType },
  });
}
