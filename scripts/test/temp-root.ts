import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Vitest global setup: every temporary file the suite makes (test databases, import files, crash
 * fixtures, child processes' scratch space) goes under one directory per run, removed when the run
 * ends. Tests create temp dirs freely; without this, thousands of them outlived each run.
 * `os.tmpdir()` reads TMPDIR on every call, and the test workers and their children inherit it.
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'memory-tests-'));
  process.env.TMPDIR = root;
  return () => {
    rmSync(root, { recursive: true, force: true });
  };
}
