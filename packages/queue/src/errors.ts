/**
 * Thrown by a job handler to retry the job after `delayMs` instead of the default backoff. The
 * attempt still counts: a job cannot be retried forever.
 */
export class RetryJobError extends Error {
  override readonly name = 'RetryJobError';
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

/** Thrown by a job handler when retrying cannot help (bad payload, deleted target): the job goes dead now. */
export class PermanentJobError extends Error {
  override readonly name = 'PermanentJobError';
}

/** The abort reason a handler sees when its attempt runs past `jobDeadlineMs`. */
export class JobDeadlineError extends Error {
  override readonly name = 'JobDeadlineError';
}
