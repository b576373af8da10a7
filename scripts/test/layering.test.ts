import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// ARCHITECTURE §3: dependencies point one way. core ← store ← queue ← {ingest, recall, dreaming} ←
// engine; dreaming may use recall; providers depend on core only. A package may depend on anything
// below it (transitively allowed), never on a sibling or anything above it.
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  store: ['core'],
  queue: ['core', 'store'],
  ingest: ['core', 'store', 'queue'],
  recall: ['core', 'store', 'queue'],
  dreaming: ['core', 'store', 'queue', 'recall'],
  engine: ['core', 'store', 'queue', 'ingest', 'recall', 'dreaming', 'providers'],
  providers: ['core'],
  // Host-side integrations sit on top of the engine.
  'ai-sdk': ['core', 'store', 'queue', 'ingest', 'recall', 'dreaming', 'providers', 'engine'],
  // Surfaces over the engine (issue 16) sit above it.
  http: ['core', 'store', 'queue', 'ingest', 'recall', 'dreaming', 'providers', 'engine'],
  // Surfaces over the engine API (MCP, the CLI): everything below, the CLI also serves MCP.
  mcp: ['core', 'store', 'queue', 'ingest', 'recall', 'dreaming', 'engine', 'providers'],
  cli: ['core', 'store', 'queue', 'ingest', 'recall', 'dreaming', 'engine', 'providers', 'mcp', 'http'],
  // A surface over the engine (ARCHITECTURE §3); the providers give its command an offline embedder.
  inspector: ['engine', 'providers'],
};

const root = join(import.meta.dirname, '..', '..');
const packagesDir = join(root, 'packages');

function workspaceDeps(pkg: string): { runtime: string[]; imports: string[] } {
  const manifest = JSON.parse(readFileSync(join(packagesDir, pkg, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  const runtime = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })
    .filter((d) => d.startsWith('@memory/'))
    .map((d) => d.slice('@memory/'.length));
  const imports = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        for (const m of readFileSync(path, 'utf8').matchAll(/from\s+'@memory\/([a-z-]+)/g)) if (m[1]) imports.add(m[1]);
      }
    }
  };
  walk(join(packagesDir, pkg, 'src'));
  return { runtime, imports: [...imports] };
}

describe('package layering', () => {
  const packages = readdirSync(packagesDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);

  it('knows every package in the workspace', () => {
    expect(packages.filter((p) => !(p in ALLOWED))).toEqual([]);
  });

  it.each(packages)('%s depends only on packages below it', (pkg) => {
    const allowed = ALLOWED[pkg] ?? [];
    const { runtime, imports } = workspaceDeps(pkg);
    expect(runtime.filter((d) => !allowed.includes(d))).toEqual([]);
    // Source imports must be declared too (a missing declaration works in the workspace, breaks on npm).
    expect(imports.filter((d) => d !== pkg && !runtime.includes(d))).toEqual([]);
  });
});
