// Runs the whole suite once and prints the closing line CI reads: "N passed, N failed".
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const out = new URL('.test-results.json', root);
rmSync(out, { force: true });
const run = spawnSync(
  'node',
  ['scripts/pnpm.mjs', 'exec', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out.pathname}`,
    ...process.argv.slice(2)],
  { stdio: 'inherit', cwd: root },
);
if (!existsSync(out)) {
  console.log('0 passed, 1 failed');
  process.exit(run.status || 1);
}
const summary = JSON.parse(readFileSync(out, 'utf8'));
// A file that fails to load counts as a failure even though it holds no executed test.
const brokenFiles = summary.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
const failed = summary.numFailedTests + brokenFiles;
console.log(`${summary.numPassedTests} passed, ${failed} failed`);
process.exit(failed > 0 || run.status !== 0 ? 1 : 0);
