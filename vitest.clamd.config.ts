import { defineConfig } from 'vitest/config';

// The malware-scan suite (npm run test:clamd): a private clamd (Debian's clamav-daemon) started
// and stopped by the tests, with a signature database of their own.
export default defineConfig({
  test: {
    include: ['test/clamd/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default', ['json', { outputFile: 'test-results/clamd.json' }]],
  },
});
