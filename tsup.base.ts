import { defineConfig, type Options } from 'tsup';

/** The build every package shares: ESM for Node 20 with .d.ts (composite off: tsup's dts build needs it, TS6307). */
export function packageBuild(entry: string[]): ReturnType<typeof defineConfig> {
  const options: Options = {
    entry,
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    dts: { compilerOptions: { composite: false } },
    sourcemap: true,
    clean: true,
  };
  return defineConfig(options);
}
