// Mutation testing with StrykerJS (`npm run test:mutation`, see docs/mutation-testing.md). One
// group per run, chosen by MUTATION_GROUP (scripts/mutation.mjs runs each in turn); every group
// keeps its own incremental file, so a second run re-tests only mutants whose code or tests changed.
import { MUTATION_GROUPS } from './scripts/mutation-groups.mjs';

const name = process.env.MUTATION_GROUP ?? '';
const group = MUTATION_GROUPS[name];
if (!group) throw new Error(`MUTATION_GROUP must be one of ${Object.keys(MUTATION_GROUPS).join(', ')} (got "${name}")`);
// Read by vitest.mutation.config.mjs in Stryker's test-runner processes, which inherit the environment.
process.env.MUTATION_TESTS = JSON.stringify(group.tests);
const out = `node_modules/.cache/stryker/${name}`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.mjs', related: false },
  mutate: group.mutate,
  // Workspace packages link each other through per-package node_modules symlinks, which a sandbox
  // copy does not carry: mutate the files where they are (Stryker keeps a backup and restores them).
  inPlace: true,
  tempDirName: 'node_modules/.cache/stryker-tmp',
  coverageAnalysis: 'perTest',
  // Module-level constants (SQL text, tables) are only read at load: each such mutant would reload
  // everything and run every test. They are listed as ignored rather than tested.
  ignoreStatic: true,
  incremental: true,
  incrementalFile: `${out}/incremental.json`,
  concurrency: 2,
  // A shared two-core machine: allow slow but finite runs before calling a mutant a timeout.
  timeoutMS: 20_000,
  dryRunTimeoutMinutes: 20,
  reporters: ['clear-text', 'progress-append-only', 'json', 'html'],
  jsonReporter: { fileName: `${out}/mutation.json` },
  htmlReporter: { fileName: `${out}/mutation.html` },
  clearTextReporter: { allowEmojis: false, logTests: false, reportMutants: true, reportScoreTable: true },
  thresholds: { high: 90, low: 85, break: null },
};
