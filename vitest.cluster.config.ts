import { defineConfig } from 'vitest/config';

// The Redis Cluster suite (`npm run test:cluster`): the gateway's roles as real processes against
// a local three-master cluster, one slot of which is moved to another master under load.
export default defineConfig({
  test: {
    include: ['test/cluster/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 60_000,
    reporters: ['default', ['json', { outputFile: 'test-results/cluster.json' }]],
  },
});
