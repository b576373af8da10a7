import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { findPostgresBinaries, startPostgresServer } from '../postgres-server.mjs';

const script = join(import.meta.dirname, '..', 'postgres-server.mjs');

/** A fake installation: the three binaries the script needs, `postgres --version` printing `version`. */
function fakeBinDir(dir: string, version: string): string {
  mkdirSync(dir, { recursive: true });
  for (const name of ['initdb', 'pg_isready']) writeFileSync(join(dir, name), '#!/bin/sh\n', { mode: 0o755 });
  writeFileSync(join(dir, 'postgres'), `#!/bin/sh\necho "postgres (PostgreSQL) ${version}"\n`, { mode: 0o755 });
  return dir;
}

describe('findPostgresBinaries', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'pg-bins-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const debianRoot = join(scratch, 'usr-lib-postgresql');
  for (const version of ['9.6', '15', '10']) fakeBinDir(join(debianRoot, version, 'bin'), `${version}.1`);
  mkdirSync(join(debianRoot, 'not-a-version'));

  it('takes the newest /usr/lib/postgresql/<ver>/bin by number, not by string order', () => {
    expect(findPostgresBinaries({ path: '', debianRoot })).toEqual({
      binDir: join(debianRoot, '15', 'bin'),
      version: 'postgres (PostgreSQL) 15.1',
    });
  });

  it('prefers the installation on PATH, and skips a directory missing a binary', () => {
    const onPath = fakeBinDir(join(scratch, 'custom'), '17.2');
    const incomplete = join(scratch, 'incomplete');
    mkdirSync(incomplete);
    writeFileSync(join(incomplete, 'initdb'), '#!/bin/sh\n', { mode: 0o755 });
    expect(findPostgresBinaries({ path: `${incomplete}:${onPath}`, debianRoot })?.binDir).toBe(onPath);
  });

  it('finds nothing when there is nothing', () => {
    expect(findPostgresBinaries({ path: join(scratch, 'empty'), debianRoot: join(scratch, 'none') })).toBeUndefined();
  });
});

const off = process.env.MEMORY_TEST_POSTGRES === 'off';
const binaries = off ? undefined : findPostgresBinaries();
if (!binaries && process.env.MEMORY_REQUIRE_POSTGRES === '1') {
  throw new Error(`MEMORY_REQUIRE_POSTGRES=1 but ${off ? 'MEMORY_TEST_POSTGRES=off' : 'no PostgreSQL binaries found'}`);
}
const skipReason = off ? 'MEMORY_TEST_POSTGRES=off' : 'no PostgreSQL server binaries here';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

describe.skipIf(!binaries)(
  `postgres-server.mjs with real binaries${binaries ? '' : ` (skipped: ${skipReason})`}`,
  () => {
    // The run's temp root is private (0700) and the server runs as `postgres` when we are root, so
    // these servers live in a directory of their own that `postgres` can enter.
    const parentDir = mkdtempSync(join(process.getuid?.() === 0 ? '/tmp' : tmpdir(), 'memory-pg-test-'));
    chmodSync(parentDir, 0o711);
    afterAll(() => rmSync(parentDir, { recursive: true, force: true }));

    it('a killed owner takes its server down, and the next start sweeps the directory it left', async () => {
      const child = spawn(process.execPath, [script, 'start'], {
        env: { ...process.env, TMPDIR: parentDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const firstLine = (stream: NodeJS.ReadableStream) =>
        new Promise<string>((resolve) => createInterface({ input: stream }).once('line', resolve));
      const [url, banner] = await Promise.all([firstLine(child.stdout), firstLine(child.stderr)]);
      expect(url).toMatch(/^postgresql:\/\/memory:[0-9a-f]{32}@127\.0\.0\.1:\d+\/postgres$/);
      const dir = /data in (\S+)\)/.exec(banner)?.[1] ?? '';
      const postmaster = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
      expect(alive(postmaster)).toBe(true);

      child.kill('SIGKILL');
      expect(await waitUntil(() => !alive(postmaster), 60_000)).toBe(true);
      expect(existsSync(dir)).toBe(true); // nobody was left to delete it

      const server = await startPostgresServer({ parentDir });
      try {
        expect(existsSync(dir)).toBe(false);
        expect(server.dir.startsWith(parentDir)).toBe(true);
        expect(server.version).toBe(binaries?.version);
      } finally {
        await server.stop();
      }
      expect(alive(server.pid)).toBe(false);
      expect(existsSync(server.dir)).toBe(false);
      await server.stop(); // idempotent
      // Two initdb runs and two server starts: 60 s is not enough on a loaded 2-core machine.
    }, 300_000);

    it('an abandoned start leaves no process and no directory', async () => {
      const abandon = new AbortController();
      const starting = startPostgresServer({ parentDir, signal: abandon.signal });
      setTimeout(() => abandon.abort(), 20);
      await expect(starting).rejects.toThrow();
      expect(readdirSync(parentDir).filter((name) => name.startsWith('memory-pg-'))).toEqual([]);
    }, 180_000);
  },
);
