import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** How to start a worker thread: a built file, or code that loads a TypeScript source through tsx. */
export type WorkerEntry = { readonly file: URL } | { readonly code: string };

/**
 * How to start one of this package's workers: the built file next to the bundle (`built`), or, when
 * running from the TypeScript sources (tests, benchmarks), the `.ts` file (`source`) loaded through
 * tsx's register hook. Undefined when neither is possible: the caller then works in-process.
 */
export function workerEntry(built: URL, source: URL): WorkerEntry | undefined {
  if (existsSync(fileURLToPath(built))) return { file: built };
  if (!existsSync(fileURLToPath(source))) return undefined;
  let tsx: string;
  try {
    // The ESM build of tsx's API, resolved as an import. `require.resolve` gave its CommonJS build,
    // whose register() cannot find its own ESM half when imported: the worker failed on every start
    // and large batches silently ran in-process.
    tsx = import.meta.resolve('tsx/esm/api');
  } catch {
    return undefined;
  }
  // An eval worker is a CommonJS script: it registers tsx, then imports the TypeScript entry.
  return {
    code: `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(source.href)}); });`,
  };
}
