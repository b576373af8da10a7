import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'tsup';

const ENTRY = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
const SKIP = Symbol.for('memory-cli-test-build');

/**
 * Builds the `memory` bin once per test file: the workspace's TypeScript sources bundled, every
 * npm dependency left as an import of its installed file (absolute URL), so the result runs under
 * plain Node from any directory. Plain Node starts it in about half the time tsx takes, and the
 * tests start it many times.
 */
export async function buildBin(): Promise<{ bin: string; remove(): void }> {
  const outDir = mkdtempSync(join(tmpdir(), 'memory-cli-bin-'));
  await build({
    entry: { bin: ENTRY },
    outDir,
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    dts: false,
    sourcemap: false,
    splitting: false,
    silent: true,
    config: false,
    noExternal: [/^@memory\//],
    esbuildOptions(options) {
      options.conditions = ['@memory/source', 'import', 'node'];
    },
    esbuildPlugins: [
      {
        name: 'absolute-externals',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, async (args) => {
            if (args.path.startsWith('@memory/') || args.path.startsWith('node:') || args.pluginData === SKIP)
              return undefined;
            const found = await b.resolve(args.path, {
              resolveDir: args.resolveDir,
              kind: args.kind,
              importer: args.importer,
              pluginData: SKIP,
            });
            if (found.errors.length > 0 || !found.path) return undefined;
            return { path: pathToFileURL(found.path).href, external: true };
          });
        },
      },
    ],
  });
  return { bin: join(outDir, 'bin.js'), remove: () => rmSync(outDir, { recursive: true, force: true, maxRetries: 5 }) };
}
