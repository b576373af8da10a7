import { agentIdSchema, type JobId, labelSchema, MemoryError, parseInput, timeSchema } from '@memory/core';
import { queryBuilder, raw, type SqlExecutor } from '@memory/store/sql';
import { z } from 'zod';
import type { QueueContext } from '../context.js';

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

/**
 * Adds a pending job in its own short transaction (a savepoint when the caller's write is open), or
 * returns the live job with the same type and dedup key.
 */
export function enqueue(ctx: QueueContext, input: unknown): EnqueueResult {
  const request = parseInput(enqueueSchema, input, 'enqueue');
  const payload = serializePayload(request.payload, ctx.config.maxPayloadBytes);
  return ctx.store.write((sql) => insertOrFind(sql, ctx, request, payload));
}

function insertOrFind(
  sql: SqlExecutor,
  ctx: QueueContext,
  request: z.output<typeof enqueueSchema>,
  payload: string,
): EnqueueResult {
  if (request.dedupKey !== undefined) {
    const existing = sql.get<{ id: string }>(
      raw(
        "SELECT id FROM memory_jobs WHERE job_type = ? AND dedup_key = ? AND status IN ('pending', 'leased')",
        request.jobType,
        request.dedupKey,
      ),
    );
    if (existing) return { id: existing.id as JobId, deduped: true };
  }
  const now = ctx.store.clock.now();
  const id = ctx.store.ids.next() as JobId;
  const maxAttempts = request.maxAttempts ?? ctx.config.maxAttempts;
  sql.run(
    queryBuilder
      .insertInto('memory_jobs')
      .values({
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
      })
      .compile(),
  );
  return { id, deduped: false };
}
