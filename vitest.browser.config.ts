import { defineConfig } from 'vitest/config';

/** Browser tests (real headless Chromium): `npm run test:browser`, apart from `npm test` because they are slow. */
export default defineConfig({
  test: {
    include: ['**/*.browser-test.ts'],
    exclude: ['node_modules/**', 'runs/**'],
    testTimeout: 300_000,
    hookTimeout: 600_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
