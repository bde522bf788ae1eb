import { defineConfig } from 'vitest/config';

// The fault and abuse suite: real processes killed and restarted, real Redis restarted.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    // Memory checks collect garbage first (global gc), so they measure what is held, not what is
    // dropped; V8's young generation capped as the roles run in production (package.json).
    execArgv: ['--expose-gc', '--max-semi-space-size=8'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    reporters: ['default', ['json', { outputFile: 'test-results/faults.json' }]],
  },
});
