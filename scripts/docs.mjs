// API reference: TypeDoc over every publishable package's entry points (the `@memory/source` targets
// of their `exports`), from the TypeScript sources and their JSDoc, into docs/api/ (gitignored).
//   npm run docs
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publishablePackages } from './pack-consume/workspace-packages.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const packages = publishablePackages(root);
/** Entry source file → the specifier consumers import it by. */
const entries = packages.flatMap((pkg) =>
  Object.entries(pkg.manifest.exports ?? {}).flatMap(([key, target]) => {
    const source = typeof target === 'object' && target !== null ? target['@memory/source'] : undefined;
    if (typeof source !== 'string') return [];
    return [{ file: relative(root, join(pkg.dir, source)), specifier: posix.join(pkg.name, key) }];
  }),
);
// TypeDoc names a module by its path below the entry points' common directory, without the
// extension and a trailing /index: packages/store/src/testing.ts → "store/src/testing".
const moduleNames = Object.fromEntries(
  entries.map(({ file, specifier }) => [
    relative('packages', file)
      .replace(/\.[cm]?tsx?$/, '')
      .replace(/\/index$/, ''),
    specifier,
  ]),
);

// One program over all packages' sources: workspace imports resolve to the sources through the
// `@memory/source` condition (no build needed).
const configDir = join(root, '.tsbuild', 'typedoc');
mkdirSync(configDir, { recursive: true });
const tsconfig = join(configDir, 'tsconfig.json');
writeFileSync(
  tsconfig,
  JSON.stringify({
    extends: relative(configDir, join(root, 'tsconfig.base.json')),
    compilerOptions: { composite: false, noEmit: true, rootDir: relative(configDir, root) },
    include: packages.map((pkg) => relative(configDir, join(pkg.dir, 'src'))),
  }),
);

const typedoc = join(root, 'node_modules', '.bin', 'typedoc');
const run = spawnSync(
  typedoc,
  [
    '--tsconfig',
    tsconfig,
    '--entryPointStrategy',
    'resolve',
    ...entries.flatMap(({ file }) => ['--entryPoints', file]),
    '--plugin',
    join(root, 'scripts', 'typedoc-module-names.mjs'),
    '--out',
    join(root, 'docs', 'api'),
    '--name',
    '@memory API reference',
    '--readme',
    'none',
    '--excludePrivate',
    '--excludeInternal',
    '--skipErrorChecking', // `npm run typecheck` is the type check
    '--validation.notExported',
    'false',
    '--logLevel',
    'Warn',
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, MEMORY_TYPEDOC_MODULE_NAMES: JSON.stringify(moduleNames) } },
);
if (run.status === 0) console.log(`API reference: ${join(root, 'docs', 'api', 'index.html')}`);
process.exit(run.status ?? 1);
