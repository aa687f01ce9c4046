import { defineConfig } from 'vitest/config';

/** `npm run test:scale`: a real redis-server, coordinators and worker processes (slow: several sim runs). */
export default defineConfig({
  test: {
    include: ['test/scale/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
  },
});
