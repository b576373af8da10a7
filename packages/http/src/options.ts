import { type Clock, type Logger, silentLogger, systemClock } from '@memory/core';
import type { MemoryEngine } from '@memory/engine';
import { MemoryError } from '@memory/engine';
import { z } from 'zod';

const MiB = 1024 * 1024;

const limitsSchema = z.strictObject({
  /** Largest JSON body of an ordinary route, in bytes. @default 1 MiB */
  maxBodyBytes: z
    .number()
    .int()
    .min(1024)
    .max(1024 * MiB)
    .default(MiB),
  /** Largest JSON body of `POST /api/documents` (documents carry their content). @default 16 MiB */
  maxDocumentBytes: z
    .number()
    .int()
    .min(1024)
    .max(4096 * MiB)
    .default(16 * MiB),
  /** Largest import upload (`POST /api/imports`), streamed to the spool directory. @default 1 GiB */
  maxUploadBytes: z
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * MiB)
    .default(1024 * MiB),
  /** Requests each token may make per window; `false` turns the limit off. */
  rateLimit: z
    .union([
      z.literal(false),
      z.strictObject({
        /** @default 600 */
        requests: z.number().int().min(1).max(10_000_000).default(600),
        /** @default 60000 (one minute) */
        windowMs: z.number().int().min(1).max(86_400_000).default(60_000),
      }),
    ])
    .default({ requests: 600, windowMs: 60_000 }),
});

/** Options of {@link createHttpServer}. */
export interface HttpServerOptions extends z.input<typeof limitsSchema> {
  /** The engine every request goes through (the server never closes it). */
  readonly engine: MemoryEngine;
  /** For rate-limit windows. @default the system clock */
  readonly clock?: Clock;
  /** Where unexpected (500) errors are logged. @default silent */
  readonly logger?: Logger;
}

/** The options, checked and with defaults filled in. */
export interface ResolvedHttpOptions extends z.output<typeof limitsSchema> {
  readonly engine: MemoryEngine;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Checks the options once, fills defaults and freezes them; `INVALID_CONFIG` on bad input. */
export function resolveHttpOptions(options: HttpServerOptions): ResolvedHttpOptions {
  const { engine, clock, logger, ...limits } = options;
  if (typeof engine?.tokens?.verify !== 'function' || typeof engine.recall !== 'function') {
    throw new MemoryError('INVALID_CONFIG', 'options.engine must be a MemoryEngine (createMemoryEngine)');
  }
  const parsed = limitsSchema.safeParse(limits);
  if (!parsed.success) {
    throw new MemoryError('INVALID_CONFIG', `invalid http options: ${z.prettifyError(parsed.error)}`, {
      cause: parsed.error,
    });
  }
  return Object.freeze({ ...parsed.data, engine, clock: clock ?? systemClock, logger: logger ?? silentLogger });
}
