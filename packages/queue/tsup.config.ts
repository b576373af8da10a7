import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/testing/index.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: { compilerOptions: { composite: false } },
  sourcemap: true,
  clean: true,
});
