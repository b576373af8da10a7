import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');
const fixture = join(import.meta.dirname, 'fixtures', 'open-without-native-build.ts');
const require = createRequire(join(import.meta.dirname, '..', 'package.json'));

/**
 * A copy of the installed better-sqlite3 package (its JavaScript and manifest, with the real
 * `bindings` dependency beside it) but without `build/`: what a blocked install script leaves.
 */
function packageWithoutBuild(): string {
  const installed = dirname(require.resolve('better-sqlite3/package.json'));
  const modules = join(mkdtempSync(join(tmpdir(), 'memory-nobuild-')), 'node_modules');
  const copy = join(modules, 'better-sqlite3');
  mkdirSync(copy, { recursive: true });
  cpSync(join(installed, 'package.json'), join(copy, 'package.json'));
  cpSync(join(installed, 'lib'), join(copy, 'lib'), { recursive: true });
  const bindings = dirname(createRequire(join(installed, 'package.json')).resolve('bindings/package.json'));
  symlinkSync(bindings, join(modules, 'bindings'), 'dir');
  return join(copy, 'lib', 'index.js');
}

async function openWith(lib: string): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'memory-nobuild-db-'));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=@memory/source', '--import', 'tsx', fixture, lib, join(dir, 'memory.db')],
    { cwd: root },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('a missing native build of better-sqlite3', () => {
  it('is a STORAGE_ERROR that says what to run, with the driver error kept as its cause', async () => {
    const result = await openWith(packageWithoutBuild());
    expect(result['cause']).toMatch(/Could not locate the bindings file/);
    expect(result).toMatchObject({
      name: 'MemoryError',
      code: 'STORAGE_ERROR',
      details: { reason: 'native-build-missing', node: process.version },
    });
    expect(result['message']).toContain("better-sqlite3's native build is missing");
    expect(result['message']).toContain('npm rebuild better-sqlite3');
    expect(result['message']).toContain('pnpm rebuild better-sqlite3');
    expect(result['message']).toContain('allowBuilds');
  }, 180_000);

  it('the same harness opens the store with the real package (the copy is what breaks it)', async () => {
    const real = require.resolve('better-sqlite3');
    expect(await openWith(real)).toEqual({ opened: true });
  }, 180_000);
});
