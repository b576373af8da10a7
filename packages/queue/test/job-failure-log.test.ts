import { type LogFields, type Logger, MemoryError } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { createWorker } from '../src/index.js';
import { setup } from './helpers.js';

/** A logger that keeps every line, by level. */
function recordingLogger() {
  const lines: Array<{ level: string; message: string; fields: LogFields | undefined }> = [];
  const at =
    (level: string) =>
    (message: string, fields?: LogFields): void => {
      lines.push({ level, message, fields });
    };
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, warnings: () => lines.filter((l) => l.level === 'warn') };
}

describe('job failure logging', () => {
  it('logs every failed attempt at warn with job type, attempt, error code and what happens next', async () => {
    const { queue, scheduler, clock } = await setup({ retryBaseMs: 1000, maxAttempts: 3 });
    const { logger, warnings } = recordingLogger();
    const worker = createWorker({
      queue,
      jobTypes: ['sync_crm'],
      scheduler,
      clock,
      logger,
      handler: async () => {
        throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      },
    });
    const job = queue.enqueue({ jobType: 'sync_crm', payload: {} });
    for (let i = 0; i < 3; i++) {
      await worker.runOnce();
      clock.advance(60_000);
    }
    expect(queue.get(job.id)?.status).toBe('dead');
    expect(warnings().map((l) => [l.message, l.fields])).toEqual(
      [1, 2, 3].map((attempt) => [
        'sync_crm job failed',
        {
          jobId: job.id,
          jobType: 'sync_crm',
          attempt,
          maxAttempts: 3,
          code: 'ECONNRESET',
          error: 'socket hang up',
          outcome: attempt < 3 ? 'retry' : 'dead',
        },
      ]),
    );
  });

  it('fails a job at once, with its code and HTTP status, when the error says retrying cannot help (401/403)', async () => {
    const { queue, scheduler, clock } = await setup({ maxAttempts: 5 });
    const { logger, warnings } = recordingLogger();
    let calls = 0;
    const worker = createWorker({
      queue,
      jobTypes: ['summarize'],
      scheduler,
      clock,
      logger,
      handler: async () => {
        calls++;
        throw new MemoryError('PROVIDER_ERROR', 'llm: HTTP 401: invalid api key', {
          details: { status: 401, retryable: false },
        });
      },
    });
    const job = queue.enqueue({ jobType: 'summarize', payload: {} });
    await worker.runOnce();
    clock.advance(600_000);
    await worker.runOnce();
    expect(calls).toBe(1);
    expect(queue.get(job.id)).toMatchObject({ status: 'dead', attempts: 1, error: 'llm: HTTP 401: invalid api key' });
    expect(warnings()).toEqual([
      {
        level: 'warn',
        message: 'summarize job failed',
        fields: expect.objectContaining({ attempt: 1, code: 'PROVIDER_ERROR', httpStatus: 401, outcome: 'dead' }),
      },
    ]);
  });

  it('still retries a provider error that may pass (a 503)', async () => {
    const { queue, scheduler, clock } = await setup({ maxAttempts: 3 });
    const { logger, warnings } = recordingLogger();
    const worker = createWorker({
      queue,
      jobTypes: ['summarize'],
      scheduler,
      clock,
      logger,
      handler: async () => {
        throw new MemoryError('PROVIDER_ERROR', 'llm: HTTP 503: overloaded', { details: { status: 503 } });
      },
    });
    const job = queue.enqueue({ jobType: 'summarize', payload: {} });
    await worker.runOnce();
    expect(queue.get(job.id)).toMatchObject({ status: 'pending', attempts: 1 });
    expect(warnings()[0]?.fields).toMatchObject({ code: 'PROVIDER_ERROR', httpStatus: 503, outcome: 'retry' });
  });
});
