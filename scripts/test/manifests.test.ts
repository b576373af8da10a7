import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/packaging.md: the manifest conventions every publishable package follows. These are the
// static half (fast, with a message naming the rule); scripts/pack-consume.mjs proves the rest on
// real tarballs in `npm test`.
const root = join(import.meta.dirname, '..', '..');
const packagesDir = join(root, 'packages');

interface Manifest {
  name: string;
  private?: boolean;
  license?: string;
  type?: string;
  sideEffects?: boolean;
  main?: string;
  types?: string;
  typesVersions?: Record<string, Record<string, string[]>>;
  repository?: { type?: string; url?: string; directory?: string };
  exports?: Record<string, string | Record<string, string>>;
  files?: string[];
  scripts?: Record<string, string>;
  publishConfig?: { access?: string };
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const publishable = readdirSync(packagesDir, { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(packagesDir, e.name, 'package.json')))
  .map((e) => ({
    dir: e.name,
    manifest: JSON.parse(readFileSync(join(packagesDir, e.name, 'package.json'), 'utf8')) as Manifest,
  }))
  .filter((p) => p.manifest.private !== true);

describe.each(publishable)('packages/$dir/package.json', ({ dir, manifest }) => {
  const where = (file: string) => join(packagesDir, dir, file);

  it('is public, MIT, ESM, side-effect free, with README, LICENSE and repository', () => {
    expect(manifest.publishConfig?.access, 'publishConfig.access').toBe('public');
    expect(manifest.license).toBe('MIT');
    expect(manifest.type).toBe('module');
    expect(manifest.sideEffects, 'sideEffects').toBe(false);
    expect(existsSync(where('README.md')), 'README.md').toBe(true);
    expect(existsSync(where('LICENSE')), 'LICENSE').toBe(true);
    expect(manifest.repository?.directory, 'repository.directory').toBe(`packages/${dir}`);
    expect(manifest.repository?.url, 'repository.url').toMatch(/^git\+https:\/\//);
  });

  it('builds before packing: prepack runs the build (tsup, then tsc -b tsconfig.build.json)', () => {
    expect(manifest.scripts?.build).toBe('tsup && tsc -b tsconfig.build.json');
    expect(manifest.scripts?.prepack, 'prepack').toMatch(/(^|&& )tsup && tsc -b tsconfig\.build\.json$/);
    expect(existsSync(where('tsconfig.build.json')), 'tsconfig.build.json').toBe(true);
    expect(manifest.files).toEqual(expect.arrayContaining(['dist', 'src', '!dist/*.tsbuildinfo']));
  });

  it('every export has types and a default condition, with main/types fallbacks for old resolvers', () => {
    const exports = manifest.exports ?? {};
    expect(Object.keys(exports)).toContain('.');
    expect(exports['./package.json']).toBe('./package.json');
    for (const [key, target] of Object.entries(exports)) {
      if (key === './package.json') continue;
      if (typeof target === 'string' && !/\.[cm]?[jt]s$/.test(target)) {
        // An asset export (providers' offline vectors): a file, not a module, so no conditions; it must ship.
        expect(manifest.files, `files for the asset export "${key}"`).toContain(target.split('/')[1]);
        continue;
      }
      expect(typeof target, `exports["${key}"]`).toBe('object');
      const conditions = target as Record<string, string>;
      expect(Object.keys(conditions), `exports["${key}"] condition order`).toEqual([
        '@memory/source',
        'types',
        'default',
      ]);
      expect(conditions['types']).toMatch(/^\.\/dist\/.+\.d\.ts$/);
      expect(conditions['default']).toMatch(/^\.\/dist\/.+\.js$/);
      if (key !== '.') {
        // node10 resolution ignores exports: typesVersions maps the subpath to its declarations.
        expect(manifest.typesVersions?.['*']?.[key.slice(2)], `typesVersions for "${key}"`).toEqual([
          conditions['types'],
        ]);
      }
    }
    const main = exports['.'] as Record<string, string>;
    expect(manifest.main).toBe(main['default']);
    expect(manifest.types).toBe(main['types']);
  });

  it('uses ^ ranges: workspace:^ between our packages, ^x.y.z for third-party runtime dependencies', () => {
    for (const [dep, range] of Object.entries({ ...manifest.dependencies })) {
      if (dep.startsWith('@memory/')) expect(range, dep).toBe('workspace:^');
      // `~` only where the next minor drops Node 20 (unpdf 1.8 needs Node 22): npm would pick it.
      else expect(range, dep).toMatch(/^[\^~]\d+\.\d+\.\d+$/);
    }
  });
});

it('finds the publishable packages', () => {
  expect(publishable.map((p) => p.manifest.name)).toEqual(expect.arrayContaining(['@memory/core', '@memory/engine']));
  expect(existsSync(join(root, 'LICENSE'))).toBe(true);
});
