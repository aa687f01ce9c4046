import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openArchiveReader } from '../archive/index.ts';
import { runCli } from './run-cli.ts';

const out = mkdtempSync(path.join(tmpdir(), 'confirm-top-'));
const noisy = [
  '--domains',
  'arithmetic',
  '--model',
  'sim',
  '--out',
  out,
  '--generations',
  '3',
  '--eval-samples',
  '6',
  '--sim-noise',
  '1',
  '--seed',
  '7',
  '--quiet',
];
const archive = (...args: string[]) => runCli('hyperagents', ['archive', ...args, '--runs', out]);

interface Summary {
  runId: string;
  runDir: string;
  best: { id: number; score: number; rawScore: number; confirmed: boolean };
  noiseFloor: { spread: number; scores: number[] } | null;
}

describe('--confirm-top and --noise-floor on the noisy sim', () => {
  it('confirms the top 2 on fresh attempts, reports the confirmed best, and keeps the noise floor', async () => {
    const run = await runCli('generate-loop', [
      ...noisy,
      '--confirm-top',
      '2',
      '--noise-floor',
      '3',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as Summary;
    // The summary names the reported best, says it was confirmed, and gives raw and confirmed apart.
    expect(summary.best.confirmed).toBe(true);
    expect(summary.best.score).not.toBe(summary.best.rawScore);
    expect(summary.noiseFloor?.scores).toHaveLength(3);
    expect(summary.noiseFloor?.spread).toBeGreaterThan(0);

    const reader = openArchiveReader(path.join(summary.runDir, 'archive.sqlite'));
    const confirmed = reader.confirmedScores();
    // The two best by raw score were confirmed, each on 4 attempts stored as task results after attempt 0.
    expect(confirmed).toHaveLength(2);
    for (const c of confirmed) {
      const fresh = reader
        .taskResults(c.variantId, { split: 'val', attempt: 'all' })
        .filter((r) => r.attempt >= c.firstAttempt);
      expect(fresh).toHaveLength(4 * 6);
      expect(c.firstAttempt).toBeGreaterThanOrEqual(1);
    }
    expect(confirmed.some((c) => c.confirmedScore !== c.rawScore)).toBe(true);
    const best = confirmed.reduce((a, b) => (b.confirmedScore > a.confirmedScore ? b : a));
    expect(summary.best.id).toBe(best.variantId);
    expect(reader.noiseFloor()?.scores).toHaveLength(3);
    expect(reader.taskResults(0, { split: 'val', attempt: 'all' })).toHaveLength(
      6 * (3 + (confirmed.some((c) => c.variantId === 0) ? 4 : 0)),
    );
    reader.close();

    const table = await archive('best');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      new RegExp(
        `${summary.best.id} \\(reported best\\)\\s+${summary.best.score.toFixed(3)}\\s+confirmed\\s+${summary.best.rawScore.toFixed(3)}`,
      ),
    );
    const json = JSON.parse((await archive('best', '--json')).stdout) as {
      variant: number;
      confirmed: boolean;
      reportedBest: boolean;
      score: number;
      rawScore: number | null;
    }[];
    expect(json.find((r) => r.reportedBest)).toMatchObject({
      variant: summary.best.id,
      confirmed: true,
      score: summary.best.score,
      rawScore: summary.best.rawScore,
    });

    const show = await archive('show', `${summary.runId}:${summary.best.id}`);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`confirmed: ${summary.best.score.toFixed(3)} on 4 fresh attempts`);
    expect(show.stdout).toContain("the run's reported best");
    expect(show.stdout).toMatch(/noise floor: ±\d\.\d{3} \(variant 0 on 3 attempts: /);

    // A resume keeps both settings (a different value is refused) and confirms nothing twice.
    const refused = await runCli('generate-loop', ['--resume', summary.runDir, '--confirm-top', '3']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--confirm-top differs from the run being resumed/);
    const resumed = await runCli('generate-loop', [
      '--resume',
      summary.runDir,
      '--generations',
      '4',
      '--json',
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = openArchiveReader(path.join(summary.runDir, 'archive.sqlite'));
    expect(after.run()?.config).toMatchObject({ confirmTop: 2, noiseFloor: 3 });
    expect(after.noiseFloor()?.scores).toEqual(summary.noiseFloor?.scores);
    expect(after.confirmedScores().length).toBeGreaterThanOrEqual(2);
    after.close();
  }, 300_000);

  it.each([
    ['--confirm-top', '-1', /^.*--confirm-top must be a whole number from 0 to 100, not -1\.$/],
    [
      '--noise-floor',
      '1',
      /^.*--noise-floor must be 0 \(off\) or from 2 to 100: one attempt has no spread, not 1\.$/,
    ],
  ])('%s %s exits 2 with one line', async (flag, value, message) => {
    const result = await runCli('generate-loop', [...noisy, flag, value]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.trim()).toMatch(message);
  });
});
