import { defineConfig } from 'vitest/config';

// The listener and worker suites on the stock libraries (FAST_PATHS=off: nothing of
// src/fast-paths runs; docs/design.md §18). `npm run test:stock`; .ci/run runs it once in the
// clone and once in a copy installed without the patches (npm ci --ignore-scripts).
export default defineConfig({
  test: {
    include: [
      'test/unit/auth-fixtures.test.ts',
      'test/integration/smtp-listener.test.ts',
      'test/integration/smtp-large-message.test.ts',
      'test/integration/smtp-dot-unstuffing.test.ts',
      'test/integration/mime-walk-agreement.test.ts',
      'test/integration/worker-parse-agreement.test.ts',
      'test/integration/worker-path.test.ts',
      'test/integration/sender-api-letters.test.ts',
    ],
    env: { FAST_PATHS: 'off' },
    setupFiles: ['test/helpers/stock-libraries.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', ['json', { outputFile: 'test-results/stock.json' }]],
  },
});
