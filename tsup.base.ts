import { defineConfig, type Options } from 'tsup';

/**
 * The JavaScript build every package shares: ESM for Node 20, with source maps. Declarations are not
 * tsup's job: `tsc -b tsconfig.build.json` writes them (with declaration maps) after this step, from
 * the same compiler and settings the repository type-checks with. tsup's bundled `.d.ts` dropped
 * private constants that exported types still named (TS2304 in consumers with skipLibCheck off).
 */
export function packageBuild(entry: string[]): ReturnType<typeof defineConfig> {
  const options: Options = {
    entry,
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    dts: false,
    sourcemap: true,
    clean: true,
  };
  return defineConfig(options);
}
