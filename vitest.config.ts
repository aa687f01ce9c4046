import { defineConfig } from 'vitest/config';

/**
 * Outside `npm test`: the resume suite kills and resumes many runs, fills their disk, and kills or signals
 * experiments, evaluations and npx to see what they leave (`npm run test:resume`); the scale-out suite runs
 * redis-server and workers (`npm run test:scale`); the setup suite installs every package in a fresh copy
 * (`npm run test:setup`); the Polyglot languages' toolchains compile for minutes (`npm run test:polyglot`).
 */
const elsewhere = [
  'node_modules/**',
  'runs/**',
  // Exercise fixtures carry their own tests, which the spec runner grades (not vitest).
  'test/fixtures/**',
  'test/resume.e2e.test.ts',
  'test/batch-resume.e2e.test.ts',
  'test/batch-providers.e2e.test.ts',

  'test/resume-accept.e2e.test.ts',
  'test/leftovers.e2e.test.ts',
  'test/full-disk.e2e.test.ts',
  'test/scale/**',
  'test/setup/**',
  'domains/exercism/cpp.test.ts',
  'domains/exercism/java.test.ts',
  'domains/exercism/rust.test.ts',
  'test/polyglot.e2e.test.ts',
  'test/hostile/reward-hacks/**',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        // Unit files share their worker's module graph (no isolation): loading the project's modules once
        // instead of once a file is most of their time. They keep no state between files.
        extends: true,
        test: {
          name: 'unit',
          include: ['**/*.test.ts'],
          exclude: [...elsewhere, '**/*.e2e.test.ts'],
          isolate: false,
        },
      },
      {
        // End-to-end files run real commands, runs and servers, each file in a fresh worker.
        extends: true,
        test: { name: 'e2e', include: ['**/*.e2e.test.ts'], exclude: elsewhere },
      },
    ],
  },
});
