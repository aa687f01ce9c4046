import { defineConfig } from 'vitest/config';

/**
 * `npm run test:polyglot`: exercises of the six Polyglot languages graded by their real toolchains (C++ and
 * Rust builds, Java's JVM), answers that try to fool each grader, and a simulated run over all six: minutes
 * of compiling, so a suite of its own.
 */
export default defineConfig({
  test: {
    include: [
      'domains/exercism/cpp.test.ts',
      'domains/exercism/java.test.ts',
      'domains/exercism/rust.test.ts',
      'test/polyglot.e2e.test.ts',
      // Answers that try to pass without solving the exercise, in each language, against the real graders.
      'test/hostile/reward-hacks/*.e2e.test.ts',
    ],
    testTimeout: 900_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
