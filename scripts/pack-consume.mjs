// Pack and consume: what a stranger's project sees. Packs every publishable package (its `prepack`
// builds it from a clean dist), installs the tarballs with plain npm into a temporary project outside
// the workspace, then runs the README quick start as ESM, require()s every entry point from CommonJS,
// runs every bin with --help, checks two copies of @memory/core, type-checks a consumer under NodeNext,
// bundler and node10 with skipLibCheck off, and runs publint and arethetypeswrong on each tarball.
//
// Usage: node scripts/pack-consume.mjs [--results <file.json>] [--keep]
// Prints one line per check and writes { passed, failed, checks, tarballs } to --results; scripts/test.mjs
// adds the counts to the suite's closing line. The temporary project is removed unless a check failed
// or --keep is given.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  consumerManifest,
  noNativeBuildScript,
  readmeQuickStart,
  requireScript,
  transformersScript,
  twoCopiesScript,
  typecheckConfigs,
  typedCjsConsumer,
  typedConsumer,
} from './pack-consume/consumer-files.mjs';
import { assetExports, entrySpecifiers, publishablePackages } from './pack-consume/workspace-packages.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const resultsPath = args.includes('--results') ? args[args.indexOf('--results') + 1] : undefined;
const keep = args.includes('--keep');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const nodedir = dirname(dirname(process.execPath));

/** @type {{ name: string, ok: boolean, ms: number, detail?: string }[]} */
const checks = [];
const started = Date.now();

function run(cmd, argv, cwd, timeoutMs = 300_000) {
  const result = spawnSync(cmd, argv, {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, npm_config_nodedir: nodedir, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  return { ok: result.status === 0, status: result.status, output, error: result.error };
}

/** Records one check; `fn` throws to fail it, and may return a short note. */
function check(name, fn) {
  const t0 = Date.now();
  try {
    const note = fn();
    checks.push({ name, ok: true, ms: Date.now() - t0, ...(note ? { detail: note } : {}) });
    console.log(`  ✓ ${name}${note ? ` (${note})` : ''} ${Date.now() - t0} ms`);
    return true;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    checks.push({ name, ok: false, ms: Date.now() - t0, detail });
    console.log(`  ✗ ${name} ${Date.now() - t0} ms\n${detail.replace(/^/gm, '      ')}`);
    return false;
  }
}

function expectOk(result, what) {
  if (result.ok) return result.output;
  const tail = result.output.trim().split('\n').slice(-40).join('\n');
  throw new Error(`${what} exited with ${result.status ?? result.error?.message}\n${tail}`);
}

const work = mkdtempSync(join(tmpdir(), 'memory-pack-consume-'));
const tarballDir = join(work, 'tarballs');
const consumer = join(work, 'consumer');
mkdirSync(tarballDir);
mkdirSync(consumer);
console.log(`> pack and consume (${work})`);

// 1. Pack: one recursive pnpm pack, which runs the packages' prepack builds in dependency order
// (a declaration build reads its dependencies' declarations). Each dist is removed first, so a
// tarball with a build in it proves that packing builds. pnpm turns workspace:^ into ^<version>.
const packages = publishablePackages(root);
/** @type {Map<string, string>} */
const tarballs = new Map();
/** @type {{ name: string, bytes: number, unpackedBytes: number, files: number }[]} */
const sizes = [];
for (const pkg of packages) rmSync(join(pkg.dir, 'dist'), { recursive: true, force: true });
let packOutput = '';
check(`pnpm -r pack (${packages.length} packages; prepack builds each)`, () => {
  const filters = packages.flatMap((pkg) => ['--filter', pkg.name]);
  const argv = [join(root, 'scripts/pnpm.mjs'), '-r', ...filters, 'pack', '--pack-destination', tarballDir];
  const result = run('node', argv, root, 600_000);
  packOutput = result.output;
  expectOk(result, 'pnpm -r pack');
});
for (const pkg of packages) {
  check(`tarball of ${pkg.name}`, () => {
    const file = join(tarballDir, `${pkg.name.replace('@', '').replace('/', '-')}-${pkg.manifest.version}.tgz`);
    if (!existsSync(file)) {
      const mentions = packOutput.split('\n').filter((line) => line.includes(pkg.dir.slice(root.length)));
      throw new Error(`no tarball at ${file}\n${mentions.slice(-20).join('\n')}`);
    }
    tarballs.set(pkg.name, file);
  });
}

// 2. What each tarball holds: README, LICENSE, every file the manifest points at, no workspace: ranges.
for (const [name, file] of tarballs) {
  check(`tarball contents ${name}`, () => {
    const listing = expectOk(run('tar', ['-tzvf', file], work), 'tar -t');
    const entries = listing
      .trim()
      .split('\n')
      .map((line) => ({ size: Number(line.split(/\s+/)[2]), path: line.split(/\s+/).slice(5).join(' ') }));
    const paths = new Set(entries.map((e) => e.path.replace(/^package\//, '')));
    const manifest = JSON.parse(expectOk(run('tar', ['-xzOf', file, 'package/package.json'], work), 'tar -x'));
    const missing = ['README.md', 'LICENSE', 'package.json'].filter((p) => !paths.has(p));
    const bins = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
    const targets = [manifest.main, manifest.types, ...exportTargets(manifest.exports), ...bins]
      .filter((t) => typeof t === 'string' && !t.includes('*'))
      .map((t) => t.replace(/^\.\//, ''));
    missing.push(...targets.filter((t) => !paths.has(t)));
    // Declaration maps beside each declaration entry, pointing at sources that ship too.
    for (const types of targets.filter((t) => t.endsWith('.d.ts'))) {
      if (!paths.has(`${types}.map`)) {
        missing.push(`${types}.map`);
        continue;
      }
      const map = JSON.parse(expectOk(run('tar', ['-xzOf', file, `package/${types}.map`], work), 'tar -x'));
      const from = posix.dirname(types);
      missing.push(
        ...map.sources.map((source) => posix.normalize(posix.join(from, source))).filter((p) => !paths.has(p)),
      );
    }
    if (missing.length > 0) throw new Error(`missing from the tarball: ${[...new Set(missing)].join(', ')}`);
    const ranges = JSON.stringify({ ...manifest.dependencies, ...manifest.peerDependencies });
    if (ranges.includes('workspace:')) throw new Error(`workspace: ranges left in the packed manifest: ${ranges}`);
    if (manifest.publishConfig?.access !== 'public') throw new Error('publishConfig.access is not "public"');
    const bytes = statSync(file).size;
    const unpackedBytes = entries.reduce((sum, e) => sum + (Number.isFinite(e.size) ? e.size : 0), 0);
    sizes.push({ name, bytes, unpackedBytes, files: entries.length });
    return `${(bytes / 1024).toFixed(1)} KiB, ${entries.length} files`;
  });
}

/**
 * tsc's errors split by where they are: in a third-party package's own declarations (`theirs`, as
 * `file TScode`), or anywhere else: the consumer's files, our packages (`ours`).
 * @param {string} output
 */
function splitTscErrors(output) {
  const ours = [];
  const theirs = [];
  for (const match of output.matchAll(/^(\S+?)\(\d+,\d+\): error (TS\d+)/gm)) {
    const [, file, code] = match;
    const thirdParty = file.startsWith('node_modules/') && !/^node_modules\/(@memory\/|memory-core-copy\/)/.test(file);
    (thirdParty ? theirs : ours).push(thirdParty ? `${file} ${code}` : match[0]);
  }
  return { ours, theirs };
}

/** The command names a manifest's `bin` installs (a string bin is named after the unscoped package). */
function binNames(manifest) {
  if (typeof manifest.bin === 'string') return [manifest.name.replace(/^@[^/]+\//, '')];
  return Object.keys(manifest.bin ?? {});
}

/** Every file path an `exports` map points at (the values, at any depth of conditions). */
function exportTargets(exports) {
  if (typeof exports === 'string') return [exports];
  if (exports === null || typeof exports !== 'object') return [];
  return Object.values(exports).flatMap(exportTargets);
}

// 3. publint (warnings count as errors) and arethetypeswrong on each tarball.
for (const [name, file] of tarballs) {
  check(`publint ${name}`, () => {
    const out = expectOk(run(bin('publint'), ['run', file, '--strict'], work), 'publint');
    return out.includes('All good') ? 'all good' : out.trim().split('\n').slice(-3).join(' / ');
  });
}
for (const [name, file] of tarballs) {
  check(`attw ${name}`, () => {
    // ESM-only by design: Node ≥ 20.19 (our engines floor) loads it through require(), which the
    // require() check below proves; attw's bundled TypeScript predates that and flags every entry
    // point as "CJS resolves to ESM". That one rule is ignored; anything else fails.
    // Asset exports (a data file, not a module) have nothing for attw to resolve types for.
    const assets = assetExports(packages.find((p) => p.name === name)?.manifest ?? {});
    const exclude = assets.length > 0 ? ['--exclude-entrypoints', ...assets] : [];
    const argv = [file, '--format', 'json', '--ignore-rules', 'cjs-resolves-to-esm', ...exclude];
    const result = run(bin('attw'), argv, work);
    const json = JSON.parse(result.output.slice(result.output.indexOf('{')));
    const problems = (json.analysis?.problems ?? []).filter((p) => p.kind !== 'CJSResolvesToESM');
    if (problems.length > 0 || !result.ok) {
      throw new Error(
        `attw: ${problems.map((p) => `${p.kind} ${p.entrypoint ?? ''} ${p.resolutionKind ?? ''}`).join('; ') || result.output.slice(0, 2000)}`,
      );
    }
    const ignored = (json.analysis?.problems ?? []).length;
    const skipped = assets.length > 0 ? `; asset export ${assets.join(', ')} not checked` : '';
    return `no problems${ignored ? `; ${ignored} "CJS resolves to ESM" ignored` : ''}${skipped}`;
  });
}

// 4. A stranger's project: npm install of the tarballs (npm cache reused; install scripts off, the
// native better-sqlite3 build is copied from the workspace when the versions match, or rebuilt).
const specifiers = packages.flatMap((p) => (tarballs.has(p.name) ? entrySpecifiers(p.manifest) : []));
const installed = check('npm install the tarballs into a project outside the workspace', () => {
  const typesNode = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies['@types/node'];
  const peers = Object.fromEntries(
    packages.flatMap((pkg) => Object.entries(pkg.manifest.peerDependencies ?? {})).filter(([n]) => !tarballs.has(n)),
  );
  const manifest = consumerManifest({ tarballs, coreTarball: tarballs.get('@memory/core'), typesNode, peers });
  writeFileSync(join(consumer, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const flags = ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', '--loglevel=error'];
  // Dependencies missing from the npm cache come from the registry: a network hiccup (or a timeout
  // on a loaded machine) is retried twice rather than failing the run; a real error fails each time.
  let result = run('npm', flags, consumer);
  for (let attempt = 2; !result.ok && attempt <= 3; attempt++) {
    console.log(`    npm install failed (${result.status ?? result.error?.message}); attempt ${attempt} of 3`);
    result = run('npm', flags, consumer);
  }
  expectOk(result, 'npm install');
});
if (installed && tarballs.has('@memory/engine')) {
  // Install scripts were off, so better-sqlite3 has no native build yet: what a host sees when pnpm
  // blocked the build. The error must say what to run.
  writeFileSync(join(consumer, 'no-native-build.mjs'), noNativeBuildScript());
  check('a missing native build says what to run', () =>
    expectOk(run('node', ['no-native-build.mjs'], consumer), 'node no-native-build.mjs').trim(),
  );
}
const nativeReady = installed && check('native build of better-sqlite3 for the consumer', () => provideNativeBuild());

function provideNativeBuild() {
  const target = join(consumer, 'node_modules', 'better-sqlite3');
  if (!existsSync(target)) return 'no native module';
  const version = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')).version;
  const storeDir = packages.find((p) => p.name === '@memory/store')?.dir ?? root;
  const workspaceManifest = createRequire(join(storeDir, 'package.json')).resolve('better-sqlite3/package.json');
  const built = join(dirname(workspaceManifest), 'build', 'Release', 'better_sqlite3.node');
  if (JSON.parse(readFileSync(workspaceManifest, 'utf8')).version === version && existsSync(built)) {
    mkdirSync(join(target, 'build', 'Release'), { recursive: true });
    copyFileSync(built, join(target, 'build', 'Release', 'better_sqlite3.node'));
    return `better-sqlite3 ${version}: native build reused from the workspace`;
  }
  expectOk(run('npm', ['rebuild', 'better-sqlite3'], consumer, 600_000), 'npm rebuild better-sqlite3');
  return `better-sqlite3 ${version}: compiled`;
}

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
if (nativeReady) {
  writeFileSync(join(consumer, 'quickstart.ts'), readmeQuickStart(join(root, 'README.md')));
  writeFileSync(join(consumer, 'consumer.ts'), typedConsumer(specifiers));
  writeFileSync(join(consumer, 'consumer-cjs.cts'), typedCjsConsumer(specifiers));
  // NodeNext first: besides checking, it emits out/quickstart.js (even when a check fails).
  for (const [mode, config] of Object.entries(typecheckConfigs)) {
    writeFileSync(join(consumer, `tsconfig.${mode}.json`), JSON.stringify(config, null, 2));
    check(`(c) type-check a consumer: moduleResolution ${mode}, skipLibCheck false`, () => {
      const result = run('node', [tsc, '-p', `tsconfig.${mode}.json`], consumer);
      if (result.ok) return undefined;
      if (mode !== 'node10') expectOk(result, `tsc (${mode})`);
      // node10 ignores `exports`, and the AI SDK's own declarations import subpaths only `exports`
      // resolves (eventsource-parser/stream): a node10 host with `ai` sees those errors with or without
      // us. Errors inside third-party declarations are reported; ours and the consumer's still fail.
      const { ours, theirs } = splitTscErrors(result.output);
      if (ours.length > 0 || theirs.length === 0) expectOk(result, `tsc (${mode})`);
      return `${theirs.length} errors inside third-party declarations ignored: ${[...new Set(theirs)].join(', ')}`;
    });
  }
  check('(a) README quick start runs as ESM', () => {
    if (!existsSync(join(consumer, 'out', 'quickstart.js'))) throw new Error('tsc emitted no out/quickstart.js');
    const out = expectOk(run('node', ['out/quickstart.js'], consumer, 120_000), 'node out/quickstart.js');
    // Its last step prints the INVALID_INPUT message it caught through isMemoryError.
    if (!/invalid input/i.test(out)) throw new Error(`the quick start's last step printed nothing:\n${out}`);
    return `${out.trim().split('\n').length} lines of output`;
  });
  writeFileSync(join(consumer, 'require.cjs'), requireScript(specifiers));
  check('(b) require() from a .cjs file', () =>
    expectOk(run('node', ['require.cjs'], consumer, 120_000), 'node require.cjs').trim(),
  );
  // Every bin, as npm linked it into node_modules/.bin: `--help` prints its usage and exits 0.
  for (const pkg of packages.filter((p) => tarballs.has(p.name))) {
    for (const name of binNames(pkg.manifest)) {
      check(`${name} --help runs from the installed ${pkg.name}`, () => {
        const out = expectOk(run(join(consumer, 'node_modules', '.bin', name), ['--help'], consumer), `${name} --help`);
        if (!/usage/i.test(out)) throw new Error(`${name} --help printed no usage:\n${out.slice(0, 2000)}`);
        return `${out.trim().split('\n').length} lines of usage`;
      });
    }
  }
  if (tarballs.has('@memory/providers')) {
    const fixture = join(root, 'packages', 'providers', 'test', 'fixtures', 'tiny-bert');
    cpSync(fixture, join(consumer, 'tiny-bert'), { recursive: true });
    writeFileSync(join(consumer, 'transformers.mjs'), transformersScript());
    check('the transformers embedder runs a local ONNX model from the installed package', () =>
      expectOk(run('node', ['transformers.mjs'], consumer, 120_000), 'node transformers.mjs').trim(),
    );
  }
  if (tarballs.has('@memory/core')) {
    writeFileSync(join(consumer, 'two-copies.mjs'), twoCopiesScript());
    check('two copies of @memory/core interoperate', () =>
      expectOk(run('node', ['two-copies.mjs'], consumer), 'node two-copies.mjs').trim(),
    );
  }
}

const passed = checks.filter((c) => c.ok).length;
const failed = checks.length - passed;
console.log(
  `> pack and consume: ${passed} checks passed, ${failed} failed, in ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
console.log(
  sizes
    .map(
      (s) =>
        `  ${s.name}: ${(s.bytes / 1024).toFixed(1)} KiB packed, ${(s.unpackedBytes / 1024).toFixed(1)} KiB unpacked, ${s.files} files`,
    )
    .join('\n'),
);
if (resultsPath)
  writeFileSync(resultsPath, `${JSON.stringify({ passed, failed, checks, tarballs: sizes }, null, 2)}\n`);
if (failed === 0 && !keep) rmSync(work, { recursive: true, force: true });
else console.log(`  kept ${work}`);
process.exit(failed === 0 ? 0 : 1);
