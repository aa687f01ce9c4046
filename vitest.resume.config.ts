import { defineConfig } from 'vitest/config';

/**
 * `npm run test:resume`: runs killed at many points and resumed, runs whose disk fills and are resumed, and
 * experiments, evaluations and npx killed or signalled, with what each leaves behind (slow: many short
 * simulated runs).
 */
export default defineConfig({
  test: {
    include: [
      'test/resume.e2e.test.ts',
      'test/batch-resume.e2e.test.ts',
      'test/batch-providers.e2e.test.ts',

      'test/resume-accept.e2e.test.ts',
      'test/full-disk.e2e.test.ts',
      'test/leftovers.e2e.test.ts',
    ],
    testTimeout: 3_600_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
