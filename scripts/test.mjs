// Runs the formatter and linter check, the type check, the whole suite and the pack-and-consume step
// once, then prints the closing line CI reads: "N passed, N failed". A lint or format finding counts
// as one failure, and so does a type error; each pack-and-consume check counts as one test.
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

// Pack every publishable package, install the tarballs with npm into a project outside the
// workspace and use them there (scripts/pack-consume.mjs). MEMORY_SKIP_PACK_CONSUME=1 skips it
// during development; CI never sets it.
const pack = { passed: 0, failed: 0, status: 0 };
if (process.env.MEMORY_SKIP_PACK_CONSUME === '1') {
  console.log('> pack and consume: skipped (MEMORY_SKIP_PACK_CONSUME=1)');
} else {
  const packOut = new URL('.pack-consume-results.json', root);
  rmSync(packOut, { force: true });
  const packRun = spawnSync('node', ['scripts/pack-consume.mjs', '--results', packOut.pathname], {
    stdio: 'inherit',
    cwd: root,
  });
  const packSummary = existsSync(packOut) ? JSON.parse(readFileSync(packOut, 'utf8')) : { passed: 0, failed: 1 };
  Object.assign(pack, { passed: packSummary.passed, failed: packSummary.failed, status: packRun.status ?? 1 });
  if (pack.status !== 0 && pack.failed === 0) pack.failed = 1;
}

if (!existsSync(out)) {
  console.log(`${pack.passed} passed, ${1 + typeFailures + lintFailures + pack.failed} failed`);
  process.exit(run.status || 1);
}
const summary = JSON.parse(readFileSync(out, 'utf8'));
// A file that fails to load counts as a failure even though it holds no executed test.
const brokenFiles = summary.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
const failed = summary.numFailedTests + brokenFiles + typeFailures + lintFailures + pack.failed;
console.log(`${summary.numPassedTests + pack.passed} passed, ${failed} failed`);
process.exit(failed > 0 || run.status !== 0 ? 1 : 0);
