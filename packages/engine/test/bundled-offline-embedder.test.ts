import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';

const here = import.meta.dirname;
const require = createRequire(join(here, '..', 'package.json'));
// esbuild is in the tree as tsup's bundler; it is not a dependency of its own here (nor its types).
const esbuild = (await import(createRequire(require.resolve('tsup')).resolve('esbuild'))) as {
  build(options: Record<string, unknown>): Promise<unknown>;
};
const vectorsExport = createRequire(join(here, '..', '..', 'providers', 'package.json')).resolve(
  '@memory/providers/offline-vectors',
);

/** The directory of package `name` as `resolver` finds it (some packages do not export package.json). */
function packageDir(name: string, resolver: NodeJS.Require = require): string {
  let dir = dirname(resolver.resolve(name));
  while (!existsSync(join(dir, 'package.json')) || !dir.endsWith(name)) dir = dirname(dir);
  return dir;
}

/** Links a package directory into `modules` under `name`, as a deployed app ships its native dependencies. */
function link(modules: string, name: string, dir: string): void {
  const target = join(modules, name);
  mkdirSync(dirname(target), { recursive: true });
  symlinkSync(dir, target, 'dir');
}

let bundle = '';
beforeAll(async () => {
  const outdir = mkdtempSync(join(tmpdir(), 'memory-bundle-'));
  await esbuild.build({
    entryPoints: [join(here, 'fixtures', 'bundled-app.ts')],
    outfile: join(outdir, 'app.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@memory/source'],
    // Native modules stay outside the bundle, as in any bundled Node app.
    external: ['better-sqlite3', 'sqlite-vec'],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'silent',
  });
  bundle = join(outdir, 'app.mjs');
}, 120_000);

function withoutNodePath(): NodeJS.ProcessEnv {
  const { NODE_PATH: _ignored, ...env } = process.env;
  return env;
}

/** Runs the bundle from its own directory, with node_modules holding `modules` only. */
async function runBundle(modules: string[], vectorsPath?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'memory-bundle-run-'));
  const nodeModules = join(dir, 'node_modules');
  link(nodeModules, 'better-sqlite3', packageDir('better-sqlite3'));
  link(nodeModules, 'sqlite-vec', packageDir('sqlite-vec', createRequire(require.resolve('@memory/store'))));
  for (const name of modules) link(nodeModules, name, join(here, '..', '..', 'providers'));
  const app = join(dir, 'app.mjs');
  symlinkSync(bundle, app);
  const db = join(dir, 'memory.db');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--preserve-symlinks-main', app, db, ...(vectorsPath ? [vectorsPath] : [])],
    {
      cwd: dir,
      // `pnpm exec` sets NODE_PATH to the workspace's hoisted modules; a deployed app has none.
      env: withoutNodePath(),
    },
  );
  const sqlite = new Database(db, { readonly: true });
  const vectors = (sqlite.prepare('SELECT count(*) AS n FROM embeddings').get() as { n: number }).n;
  const memories = (sqlite.prepare('SELECT count(*) AS n FROM memories').get() as { n: number }).n;
  sqlite.close();
  return {
    ...(JSON.parse(stdout) as {
      embedder: { available: boolean; reason?: string };
      warnings: Array<{ message: string; fields: { error?: string } }>;
      debugFailures: number;
    }),
    vectors,
    memories,
  };
}

describe('the offline embedder in a bundled app', () => {
  it('without its vectors file: diagnostics say unavailable and why, the failure is logged once, memories are kept', async () => {
    const run = await runBundle([]);
    expect(run.memories).toBe(3);
    expect(run.vectors).toBe(0);
    expect(run.embedder).toMatchObject({ available: false, model: 'glove-6b-100d-sif-abtt1' });
    expect(run.embedder.reason).toContain('vectors file not found');
    expect(run.embedder.reason).toContain("'@memory/providers/offline-vectors'");
    expect(run.warnings).toHaveLength(1);
    expect(run.warnings[0]?.message).toMatch(/^embedding failed/);
    expect(run.warnings[0]?.fields.error).toContain('pass vectorsPath');
    expect(run.debugFailures).toBe(2);
  }, 180_000);

  it('with vectorsPath set to the exported asset: available, every memory has its vector, nothing logged', async () => {
    const run = await runBundle([], vectorsExport);
    expect(run.embedder).toMatchObject({ available: true });
    expect(run.vectors).toBe(3);
    expect(run.warnings).toEqual([]);
  }, 180_000);

  it('with @memory/providers installed beside the bundle, the default finds the file through the package export', async () => {
    const run = await runBundle(['@memory/providers']);
    expect(run.embedder).toMatchObject({ available: true });
    expect(run.vectors).toBe(3);
  }, 180_000);
});
