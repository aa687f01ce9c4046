import { describe, expect, it } from 'vitest';
import { UsageError } from '../shared/usage-error.ts';
import { DEFAULT_CONFIGS, parseConfig, parseExperimentArgs, parseSeeds } from './experiment-args.ts';
import { mergeManifest } from './experiment-manifest.ts';

describe('parseSeeds', () => {
  it.each([
    ['1-8', [1, 2, 3, 4, 5, 6, 7, 8]],
    ['1,2,5', [1, 2, 5]],
    ['1-4,9', [1, 2, 3, 4, 9]],
    ['3, 3, 1', [3, 1]],
    ['0', [0]],
  ])('%s → %j', (text, seeds) => expect(parseSeeds(text)).toEqual(seeds));

  it.each(['', 'a', '1-', '5-2', '1.5', '-3'])('refuses %j', (text) => {
    expect(() => parseSeeds(text)).toThrow(UsageError);
  });
});

describe('parseConfig', () => {
  it.each([
    ['full=', { name: 'full', args: [] }],
    ['frozen=--freeze-meta', { name: 'frozen', args: ['--freeze-meta'] }],
    ['no-archive=--parent-selection latest', { name: 'no-archive', args: ['--parent-selection', 'latest'] }],
    ['x=  --a   b ', { name: 'x', args: ['--a', 'b'] }],
  ])('%s', (text, config) => expect(parseConfig(text)).toEqual(config));

  it.each([
    ['full', /NAME=OPTIONS/],
    ['=--freeze-meta', /NAME=OPTIONS/],
    ['a b=x', /NAME=OPTIONS/],
    ['s=--seed 3', /--seed, which the experiment sets/],
    ['o=--out x', /--out/],
  ])('refuses %j', (text, message) => expect(() => parseConfig(text)).toThrow(message));
});

describe('parseExperimentArgs', () => {
  it('takes the grid and passes what follows -- to every run', () => {
    expect(
      parseExperimentArgs([
        '--seeds',
        '1-3',
        '--config',
        'full=',
        '--config=frozen=--freeze-meta',
        '--out',
        'exp',
        '--jobs',
        '2',
        '--target',
        '0.8',
        '--json',
        '--',
        '--domains',
        'arithmetic',
        '--generations',
        '30',
      ]),
    ).toEqual({
      kind: 'run',
      dir: 'exp',
      seeds: [1, 2, 3],
      configs: [
        { name: 'full', args: [] },
        { name: 'frozen', args: ['--freeze-meta'] },
      ],
      loopArgs: ['--domains', 'arithmetic', '--generations', '30'],
      jobs: 2,
      target: 0.8,
      json: true,
    });
  });

  it('defaults to seeds 1-4, the three ablation configurations and ./experiment', () => {
    expect(parseExperimentArgs(['--', '--domains', 'arithmetic'])).toMatchObject({
      kind: 'run',
      dir: './experiment',
      seeds: [1, 2, 3, 4],
      configs: DEFAULT_CONFIGS,
    });
  });

  it('parses report DIR', () => {
    expect(parseExperimentArgs(['report', 'exp', '--json', '--target', '0.5'])).toEqual({
      kind: 'report',
      dir: 'exp',
      target: 0.5,
      json: true,
    });
    expect(parseExperimentArgs(['--help'])).toEqual({ kind: 'help' });
  });

  it.each([
    [['--jobs', '0', '--'], /--jobs needs a whole number above 0/],
    [['--target', '2'], /--target is a score between 0 and 1/],
    [['--seeds'], /--seeds needs a value/],
    [['--config', 'a=', '--config', 'a=--freeze-meta'], /given twice/],
    [['--domains', 'arithmetic'], /Put generate-loop options after "--"/],
    [['--', '--seed', '4'], /sets --seed, which the experiment sets/],
    [['--', '--json'], /--json/],
    [['report'], /needs the experiment folder/],
    [['report', 'a', 'b'], /does not take "b"/],
    [['report', 'a', '--', '--domains', 'x'], /takes no generate-loop options/],
  ])('refuses %j', (argv, message) => expect(() => parseExperimentArgs(argv)).toThrow(message));
});

describe('mergeManifest', () => {
  const stored = {
    seeds: [1, 2],
    configs: [{ name: 'full', args: [] }],
    loopArgs: ['--domains', 'arithmetic'],
  };

  it('adds seeds and configurations to an existing experiment', () => {
    expect(
      mergeManifest(
        stored,
        {
          seeds: [2, 3],
          configs: [{ name: 'frozen', args: ['--freeze-meta'] }],
          loopArgs: ['--domains', 'arithmetic'],
        },
        'exp',
      ),
    ).toEqual({
      seeds: [1, 2, 3],
      configs: [
        { name: 'full', args: [] },
        { name: 'frozen', args: ['--freeze-meta'] },
      ],
      loopArgs: ['--domains', 'arithmetic'],
    });
  });

  it('refuses other shared options or another meaning for a configuration name', () => {
    expect(() => mergeManifest(stored, { ...stored, loopArgs: ['--domains', 'code'] }, 'exp')).toThrow(
      /other generate-loop options/,
    );
    expect(() =>
      mergeManifest(stored, { ...stored, configs: [{ name: 'full', args: ['--freeze-meta'] }] }, 'exp'),
    ).toThrow(/already has configuration "full"/);
  });
});
