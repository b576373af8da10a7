/** Structured log fields: JSON-safe values only. */
export type LogFields = Readonly<Record<string, unknown>>;

/** The logger the library writes to. Silent unless the host passes one. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const noop = (): void => undefined;

/** The default logger: writes nothing. */
export const silentLogger: Logger = Object.freeze({ debug: noop, info: noop, warn: noop, error: noop });

/** A logger that takes its structured fields first, as pino and bunyan do: `log.warn({ jobId }, 'failed')`. */
export interface FieldsFirstLogger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * Adapts a pino (or bunyan) logger to {@link Logger}. Passed directly, pino reads our
 * `(message, fields)` as a message with a format argument and drops the fields.
 *
 * @example
 * ```ts
 * import pino from 'pino';
 * const engine = await createMemoryEngine({ database: { path: 'memory.db' }, logger: pinoLogger(pino()) });
 * ```
 */
export function pinoLogger(target: FieldsFirstLogger): Logger {
  return {
    debug: (message, fields) => target.debug({ ...fields }, message),
    info: (message, fields) => target.info({ ...fields }, message),
    warn: (message, fields) => target.warn({ ...fields }, message),
    error: (message, fields) => target.error({ ...fields }, message),
  };
}
