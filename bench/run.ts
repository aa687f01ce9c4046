import { benchEvalWorkers } from './eval-workers.ts';

/**
 * `npm run bench`: measurements side by side in one run, reported as ratios, because absolute times on a
 * shared machine are noisy.
 */
const latencyMs = 200;
console.log(
  `Evaluation of 40 arithmetic tasks, TaskAgent worker processes, model latency ${latencyMs} ms per call`,
);
const results = await benchEvalWorkers([1, 4, 8], latencyMs);
const base = results[0]!;
for (const r of results) {
  const speedup = base.seconds / r.seconds;
  console.log(
    `  --eval-workers ${String(r.workers).padEnd(2)} ${r.seconds.toFixed(2).padStart(6)} s` +
      `  ${(r.tasks / r.seconds).toFixed(1).padStart(5)} tasks/s  ${speedup.toFixed(2)}x the 1-worker speed`,
  );
}
