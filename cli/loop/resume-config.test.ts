import { describe, expect, it } from 'vitest';
import { parseStoredConfig, RunConfigSchema, storedConfig } from '../../harness/run/index.ts';
import { UsageError } from '../shared/usage-error.ts';
import { givenOptions, parseLoopArgs, runConfigOf } from './loop-args.ts';
import { resumeConfig } from './resume-config.ts';

const known = { domains: ['arithmetic', 'code'], checkModel: () => null, defaultModel: 'sim' };
const parse = async (line: string) => {
  const parsed = await parseLoopArgs(line.split(' '), known);
  if (typeof parsed !== 'object') throw new Error(parsed);
  return parsed;
};
/** The configuration as a resume reads it back from the archive. */
const stored = async () =>
  RunConfigSchema.parse(
    storedConfig({
      ...runConfigOf(await parse('--domains arithmetic --model sim --seed 3 --generations 10')),
      from: null,
    }),
  );

describe('givenOptions', () => {
  it.each([
    [
      ['--domains', 'a', '--seed=4', '--no-eval-test', 'x'],
      ['domains', 'seed', 'eval-test'],
    ],
    [['--resume', 'r'], ['resume']],
    [[], []],
  ])('%j', (argv, expected) => {
    expect(givenOptions(argv)).toEqual(expected);
  });
});

describe('resumeConfig', () => {
  it.each([
    ['--resume r', {}],
    ['--resume r --generations 40', { generations: 40 }],
    ['--resume r --budget-usd 2.5 --parallel 4', { budgetUsd: 2.5, parallel: 4 }],
    ['--resume r --seed 3 --domains arithmetic --model sim', {}],
    [
      '--resume r --notify https://example.com/h --stall-minutes 5 --failure-streak 2',
      { notifyUrl: 'https://example.com/h', stallMinutes: 5, failureStreak: 2 },
    ],
    ['--resume r --notify-cmd cat', { notifyCmd: 'cat' }],
  ])('%s continues with the stored configuration and the allowed changes', async (line, changed) => {
    const before = await stored();
    expect(resumeConfig(await parse(line), before, '/runs/r')).toEqual({ ...before, ...changed });
  });

  it.each([
    ['--resume r --seed 4', '--seed'],
    ['--resume r --domains code', '--domains'],
    ['--resume r --model openai/gpt-5-mini', '--model'],
    ['--resume r --task-model other', '--task-model'],
    ['--resume r --eval-samples 3', '--eval-samples'],
    ['--resume r --sim-noise 0.5', '--sim-noise'],
    ['--resume r --eval-repeats 3', '--eval-repeats'],
    ['--resume r --confirm-top 3', '--confirm-top'],
    ['--resume r --noise-floor 4', '--noise-floor'],
  ])('%s is refused, naming the option', async (line, option) => {
    let message = '';
    try {
      resumeConfig(await parse(line), await stored(), '/runs/r');
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      message = (error as Error).message;
    }
    expect(message.startsWith(`${option} differs from the run being resumed`)).toBe(true);
  });

  it('carries the noise level and the attempts per task across --resume', async () => {
    const noisy = RunConfigSchema.parse(
      storedConfig({
        ...runConfigOf(await parse('--domains arithmetic --model sim --sim-noise 0.7 --eval-repeats 3')),
        from: null,
      }),
    );
    const resumed = resumeConfig(await parse('--resume r --generations 40'), noisy, '/runs/r');
    expect([resumed.sim.noise, resumed.evalRepeats]).toEqual([0.7, 3]);
  });

  it('carries --confirm-top and --noise-floor across --resume', async () => {
    const sure = RunConfigSchema.parse(
      storedConfig({
        ...runConfigOf(await parse('--domains arithmetic --model sim --confirm-top 2 --noise-floor 3')),
        from: null,
      }),
    );
    const resumed = resumeConfig(await parse('--resume r --generations 40'), sure, '/runs/r');
    expect([resumed.confirmTop, resumed.noiseFloor]).toEqual([2, 3]);
  });

  it('refuses --from with --resume', async () => {
    const cli = await parse('--resume r --from other:1');
    const before = await stored();
    expect(() => resumeConfig(cli, before, '/runs/r')).toThrow(/--from starts a new run/);
  });
});

describe('tasksPerWorker of a stored run', () => {
  it('is 1 for a run stored before the setting existed, and what was stored otherwise', async () => {
    const { tasksPerWorker, ...older } = storedConfig(await stored());
    expect(tasksPerWorker).toBe(8);
    expect(parseStoredConfig(older)?.tasksPerWorker).toBe(1);
    expect(parseStoredConfig({ ...older, tasksPerWorker: 3 })?.tasksPerWorker).toBe(3);
  });
});

describe('the alert settings of a stored run', () => {
  it('are none for a run stored before they existed', async () => {
    const { notifyUrl, notifyCmd, stallMinutes, failureStreak, ...older } = storedConfig({
      ...(await stored()),
    }) as Record<string, unknown>;
    expect([notifyUrl, notifyCmd]).toEqual([null, null]);
    expect(parseStoredConfig(older)).toMatchObject({
      notifyUrl: null,
      notifyCmd: null,
      stallMinutes: 30,
      failureStreak: 3,
    });
    expect([stallMinutes, failureStreak]).toEqual([30, 3]);
  });
});
