import { MemoryError } from '@memory/core';

// What better-sqlite3 (through the `bindings` package) and Node say when the compiled addon is
// missing or was built for another Node: the install script was blocked (pnpm ≥ 10 blocks build
// scripts until allowed, `--ignore-scripts`), or node_modules was copied across Node versions.
const MISSING = /Could not locate the bindings file|Cannot find module '.*better_sqlite3\.node'/;
const MISMATCH =
  /NODE_MODULE_VERSION|was compiled against a different Node\.js version|invalid ELF header|wrong ELF class/;

const HOW_TO_BUILD =
  'run `npm rebuild better-sqlite3`; with pnpm, allow its build script ' +
  '(`pnpm approve-builds`, or `allowBuilds: { better-sqlite3: true }` in pnpm-workspace.yaml) and run ' +
  '`pnpm rebuild better-sqlite3`. Without a prebuilt binary for this platform it compiles from source, ' +
  'which needs python3, make and a C++ compiler';

/**
 * The error for a failed `new Database()` when better-sqlite3's native addon is missing or built
 * for another Node: says what to run. Undefined for any other failure.
 */
export function nativeBuildError(error: unknown): MemoryError | undefined {
  const text = error instanceof Error ? error.message : String(error);
  const missing = MISSING.test(text);
  if (!missing && !MISMATCH.test(text)) return undefined;
  const what = missing
    ? "better-sqlite3's native build is missing (its install script did not run)"
    : `better-sqlite3's native build does not match this Node.js (${process.version})`;
  return new MemoryError('STORAGE_ERROR', `${what}: ${HOW_TO_BUILD}.`, {
    cause: error,
    details: { reason: missing ? 'native-build-missing' : 'native-build-mismatch', node: process.version },
  });
}
