import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { outcome } from '../kill-points.ts';
import { runCli } from '../run-cli.ts';
import { results, summaryOf } from './run-rows.ts';
import { scaleRun } from './scale-run.ts';

/**
 * Every task of the three shipped domains, for the initial agent and one child (seed 2): among them a task
 * whose reply holds no JSON (a parse failure, without a prediction, its output kept), wrong and correct
 * answers of numbers and text, and code answers graded by hidden tests with a detail beside the score.
 */
const RUN_ARGS = [
  '--domains',
  'arithmetic,code,text',
  '--model',
  'sim',
  '--seed',
  '2',
  '--generations',
  '1',
  '--eval-workers',
  '4',
  '--json',
];

const scale = scaleRun('task-results', RUN_ARGS);
const { tmp, workers } = scale;

describe('task results of a run through queue workers', () => {
  it('are the rows a single-machine run of the same seed stores: outcomes, predictions, outputs, details', async () => {
    // What the comparison covers, in the single-machine run.
    const parseFailures = scale.baseline.results.filter((r) => r.outcome === 'parse_failure');
    expect(parseFailures.length).toBeGreaterThan(0);
    for (const row of parseFailures) {
      expect(row.prediction).toBeNull();
      expect(row.raw_output).not.toBe('');
    }
    expect(scale.baseline.results.some((r) => r.detail !== null)).toBe(true);
    expect(new Set(scale.baseline.results.map((r) => r.outcome))).toEqual(
      new Set(['correct', 'wrong', 'parse_failure']),
    );

    await workers.restart(2);
    const out = path.join(tmp, 'queued');
    const run = await runCli('generate-loop', [
      ...RUN_ARGS,
      '--out',
      out,
      '--run-id',
      'run',
      '--queue',
      scale.redis.url,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(results(path.join(out, 'run'))).toEqual(scale.baseline.results);
    expect(outcome(summaryOf(run.stdout))).toEqual(scale.baseline.outcome);
  });
});
