import { defineConfig } from 'vitest/config';

// The fault and abuse suite: real processes killed and restarted, real Redis restarted.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 120_000,
    reporters: ['default', ['json', { outputFile: 'test-results/faults.json' }]],
  },
});
