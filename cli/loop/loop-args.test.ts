import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fieldValue, SETTINGS, type Setting } from '../../harness/run/index.ts';
import { UsageError } from '../shared/usage-error.ts';
import { type LoopConfig, loopHelp, parseLoopArgs } from './loop-args.ts';

const known = {
  domains: ['arithmetic', 'text'],
  checkModel: (id: string) => (id === 'sim' ? null : `Unknown model "${id}".`),
  defaultModel: 'sim',
};
/** Also knows two real-looking models, for what needs a model other than sim. */
const withModels = {
  ...known,
  checkModel: (id: string) => (['sim', 'big', 'small'].includes(id) ? null : `Unknown model "${id}".`),
};

const named = (name: string) => ({ kind: 'named' as const, name });
const args = (line: string): string[] => line.split(' ').filter(Boolean);
const parse = (line: string, k = known) => parseLoopArgs(args(line), k);

async function usageError(line: string, k = known): Promise<string> {
  const error: unknown = await parse(line, k).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  return (error as UsageError).message;
}

describe('parseLoopArgs rejects bad input with a message naming the problem', () => {
  it.each([
    ['', /^--domains is required\. Known domains: arithmetic, text\.$/],
    ['--quiet', /^--domains is required\. Known domains: arithmetic, text\.$/],
    ['--domains ,', /^--domains is required/],
    [
      '--domains arithmatic',
      /^Unknown domain "arithmatic" \(did you mean arithmetic\?\)\. Known domains: arithmetic, text\./,
    ],
    ['--domains txt', /^Unknown domain "txt" \(did you mean text\?\)\. Known domains: arithmetic, text\./],
    [
      '--domains nope',
      /^Unknown domain "nope"\. Known domains: arithmetic, text\. A new domain is a folder domains\/<name>\//,
    ],
    ['--domains arithmetic,nope', /^Unknown domain "nope"/],
    ['--domains dataset:x/qa.csv,dataset:y/qa.csv', /^--domains: Two domains would be named "qa"/],
    [
      '--domains ftp:x',
      /^--domains: "ftp:x": the only sources are dataset:FILE, exercism:DIR, module:FILE and lmeval:FILE\./,
    ],
    [
      '--domains arithmetic --metric median',
      /^--metric must be one of exact, numeric, choice, f1, truthful, not "median"\./,
    ],
    ['--domains arithmetic --choices A', /^--choices needs at least two labels/],
    ['--domains arithmetic --answer-pattern (unclosed', /^--answer-pattern is not a regular expression/],
    ['arithmetic', /^Unknown argument: arithmetic\.? Run generate-loop --help/],
    [
      '--domains arithmetic --answer-field label --case-sensitive',
      /^--answer-field, --case-sensitive apply to dataset:FILE domains, and no domain here reads them\. Leave them out/,
    ],
    [
      '--domains dataset:qa.csv?metric=f1 --metric exact',
      /^--metric applies to dataset:FILE domains, and no domain here reads it\. A dataset:FILE\?key=value reference/,
    ],
  ])('%j', async (line, message) => {
    expect(await usageError(line)).toMatch(message);
  });

  it.each([
    ['--model gpt-5', /^Unknown model "gpt-5"\.$/],
    ['--task-model gpt-5', /^Unknown model "gpt-5"\.$/],
    ['--meta-model gpt-5', /^Unknown model "gpt-5"\.$/],
    ['--generations -1', /^--generations must be a whole number from 0 to 100000, not -1\.$/],
    ['--generations 1.5', /^--generations must be a whole number from 0 to 100000, not 1\.5\.$/],
    ['--generations 1e9', /^--generations must be a whole number from 0 to 100000, not 1000000000\.$/],
    ['--out=', /^--out is empty/],
    [`--run-id ${'r'.repeat(300)}`, /^--run-id is 300 characters long; .* at most 100\.$/],
    ['--generations ten', /^--generations must be a whole number/],
    [
      '--notify ftp://host/x',
      /^--notify must be an http:\/\/ or https:\/\/ address .*, not "ftp:\/\/host\/x"\.$/,
    ],
    ['--notify example.com/hook', /^--notify must be an http:\/\/ or https:\/\/ address/],
    ['--notify-cmd=', /^--notify-cmd must be a shell command/],
    [
      '--notify http://127.0.0.1:9/x --stall-minutes 0',
      /^--stall-minutes must be a number of minutes above 0/,
    ],
    [
      '--notify http://127.0.0.1:9/x --failure-streak 0',
      /^--failure-streak must be a whole number from 1 to 1000/,
    ],
    [
      '--stall-minutes 5',
      /^--stall-minutes sets when an alert goes out: give --notify URL or --notify-cmd CMD too\.$/,
    ],
    ['--alpha 0.1', /^--alpha decides a sequential acceptance: give --accept sequential too\.$/],
    ['--accept sequential --futility-alpha 0', /^--futility-alpha must be an error rate above 0 and below 1/],
    ['--futility-margin 0.2', /^--futility-margin decides a sequential acceptance: give --accept sequential/],
    [
      '--accept sequential --futility-margin 1',
      /^--futility-margin must be a gain in mean score from 0 to below 1/,
    ],
    [
      '--parent-selection confirmed_better',
      /^--parent-selection confirmed_better prefers lineages --accept sequential decided better: give --accept sequential too\.$/,
    ],
    ['--accept some', /^--accept must be one of full, sequential, not "some"\.$/],
    ['--parallel 0', /^--parallel must be a whole number of at least 1, not 0\.$/],
    ['--max-tool-calls 0', /^--max-tool-calls must be a whole number from 1 to 10000, not 0\.$/],
    [
      '--workspace-max-kb 0.5',
      /^--workspace-max-kb must be a whole number of KiB from 1 to 1048576, not 0\.5\.$/,
    ],
    ['--eval-workers 0', /^--eval-workers must be a whole number of at least 1, not 0\.$/],
    ['--tasks-per-worker 0', /^--tasks-per-worker must be a whole number of at least 1, not 0\.$/],
    [
      '--tasks-per-worker abc',
      /^--tasks-per-worker must be a whole number of at least 1, not something that is not a number\.$/,
    ],
    ['--eval-samples 0', /^--eval-samples must be a whole number of at least 1/],
    ['--staged-samples 2.5', /^--staged-samples must be a whole number of at least 1/],
    ['--seed -3', /^--seed must be a whole number of at least 0, not -3\.$/],
    [
      '--task-timeout 0',
      /^--task-timeout must be a whole number of seconds from 1 to 2147483 \(about 24 days: the longest a timer can wait\), not 0\.$/,
    ],
    [
      '--task-timeout 1e9',
      /^--task-timeout must be a whole number of seconds from 1 to 2147483 .*, not 1000000000\.$/,
    ],
    [
      '--meta-timeout 10000000',
      /^--meta-timeout must be a whole number of seconds from 1 to 2147483 .*, not 10000000\.$/,
    ],
    ['--generations=', /^--generations was given an empty value: give a number\. Run generate-loop --help/],
    ['--seed= ', /^--seed was given an empty value/],
    ['--budget-usd Infinity', /^--budget-usd must be a positive amount, not Infinity\.$/],
    [
      '--parent-selection greedy',
      /^--parent-selection must be one of score_child_prop, score_prop, best, latest, random, lcb, confirmed_better, not "greedy"\.$/,
    ],
    ['--sandbox docker', /^--sandbox must be one of auto, bwrap, none, not "docker"\.$/],
    [
      '--max-processes 1',
      /^--max-processes must be a whole number from 32 to 4194304 \(Node alone runs about a dozen threads, and each one counts\), not 1\.$/,
    ],
    [
      '--max-processes 5000000',
      /^--max-processes must be a whole number from 32 to 4194304 .*, not 5000000\.$/,
    ],
    [
      '--memory-mb 1',
      /^--memory-mb must be a whole number of MiB from 384 to 8589934591 \(the typecheck of a variant's code takes about 300 MiB\), not 1\.$/,
    ],
    [
      '--max-open-files 1',
      /^--max-open-files must be at least 48 for a TaskAgent process that runs 8 tasks at once \(about 32 for the process and 2 per task; fewer tasks per process need fewer\), not 1\.$/,
    ],
    [
      '--max-open-files 39 --tasks-per-worker 4',
      /^--max-open-files must be at least 40 for a TaskAgent process that runs 4 tasks at once/,
    ],
    ['--max-open-files 1.5', /^--max-open-files must be a whole number of at least 1, not 1\.5\.$/],
    ['--disk-mb 1.5', /^--disk-mb must be a whole number of MiB from 1 to 8589934591, not 1\.5\.$/],
    [
      '--max-file-mb 1e14',
      /^--max-file-mb must be a whole number of MiB from 1 to 8589934591, not 100000000000000\.$/,
    ],
    [
      '--max-output-kb 1000000',
      /^--max-output-kb must be a whole number of KiB from 1 to 262144 \(256 MiB: .*\), not 1000000\.$/,
    ],
    ['--budget-usd 0', /^--budget-usd must be a positive amount, not 0\.$/],
    ['--budget-usd -5', /^--budget-usd must be a positive amount, not -5\.$/],
    ['--budget-usd', /^Not enough arguments following: budget-usd/],
    ['--budget-usd --quiet', /^Not enough arguments following: budget-usd/],
    ['--out', /^Not enough arguments following: out/],
    ['--sandbox', /^Not enough arguments following: sandbox/],
    [
      '--run-id ../elsewhere',
      /^--run-id may hold only letters, digits, dots, dashes and underscores, not "\.\.\/elsewhere"\.$/,
    ],
    ['--run-id .hidden', /^--run-id may hold only/],
    ['--run-id a/b', /^--run-id may hold only/],
    ['--frobnicate', /^Unknown argument: frobnicate\.? Run generate-loop --help for the options\.$/],
    [
      '--record a.jsonl --replay b.jsonl',
      /^--record and --replay cannot be used together: record a run with --record FILE first, then repeat it with --replay FILE\.$/,
    ],
    ['--replay', /^Not enough arguments following: replay/],
    [
      '--sim-fault-rate 2',
      /^--sim-fault-rate is the share of calls that fail, from 0 to below 1 \(0\.1: one call in ten\), not 2\.$/,
    ],
    ['--sim-fault-rate 1', /^--sim-fault-rate is the share of calls that fail, from 0 to below 1/],
    ['--sim-fault-rate -0.1', /^--sim-fault-rate is the share of calls that fail/],
    [
      '--sim-fault-rate lots',
      /^--sim-fault-rate is the share of calls that fail, .* not something that is not a number\.$/,
    ],
    [
      '--sim-fault-rate 0.1 --sim-faults 429,503',
      /^--sim-faults: unknown fault "503"; the sim can inject 429, 500, 529, timeout, truncated, malformed\.$/,
    ],
    [
      '--sim-faults 429',
      /^--sim-faults chooses which failures --sim-fault-rate injects: give a --sim-fault-rate above 0/,
    ],
    [
      '--sim-latency-ms fast',
      /^--sim-latency-ms: "fast" is not a latency: unknown form\. Give a number of milliseconds/,
    ],
    [
      '--sim-latency-ms 400-100',
      /^--sim-latency-ms: "400-100" is not a latency: the range starts above its end\./,
    ],
    ['--eval-repeats 0', /^--eval-repeats must be a whole number from 1 to 100, not 0\.$/],
    ['--confirm-top -1', /^--confirm-top must be a whole number from 0 to 100, not -1\.$/],
    ['--confirm-top 1.5', /^--confirm-top must be a whole number from 0 to 100, not 1\.5\.$/],
    [
      '--noise-floor 1',
      /^--noise-floor must be 0 \(off\) or from 2 to 100: one attempt has no spread, not 1\.$/,
    ],
    ['--noise-floor 101', /^--noise-floor must be a whole number from 0 to 100, not 101\.$/],
    ['--eval-repeats 2.5', /^--eval-repeats must be a whole number from 1 to 100, not 2\.5\.$/],
    [
      '--eval-repeats many',
      /^--eval-repeats must be a whole number from 1 to 100, not something that is not a number\.$/,
    ],
    [
      '--sim-noise 1.5',
      /^--sim-noise must be a level from 0 to 1: the share of task answers .*, not 1\.5\.$/,
    ],
    ['--sim-noise -0.2', /^--sim-noise must be a level from 0 to 1/],
    ['--sim-noise loud', /^--sim-noise must be a level from 0 to 1.* not something that is not a number\.$/],
    ['--sim-price-per-mtok -1', /^--sim-price-per-mtok must be an amount of USD of 0 or more, not -1\.$/],
    [
      '--sim-retry-ms 0.5',
      /^--sim-retry-ms must be a whole number of milliseconds from 0 to 60000 \(the longest a retry waits\), not 0\.5\.$/,
    ],
    [
      '--sim-retry-ms 1e10',
      /^--sim-retry-ms must be a whole number of milliseconds from 0 to 60000 .*, not 10000000000\.$/,
    ],
    [
      '--sim-latency-ms 99999999999',
      /^--sim-latency-ms must give delays of at most 2147483647 ms \(the longest a timer can wait\), not 99999999999\.$/,
    ],
    [
      '--replay rec.jsonl --sim-latency-ms 200',
      /^--replay answers every call from the recording, so --sim-latency-ms would have no effect: drop it\.$/,
    ],
    [
      '--replay rec.jsonl --sim-script s.json',
      /^--replay answers every call .* so --sim-script would have no effect/,
    ],
  ])('--domains arithmetic %s', async (line, message) => {
    expect(await usageError(`--domains arithmetic ${line}`)).toMatch(message);
  });

  it.each([
    ['--sim-latency-ms 200', 'sim-latency-ms'],
    ['--sim-fault-rate 0.1', 'sim-fault-rate'],
    ['--sim-price-per-mtok 3', 'sim-price-per-mtok'],
    ['--sim-retry-ms 5', 'sim-retry-ms'],
    ['--sim-noise 0.3', 'sim-noise'],
  ])('%j needs the simulated model', async (line, flag) => {
    expect(await usageError(`--domains arithmetic --model big ${line}`, withModels)).toBe(
      `--${flag} sets up the simulated model, which this run does not use: add --model sim, or drop it.`,
    );
  });

  it.each([
    ['--domains arithmetic --sim-script replies.json --model big'],
    ['--domains arithmetic --sim-script replies.json --task-model big'],
    ['--domains arithmetic --sim-script replies.json --meta-model small'],
  ])('%j: --sim-script needs the sim model', async (line) => {
    expect(await usageError(line, withModels)).toMatch(/^--sim-script .* use it with --model sim\.$/);
  });
});

describe('parseLoopArgs accepts good input', () => {
  it("fills in every setting's default from the table, and the command's own defaults", async () => {
    const config = (await parse('--domains arithmetic')) as LoopConfig;
    for (const setting of SETTINGS as readonly Setting[]) {
      const expected = setting.default ?? (setting.read === undefined ? null : undefined);
      if (expected !== undefined) expect(fieldValue(config, setting.field), setting.option).toEqual(expected);
    }
    expect(config).toMatchObject({
      domains: [named('arithmetic')],
      metaModel: 'sim',
      taskModel: 'sim',
      tasksPerWorker: 8,
      limits: {
        memoryMb: 2048,
        processes: 256,
        openFiles: 1024,
        fileSizeMb: 64,
        diskMb: 512,
        outputKb: 1024,
      },
      workspace: { maxToolCalls: 40, maxFiles: 1000, maxKb: 4096 },
      sim: {
        latency: null,
        faults: ['429', '500', '529', 'timeout', 'truncated', 'malformed'],
        landscape: 'default',
      },
      simScript: null,
      record: null,
      replay: null,
      dataset: {},
      out: path.resolve('runs'),
      runId: null,
      json: false,
      quiet: false,
      resume: null,
      from: null,
      given: ['domains'],
      estimate: false,
      estimateFrom: null,
      pilot: null,
    });
    expect(path.isAbsolute(config.out)).toBe(true);
  });

  it.each<[string, Partial<LoopConfig>]>([
    ['--domains arithmetic,text', { domains: [named('arithmetic'), named('text')] }],
    ['--domains arithmetic --domains text', { domains: [named('arithmetic'), named('text')] }],
    ['--domains text,arithmetic --domains text', { domains: [named('text'), named('arithmetic')] }],
    ['--domains arithmetic,,text,', { domains: [named('arithmetic'), named('text')] }],
    [
      '--domains qa=dataset:data/qa.csv,exercism:ex --answer-field gold --metric numeric',
      {
        domains: [
          { kind: 'dataset', name: 'qa', file: path.resolve('data/qa.csv') },
          { kind: 'exercism', name: 'ex', dir: path.resolve('ex') },
        ],
        dataset: { answerField: 'gold', metric: 'numeric' },
      },
    ],
    [
      '--domains dataset:a.jsonl --input-fields q,context --choices A,B,C --answer-pattern ####(.+)',
      {
        domains: [{ kind: 'dataset', name: 'a', file: path.resolve('a.jsonl') }],
        dataset: { inputFields: ['q', 'context'], choices: ['A', 'B', 'C'], answerPattern: '####(.+)' },
      },
    ],
    ['--domains arithmetic --model big', { metaModel: 'big', taskModel: 'big' }],
    ['--domains arithmetic --model big --meta-model small', { metaModel: 'small', taskModel: 'big' }],
    ['--domains arithmetic --model big --task-model small', { metaModel: 'big', taskModel: 'small' }],
    ['--domains arithmetic --meta-model big', { metaModel: 'big', taskModel: 'sim' }],
    ['--domains arithmetic --generations 0', { generations: 0 }],
    ['--domains arithmetic --parallel 3 --eval-workers 2 --seed 7', { parallel: 3, evalWorkers: 2, seed: 7 }],
    ['--domains arithmetic --tasks-per-worker 1', { tasksPerWorker: 1 }],
    ['--domains arithmetic --eval-samples 5 --staged-samples 2', { evalSamples: 5, stagedSamples: 2 }],
    ['--domains arithmetic --skip-staged-eval --eval-test', { skipStagedEval: true, evalTest: true }],
    ['--domains arithmetic --parent-selection latest', { parentSelection: 'latest' }],
    ['--domains arithmetic --budget-usd 2.5', { budgetUsd: 2.5 }],
    [
      '--domains arithmetic --notify https://ntfy.sh/runs --stall-minutes 0.5 --failure-streak 5',
      { notifyUrl: 'https://ntfy.sh/runs', notifyCmd: null, stallMinutes: 0.5, failureStreak: 5 },
    ],
    ['--domains arithmetic --notify-cmd cat', { notifyUrl: null, notifyCmd: 'cat' }],
    ['--domains arithmetic --out some/folder', { out: path.resolve('some/folder') }],
    ['--domains arithmetic --out /tmp/runs', { out: '/tmp/runs' }],
    ['--domains arithmetic --run-id night_1.v2-b', { runId: 'night_1.v2-b' }],
    ['--domains arithmetic --sandbox none', { sandbox: 'none' }],
    [
      '--domains arithmetic --memory-mb 512 --max-processes 64 --disk-mb 100 --max-output-kb 16',
      {
        limits: { memoryMb: 512, processes: 64, openFiles: 1024, fileSizeMb: 64, diskMb: 100, outputKb: 16 },
      },
    ],
    ['--domains arithmetic --sim-script replies.json', { simScript: path.resolve('replies.json') }],
    ['--domains arithmetic --json --quiet --freeze-meta', { json: true, quiet: true, freezeMeta: true }],
    ['--domains arithmetic --task-timeout 5 --meta-timeout 60', { taskTimeoutSec: 5, metaTimeoutSec: 60 }],
    [
      '--domains arithmetic --task-timeout 2147483 --meta-timeout 2147483',
      { taskTimeoutSec: 2147483, metaTimeoutSec: 2147483 },
    ],
    [
      '--domains arithmetic --memory-mb 384 --max-processes 32 --max-open-files 34 --tasks-per-worker 1',
      { limits: expect.objectContaining({ memoryMb: 384, processes: 32, openFiles: 34 }), tasksPerWorker: 1 },
    ],
    [
      '--domains arithmetic --record runs/calls.jsonl',
      { record: path.resolve('runs/calls.jsonl'), replay: null },
    ],
    ['--domains arithmetic --replay /tmp/calls.jsonl', { record: null, replay: '/tmp/calls.jsonl' }],
    [
      '--domains arithmetic --max-tool-calls 5 --workspace-max-files 20 --workspace-max-kb 100',
      { workspace: { maxToolCalls: 5, maxFiles: 20, maxKb: 100 } as LoopConfig['workspace'] },
    ],
    [
      '--domains arithmetic --sim-latency-ms 200',
      { sim: expect.objectContaining({ latency: { kind: 'fixed', ms: 200 } }) },
    ],
    [
      '--domains arithmetic --sim-latency-ms 100-400',
      { sim: expect.objectContaining({ latency: { kind: 'uniform', minMs: 100, maxMs: 400 } }) },
    ],
    [
      '--domains arithmetic --sim-latency-ms lognormal:200',
      { sim: expect.objectContaining({ latency: { kind: 'lognormal', medianMs: 200, sigma: 0.5 } }) },
    ],
    [
      '--domains arithmetic --sim-fault-rate 0.2 --sim-faults 429,timeout --sim-retry-ms 0',
      { sim: expect.objectContaining({ faultRate: 0.2, faults: ['429', 'timeout'], retryMs: 0 }) },
    ],
    [
      '--domains arithmetic --sim-price-per-mtok 2.5 --budget-usd 1',
      { budgetUsd: 1, sim: expect.objectContaining({ pricePerMTok: 2.5 }) },
    ],
    [
      '--domains arithmetic --meta-model big --sim-fault-rate 0.1',
      { metaModel: 'big', taskModel: 'sim', sim: expect.objectContaining({ faultRate: 0.1 }) },
    ],
  ])('%j', async (line, expected) => {
    expect(await parse(line, withModels)).toMatchObject(expected);
  });

  it.each([['--help'], ['-h'], ['--domains nope --help'], ['--generations -1 --help']])(
    '%j asks for help',
    async (line) => {
      expect(await parse(line)).toBe('help');
    },
  );
});

describe('generate-loop --help', () => {
  it('explains the budget stop, record and replay, and every knob of the simulated model', async () => {
    const help = (await loopHelp()).replace(/\s+/g, ' ');
    expect(help).toMatch(/--budget-usd .*refused.* exit code 0, with "budget reached: \$X of \$Y spent"/);
    expect(help).toMatch(/--record .*repeated offline with --replay/);
    expect(help).toMatch(/--replay .*no key, no network, no cost\. Give the same options and --seed/);
    expect(help).toMatch(/--sim-latency-ms .*\(200\).*\(100-400\).*lognormal:MEDIAN\[:SIGMA\]/);
    expect(help).toMatch(/--sim-fault-rate .*retried like real failures/);
    expect(help).toMatch(/--sim-faults .*429 \(rate limit, asks to wait\).*timeout, truncated and malformed/);
    expect(help).toMatch(/--sim-price-per-mtok .*--budget-usd and costs work offline/);
    expect(help).toMatch(/--sim-retry-ms .*what a simulated 429 asks to wait/);
  });
});

describe('generate-loop --estimate --pilot', () => {
  it('takes the pilot generations, with a small task sample and a cap by default', async () => {
    expect(await parse('--domains arithmetic --estimate --pilot 2')).toMatchObject({
      estimate: true,
      pilot: { generations: 2, tasks: 5, budgetUsd: 1 },
    });
    expect(
      await parse('--domains arithmetic --estimate --pilot 3 --pilot-tasks 8 --pilot-budget-usd 0.25'),
    ).toMatchObject({ pilot: { generations: 3, tasks: 8, budgetUsd: 0.25 } });
  });

  it.each([
    ['--pilot 2', /^--pilot measures the estimate on a short run and then exits: give it with --estimate\.$/],
    ['--estimate --pilot 0', /^--pilot is the pilot run's generations: give a whole number of 1 or more/],
    ['--estimate --pilot 1.5', /^--pilot is the pilot run's generations/],
    ['--estimate --pilot two', /^--pilot is the pilot run's generations/],
    ['--estimate --pilot 2 --estimate-from old', /^--pilot and --estimate-from both give the rates/],
    [
      '--estimate --pilot 2 --resume old',
      /^--pilot measures a new run; a resumed run is estimated from its own/,
    ],
    [
      '--estimate --pilot 2 --replay rec.jsonl',
      /^--pilot measures real model calls, and --replay makes none/,
    ],
    ['--estimate --pilot 2 --pilot-tasks 0', /^--pilot-tasks is the tasks per split of each domain/],
    ['--estimate --pilot 2 --pilot-budget-usd 0', /^--pilot-budget-usd is the most the pilot may spend/],
    [
      '--estimate --pilot-tasks 3',
      /^--pilot-tasks sets the pilot run: give it with --estimate --pilot GENERATIONS\.$/,
    ],
    ['--pilot-budget-usd 3', /^--pilot-budget-usd sets the pilot run: give it with --estimate --pilot/],
  ])('refuses %j', async (line, message) => {
    expect(await usageError(`--domains arithmetic ${line}`)).toMatch(message);
  });

  it('says in --help what the pilot does and what caps it', async () => {
    const help = (await loopHelp()).replace(/\s+/g, ' ');
    expect(help).toMatch(
      /--pilot .*with --estimate: measure the rates on a short real run .*temporary folder/,
    );
    expect(help).toMatch(/--pilot-budget-usd .*a hard cap .*\[default: 1\]/);
  });
});
