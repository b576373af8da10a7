// Runs mutation testing (StrykerJS, stryker.config.mjs) group by group and prints each group's
// score per file. Not part of `npm test`: it takes far longer than the suite.
//
//   npm run test:mutation                      every group, in turn
//   npm run test:mutation -- citations queue   the named groups
//   npm run test:mutation -- --list            the groups and what they cover
//   npm run test:mutation -- fusion --concurrency 1   extra arguments go to `stryker run`
//
// Each group's report (JSON and HTML) and incremental file are in node_modules/.cache/stryker/<group>/.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { MUTATION_GROUPS } from './mutation-groups.mjs';

const root = new URL('..', import.meta.url);
const args = process.argv.slice(2);
if (args.includes('--list')) {
  for (const [name, g] of Object.entries(MUTATION_GROUPS)) console.log(`${name}: ${g.why}\n  ${g.mutate.join('\n  ')}`);
  process.exit(0);
}
const names = args.filter((a) => a in MUTATION_GROUPS);
const unknown = args.filter((a, i) => !a.startsWith('-') && !(a in MUTATION_GROUPS) && !args[i - 1]?.startsWith('--'));
if (unknown.length > 0) {
  console.error(`unknown group(s) ${unknown.join(', ')}; groups: ${Object.keys(MUTATION_GROUPS).join(', ')}`);
  process.exit(2);
}
const extra = args.filter((a) => !(a in MUTATION_GROUPS));
const groups = names.length > 0 ? names : Object.keys(MUTATION_GROUPS);

/** Stryker's score: detected (killed, timeout) over valid (detected, survived, no coverage); ignored mutants left out. */
function scores(report) {
  const rows = [];
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const count = (...s) => mutants.filter((m) => s.includes(m.status)).length;
    const detected = count('Killed', 'Timeout');
    const undetected = count('Survived', 'NoCoverage');
    rows.push({
      file,
      detected,
      undetected,
      ignored: count('Ignored'),
      score: (100 * detected) / (detected + undetected || 1),
    });
  }
  return rows;
}

let failed = false;
const summary = [];
for (const group of groups) {
  console.log(`\n> mutation group ${group}: ${MUTATION_GROUPS[group].why}`);
  const run = spawnSync('node', ['scripts/pnpm.mjs', 'exec', 'stryker', 'run', 'stryker.config.mjs', ...extra], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, MUTATION_GROUP: group },
  });
  if (run.status !== 0) failed = true;
  const reportPath = new URL(`node_modules/.cache/stryker/${group}/mutation.json`, root);
  if (existsSync(reportPath))
    for (const row of scores(JSON.parse(readFileSync(reportPath, 'utf8')))) summary.push({ group, ...row });
}
console.log('\ngroup | file | score | killed+timeout | survived+no coverage | ignored (static)');
for (const r of summary)
  console.log(`${r.group} | ${r.file} | ${r.score.toFixed(1)}% | ${r.detected} | ${r.undetected} | ${r.ignored}`);
process.exit(failed ? 1 : 0);
