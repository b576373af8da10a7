import { isMemoryError } from '@memory/engine';

/**
 * The `memory` command's exit codes (documented in the README and in `memory --help`).
 * Scripts can branch on them: 3 means the id or scope has no such object, 4 means the command ran
 * but found problems (doctor checks, dead jobs, rejected import lines).
 */
export const EXIT = {
  OK: 0,
  /** The command failed: a storage or provider error, an import that failed. */
  ERROR: 1,
  /** Bad usage or input: an unknown option, a missing argument, input the engine rejected. */
  USAGE: 2,
  /** No such memory, import, token or database in the given scope. */
  NOT_FOUND: 3,
  /** Ran to the end, found problems: failed doctor checks, dead jobs, rejected import lines. */
  PROBLEMS: 4,
  /** Interrupted (Ctrl-C). */
  INTERRUPTED: 130,
} as const;

/** One of the documented exit codes. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit codes as `memory --help` lists them. */
export const EXIT_CODES_HELP = `Exit codes:
  0    success
  1    error (storage, provider, a failed import)
  2    bad usage or input rejected by the engine (a pinned memory without --force too)
  3    not found (no such memory, import, token or database in this scope)
  4    finished with problems (doctor checks failed, dead jobs, rejected import lines)
  130  interrupted`;

/** The exit code for an error a command let through. */
export function exitCodeFor(error: unknown): ExitCode {
  if (isMemoryError(error, 'NOT_FOUND')) return EXIT.NOT_FOUND;
  // PINNED: the call needs --force, which is a usage matter.
  if (isMemoryError(error, 'INVALID_INPUT') || isMemoryError(error, 'INVALID_CONFIG') || isMemoryError(error, 'PINNED'))
    return EXIT.USAGE;
  return EXIT.ERROR;
}
