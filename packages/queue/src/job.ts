import type { JobId } from '@memory/core';
import type { JobStatus, MemoryJobRow } from '@memory/store';

export type JobRow = MemoryJobRow;
export type { JobStatus };

/** A job as the queue API returns it. Times are epoch milliseconds. */
export interface Job<P = unknown> {
  readonly id: JobId;
  readonly jobType: string;
  readonly status: JobStatus;
  readonly payload: P;
  readonly result: unknown;
  /** Attempts used: failed runs, plus the run in progress. An interrupted run gives its attempt back. */
  readonly attempts: number;
  readonly maxAttempts: number;
  /** Runs whose lease expired: the process running them died or hung. Counted apart from attempts. */
  readonly interruptions: number;
  /** Interruptions after which the job is dead-lettered; null for a resumable job (never). */
  readonly maxInterruptions: number | null;
  readonly runAt: number;
  readonly dedupKey: string | null;
  readonly leaseToken: string | null;
  readonly leaseExpiresAt: number | null;
  readonly leasedAt: number | null;
  readonly leasedBy: string | null;
  readonly completedAt: number | null;
  readonly failedAt: number | null;
  readonly error: string | null;
  readonly agentId: string | null;
  readonly memoryId: string | null;
  readonly documentId: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function toJob(row: JobRow): Job {
  return {
    id: row.id as JobId,
    jobType: row.job_type,
    status: row.status,
    payload: parseJson(row.payload),
    result: parseJson(row.result),
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    interruptions: row.interruptions,
    maxInterruptions: row.max_interruptions,
    runAt: row.run_at,
    dedupKey: row.dedup_key,
    leaseToken: row.lease_token,
    leaseExpiresAt: row.lease_expires_at,
    leasedAt: row.leased_at,
    leasedBy: row.leased_by,
    completedAt: row.completed_at,
    failedAt: row.failed_at,
    error: row.error,
    agentId: row.agent_id,
    memoryId: row.memory_id,
    documentId: row.document_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The lease fields, cleared whenever a job stops being leased (a reaped job must not look leased). */
export const CLEARED_LEASE = { lease_token: null, lease_expires_at: null, leased_at: null, leased_by: null } as const;

/** Errors are stored bounded: a stack trace or a provider's HTML error page can be large. */
export function boundedError(message: string, max = 4000): string {
  return message.length <= max ? message : `${message.slice(0, max)}… (${message.length - max} more characters)`;
}
