// Finds the publishable packages under packages/ (every manifest without `private: true`) and orders
// them so that a package comes after the workspace packages it depends on: packing runs each
// package's `prepack` build, and a declaration build reads its dependencies' declarations.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * @typedef {{ name: string, dir: string, manifest: Record<string, any> }} WorkspacePackage
 */

/**
 * The non-private packages under `<root>/packages`, dependencies first.
 * @param {string} root the repository root
 * @returns {WorkspacePackage[]}
 */
export function publishablePackages(root) {
  const packagesDir = join(root, 'packages');
  const found = [];
  for (const entry of readdirSync(packagesDir, { withFileTypes: true })) {
    const manifestPath = join(packagesDir, entry.name, 'package.json');
    if (!entry.isDirectory() || !existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    if (manifest.private === true) continue;
    found.push({ name: manifest.name, dir: join(packagesDir, entry.name), manifest });
  }
  return dependenciesFirst(found);
}

/** @param {WorkspacePackage[]} packages */
function dependenciesFirst(packages) {
  const byName = new Map(packages.map((p) => [p.name, p]));
  const ordered = [];
  const state = new Map();
  const visit = (pkg) => {
    if (state.get(pkg.name) === 'done') return;
    if (state.get(pkg.name) === 'visiting') throw new Error(`dependency cycle through ${pkg.name}`);
    state.set(pkg.name, 'visiting');
    const { dependencies = {}, devDependencies = {}, peerDependencies = {} } = pkg.manifest;
    for (const dep of Object.keys({ ...dependencies, ...devDependencies, ...peerDependencies }).sort()) {
      const inner = byName.get(dep);
      if (inner) visit(inner);
    }
    state.set(pkg.name, 'done');
    ordered.push(pkg);
  };
  for (const pkg of [...packages].sort((a, b) => a.name.localeCompare(b.name))) visit(pkg);
  return ordered;
}

/**
 * The import specifiers a consumer can use: `name` for ".", `name/sub` for "./sub", skipping
 * `./package.json`, wildcard patterns, asset files and entries without types.
 * @param {WorkspacePackage['manifest']} manifest
 * @returns {string[]}
 */
export function entrySpecifiers(manifest) {
  const exports = manifest.exports;
  if (exports === undefined) return manifest.types ? [manifest.name] : [];
  if (typeof exports === 'string') return [manifest.name];
  const out = [];
  for (const [key, target] of Object.entries(exports)) {
    if (!key.startsWith('.')) return [manifest.name]; // conditions at the top level: one entry
    if (key === './package.json' || key.includes('*')) continue;
    if (assetExports(manifest).includes(key)) continue;
    if (typeof target === 'object' && target !== null && !JSON.stringify(target).includes('.d.ts')) continue;
    out.push(key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`);
  }
  return out;
}

/**
 * The subpaths that export a plain file rather than a module (`@memory/providers/offline-vectors`):
 * no types, nothing to import; hosts resolve them to a path.
 * @param {WorkspacePackage['manifest']} manifest
 * @returns {string[]}
 */
export function assetExports(manifest) {
  if (manifest.exports === null || typeof manifest.exports !== 'object') return [];
  return Object.entries(manifest.exports)
    .filter(([key, target]) => key !== './package.json' && typeof target === 'string' && !/\.[cm]?[jt]s$/.test(target))
    .map(([key]) => key);
}
