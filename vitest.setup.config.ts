import { defineConfig } from 'vitest/config';

/** `npm run test:setup`: `npm run setup` in a fresh copy of the project (installs every package: slow). */
export default defineConfig({
  test: {
    include: ['test/setup/**/*.test.ts'],
    testTimeout: 900_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
