import { defineConfig } from 'vitest/config';

// The default suite. The fault suite (vitest.faults.config.ts) runs with `npm run test:faults`,
// the container suite (vitest.container.config.ts) with `npm run test:container`, the Redis
// Cluster suite (vitest.cluster.config.ts) with `npm run test:cluster`.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/faults/**', 'test/container/**', 'test/cluster/**', 'test/clamd/**'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A JSON report beside the console one, so CI can count results (.ci/run).
    reporters: ['default', ['json', { outputFile: 'test-results/default.json' }]],
  },
});
