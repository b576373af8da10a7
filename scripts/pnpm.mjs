// Runs the pinned pnpm (from the root package.json's packageManager field) without a global install:
// a pnpm already on PATH at the right version is used as is; otherwise npx fetches the pinned one.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const pinned = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')).packageManager.split('@')[1];
const args = process.argv.slice(2);
const onPath = spawnSync('pnpm', ['--version'], { encoding: 'utf8', shell: false });
const command =
  onPath.status === 0 && onPath.stdout.trim() === pinned
    ? { cmd: 'pnpm', argv: args }
    : { cmd: 'npx', argv: ['--yes', `pnpm@${pinned}`, ...args] };
const run = spawnSync(command.cmd, command.argv, { stdio: 'inherit', cwd: root, env: process.env });
process.exit(run.status ?? 1);
