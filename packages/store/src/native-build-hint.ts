/**
 * What to run when better-sqlite3's native module cannot be loaded: its install script never ran
 * (pnpm ≥ 10 blocks dependency build scripts until allowed, `--ignore-scripts`, a failed compile),
 * or it was built for another Node.js version. better-sqlite3 only says "Could not locate the
 * bindings file" or "compiled against a different Node.js version", which names no fix.
 * Returns undefined for every other error.
 */
export function nativeBuildHint(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : '';
  const code = (error as { code?: unknown } | null)?.code;
  const missing = message.includes('Could not locate the bindings file');
  const mismatched =
    message.includes('NODE_MODULE_VERSION') || (code === 'ERR_DLOPEN_FAILED' && /better_sqlite3/.test(message));
  if (!missing && !mismatched) return undefined;
  return (
    `better-sqlite3's native build is ${missing ? 'missing (its install script did not run)' : 'for another Node.js version'}: ` +
    'run `npm rebuild better-sqlite3`; with pnpm, allow it (`allowBuilds: { better-sqlite3: true }` in pnpm-workspace.yaml, ' +
    'or `onlyBuiltDependencies` on pnpm 10), then `pnpm rebuild better-sqlite3`. Compiling needs Python 3, make and a C++ compiler'
  );
}
