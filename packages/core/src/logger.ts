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
