// Runs the formatter and linter check, the type check and the whole suite once, then prints the
// closing line CI reads: "N passed, N failed". A lint or format finding counts as one failure, and
// so does a type error.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const pnpm = (args) => spawnSync('node', ['scripts/pnpm.mjs', ...args], { stdio: 'inherit', cwd: root });

console.log('> biome ci (format and lint; `npx biome check --write .` fixes most findings)');
const lint = pnpm(['exec', 'biome', 'ci', '--colors=off', '.']);
const lintFailures = lint.status === 0 ? 0 : 1;

console.log('> tsc -b (type check of packages, tests, examples and benchmarks)');
const typecheck = pnpm(['exec', 'tsc', '-b']);
const typeFailures = typecheck.status === 0 ? 0 : 1;

const out = new URL('.test-results.json', root);
rmSync(out, { force: true });
const run = pnpm([
  'exec',
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${out.pathname}`,
  ...process.argv.slice(2),
]);
if (!existsSync(out)) {
  console.log(`0 passed, ${1 + typeFailures + lintFailures} failed`);
  process.exit(run.status || 1);
}
const summary = JSON.parse(readFileSync(out, 'utf8'));
// A file that fails to load counts as a failure even though it holds no executed test.
const brokenFiles = summary.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
const failed = summary.numFailedTests + brokenFiles + typeFailures + lintFailures;
console.log(`${summary.numPassedTests} passed, ${failed} failed`);
process.exit(failed > 0 || run.status !== 0 ? 1 : 0);
