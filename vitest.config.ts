import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    // The resume suite kills and resumes many runs, and fills their disk: `npm run test:resume`; the
    // scale-out suite runs redis-server and workers: `npm run test:scale`.
    exclude: [
      'node_modules/**',
      'runs/**',
      'test/resume.e2e.test.ts',
      'test/full-disk.e2e.test.ts',
      'test/scale/**',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
