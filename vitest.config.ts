import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources through the scoped export condition,
  // so the suite runs without a build. Top-level resolve.conditions alone is not enough here.
  ssr: { resolve: { conditions: ['@memory/source', ...defaultServerConditions] } },
  test: {
    include: [
      'packages/*/test/**/*.test.ts',
      'scripts/test/**/*.test.ts',
      'bench/test/**/*.test.ts',
      'examples/*/test/**/*.test.ts',
    ],
    environment: 'node',
    pool: 'forks',
    // The PostgreSQL server goes first: its data directory must sit outside temp-root's private (0700)
    // directory, which the `postgres` user cannot enter when the suite runs as root.
    globalSetup: ['scripts/test/postgres-global-setup.ts', 'scripts/test/temp-root.ts'],
    // fast-check properties draw their cases from a fixed seed (MEMORY_FC_SEED overrides it).
    setupFiles: ['scripts/test/fast-check-seed.ts'],
    // Timeouts only catch a hang. At load average 17 on the 2 shared cores, tests ran 5–15 times
    // slower (the import crash trial passed 180 s); hooks that start servers get the same margin.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
