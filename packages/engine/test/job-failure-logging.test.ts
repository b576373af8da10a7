import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { format } from 'node:util';
import { createManualClock, createManualScheduler } from '@memory/core';
import { createOpenAICompatibleLlm } from '@memory/providers';
import { afterEach, describe, expect, it } from 'vitest';
import { pinoLogger } from '../src/index.js';
import { createTestEngine, T0 } from './helpers.js';

/**
 * A logger with pino's call signature and its handling of arguments: `(fields, message)` merges the
 * fields into the line; `(message, ...args)` only fills the message's `%` placeholders, so an extra
 * fields object is dropped. Lines are kept as pino would serialize them.
 */
function pinoLike() {
  const lines: Array<Record<string, unknown>> = [];
  const level =
    (name: string) =>
    (first: unknown, ...rest: unknown[]): void => {
      if (typeof first === 'object' && first !== null) {
        lines.push({ level: name, ...(first as Record<string, unknown>), msg: format(...(rest as [string])) });
        return;
      }
      // pino's quick-format consumes only placeholders; there are none in our messages.
      lines.push({ level: name, msg: String(first) });
    };
  return { lines, logger: { debug: level('debug'), info: level('info'), warn: level('warn'), error: level('error') } };
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A real OpenAI-compatible endpoint on 127.0.0.1 that refuses every key. */
async function refusingServer(status: number): Promise<{ baseUrl: string; requests: () => number }> {
  let requests = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } }));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests: () => requests };
}

describe('job failures reach the host log', () => {
  it('the fake has pino semantics: passed directly, our (message, fields) call loses the fields', () => {
    const pino = pinoLike();
    pino.logger.warn('prospective_index job failed', { attempt: 1 });
    expect(pino.lines).toEqual([{ level: 'warn', msg: 'prospective_index job failed' }]);
  });

  it.each([401, 403])(
    'a hints job whose model answers %i fails at its first attempt, logged at warn with type, attempt and code through pinoLogger',
    async (status) => {
      const endpoint = await refusingServer(status);
      const pino = pinoLike();
      const clock = createManualClock(T0);
      const { engine } = await createTestEngine({
        clock,
        scheduler: createManualScheduler(clock),
        llm: createOpenAICompatibleLlm({ baseUrl: endpoint.baseUrl, apiKey: 'sk-wrong', model: 'm', maxRetries: 3 }),
        logger: pinoLogger(pino.logger),
        // One LLM job (hints) under test: registry auto-linking would log its own failures too.
        config: { registry: { autoLinkOnCreate: false } },
      });
      await engine.remember({ agentId: 'a', content: 'Standup moved to 9:30 starting next sprint' });
      for (let i = 0; i < 4; i++) {
        await engine.runDue();
        clock.advance(10 * 60_000);
      }
      // One HTTP request in all: neither the client nor the queue retried the refused key.
      expect(endpoint.requests()).toBe(1);
      const failures = pino.lines.filter((l) => l.level === 'warn' && l['jobType'] === 'prospective_index');
      expect(failures).toEqual([
        {
          level: 'warn',
          msg: 'prospective_index job failed',
          jobId: expect.any(String),
          jobType: 'prospective_index',
          attempt: 1,
          maxAttempts: 3,
          code: 'PROVIDER_ERROR',
          httpStatus: status,
          error: expect.stringContaining(`HTTP ${status}`),
          outcome: 'dead',
        },
      ]);
      const { queue } = await engine.diagnostics();
      expect(queue.find((h) => h.jobType === 'prospective_index')).toMatchObject({ dead: 1 });
      await engine.close();
    },
  );
});
