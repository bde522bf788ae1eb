import { defineConfig } from 'vitest/config';

// The container suite (`npm run test:container`): the image built and the compose stack run for
// real, one step after another on one stack (test/container/stack.test.ts).
export default defineConfig({
  test: {
    include: ['test/container/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 900_000,
    hookTimeout: 600_000,
    reporters: ['default', ['json', { outputFile: 'test-results/container.json' }]],
  },
});
