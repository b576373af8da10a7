// Publishes every publishable package whose version is not on the registry yet, one at a time in
// dependency order (each `pnpm publish` runs that package's prepack build, and a declaration build
// reads its dependencies' declarations, so concurrent publishes could race), then tags the release
// with `changeset tag`. Run `npm run version-packages` first.
//   npm run release              # needs `npm login` or NPM_TOKEN
//   npm run release -- --dry-run # packs and reports, publishes nothing, tags nothing
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publishablePackages } from './pack-consume/workspace-packages.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dryRun = process.argv.includes('--dry-run');

function published(name, version) {
  const view = spawnSync('npm', ['view', `${name}@${version}`, 'version'], { encoding: 'utf8' });
  if (view.status === 0) return view.stdout.trim() === version;
  if (/E404/.test(view.stderr)) return false;
  throw new Error(`npm view ${name}@${version} failed:\n${view.stderr}`);
}

const pending = publishablePackages(root).filter((pkg) => !published(pkg.name, pkg.manifest.version));
if (pending.length === 0) {
  console.log('release: every package version is already on the registry');
  process.exit(0);
}
for (const pkg of pending) {
  console.log(`release: ${dryRun ? 'dry run of ' : ''}${pkg.name}@${pkg.manifest.version}`);
  // pnpm publish turns workspace:^ into ^<version>; access comes from publishConfig.
  const args = [
    'scripts/pnpm.mjs',
    '--filter',
    pkg.name,
    'publish',
    '--no-git-checks',
    ...(dryRun ? ['--dry-run'] : []),
  ];
  const run = spawnSync('node', args, { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) {
    console.error(`release: ${pkg.name} failed; packages before it are published, fix and run again`);
    process.exit(run.status ?? 1);
  }
}
if (!dryRun) {
  const tag = spawnSync(join(root, 'node_modules', '.bin', 'changeset'), ['tag'], { cwd: root, stdio: 'inherit' });
  if (tag.status !== 0) process.exit(tag.status ?? 1);
  console.log('release: done; push the tags with `git push --follow-tags`');
}
