// The retrieval benchmarks read labelled data (LoCoMo, SciFact) that is licensed for research use and
// is never copied into this repository. Without it they say what they need and how to point at it,
// instead of failing inside a file read.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The default data directory: `shared/data` beside the repository checkout (`../shared/data`). */
export const DEFAULT_DATA_DIR = join(import.meta.dirname, '..', '..', '..', 'shared', 'data');

/**
 * The explanation to print when any of `files` (relative to `dataDir`) is missing, or undefined when
 * all are there.
 */
export function missingBenchData(dataDir: string, files: readonly string[], bench: string): string | undefined {
  const missing = files.filter((file) => !existsSync(join(dataDir, file)));
  if (missing.length === 0) return undefined;
  return [
    `${bench} needs benchmark data that is not in this repository (research licence; it is read at run time, never copied).`,
    `Looked in: ${dataDir}`,
    `Missing:   ${missing.join(', ')}`,
    'Place the shared data directory beside the checkout (../shared/data, holding locomo/ and scifact/),',
    `or pass its location: npm run ${bench} -- --data /path/to/shared/data`,
  ].join('\n');
}

/** Prints the explanation and exits with status 2 when the data is missing (benchmarks are scripts). */
export function exitUnlessBenchData(dataDir: string, files: readonly string[], bench: string): void {
  const message = missingBenchData(dataDir, files, bench);
  if (message === undefined) return;
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
