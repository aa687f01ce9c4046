import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { usdText } from '../harness/run/index.ts';
import { resolveModel } from '../llm/index.ts';
import { textReply } from '../llm/testing/fake-openai.ts';
import { type FakeServer, startFakeServer } from '../llm/testing/fake-server.ts';
import { ESTIMATE_CONFIGS, estimateAgainstRun, missedBy25, parseEstimate } from './estimate-runs.ts';
import { processesIn, type Started, start, until } from './processes.ts';
import { runCli } from './run-cli.ts';

const root = mkdtempSync(path.join(tmpdir(), 'estimate-pilot-'));
const running: Started[] = [];
afterEach(() => {
  for (const s of running.splice(0)) if (s.child.exitCode === null) s.child.kill('SIGKILL');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A temporary folder of the command's own (its TMPDIR), where the pilot's folder is made. */
function tmpOf(name: string): string {
  const dir = path.join(root, `tmp-${name}`);
  mkdirSync(dir);
  return dir;
}
const pilotFolders = (tmp: string) => readdirSync(tmp).filter((n) => n.startsWith('hyperagents-pilot-'));

describe('generate-loop --estimate --pilot', () => {
  it('on the sim: estimates the calls and cost of the run within 25%, from a pilot that leaves nothing behind', async () => {
    const tmp = tmpOf('sim');
    const { estimated, actual, lines } = await estimateAgainstRun(
      path.join(root, 'sim'),
      ESTIMATE_CONFIGS.plain!,
      {
        pilot: { args: ['--pilot', '2'], env: { TMPDIR: tmp } },
      },
    );
    expect(lines[0]).toMatch(
      /^Estimate for 6 generation\(s\), at the rates of 2 generation\(s\) of a pilot on 10 task\(s\): /,
    );
    expect(lines.at(-1)).toMatch(
      /^ {2}The pilot: 2 generation\(s\) on 10 task\(s\) \(at most 5 per split of each domain\), in a temporary folder now removed, made \d+ model calls, \$[\d.]+, [\d.]+ s, under its cap of \$1\.00 \(--pilot-budget-usd\)\.$/,
    );
    expect(missedBy25(estimated, actual)).toEqual([]);
    expect(pilotFolders(tmp)).toEqual([]);
  }, 240_000);

  it('stays under --budget-usd, counts its spend against it, says it stopped early, and records nothing', async () => {
    const tmp = tmpOf('budget');
    const out = path.join(root, 'budget');
    const recording = path.join(root, 'budget.jsonl');
    const result = await runCli(
      'generate-loop',
      [
        ...['--domains', 'arithmetic', '--model', 'sim', '--sim-price-per-mtok', '3', '--generations', '6'],
        ...['--budget-usd', '0.03', '--out', out, '--record', recording, '--estimate', '--pilot', '2'],
      ],
      { TMPDIR: tmp },
    );
    expect(result.code, result.stderr).toBe(0);
    const pilot =
      /The pilot: .* made (\d+) model calls, \$([\d.]+), .* under its cap of \$0\.03 \(--budget-usd\); that spend counts against --budget-usd above\. It stopped early \(budget reached: /.exec(
        result.stdout,
      );
    expect(pilot, result.stdout).not.toBeNull();
    expect(Number(pilot![2])).toBeLessThanOrEqual(0.03);
    const left = /over the budget left \(\$([\d.]+) of --budget-usd\)/.exec(result.stdout);
    expect(Number(left?.[1])).toBeCloseTo(0.03 - Number(pilot![2]), 2);
    // The recording is the run's: the pilot leaves it unwritten, so the run can still make it.
    expect(existsSync(recording)).toBe(false);
    expect(existsSync(out)).toBe(false);
    expect(pilotFolders(tmp)).toEqual([]);
  }, 120_000);

  it('prints the estimate and what the pilot spent as JSON with --json', async () => {
    const tmp = tmpOf('json');
    const result = await runCli(
      'generate-loop',
      [
        ...['--domains', 'arithmetic', '--model', 'sim', '--sim-price-per-mtok', '3', '--generations', '6'],
        ...['--out', path.join(root, 'json'), '--estimate', '--pilot', '1', '--json'],
      ],
      { TMPDIR: tmp },
    );
    expect(result.code, result.stderr).toBe(0);
    const figures = JSON.parse(result.stdout);
    expect(figures).toMatchObject({ kind: 'point', generations: 6, rates: { generations: 1 } });
    expect(figures.pilot).toMatchObject({ generations: 1, tasks: 10, capUsd: 1, stopped: null });
    expect(figures.pilot.calls).toBeGreaterThan(0);
    expect(figures.calls).toBeGreaterThan(figures.pilot.calls);
    expect(pilotFolders(tmp)).toEqual([]);
  }, 120_000);

  it('Ctrl-C stops the pilot: exit 130, nothing estimated, no folder and no process left', async () => {
    const tmp = tmpOf('interrupted');
    const out = path.join(root, 'interrupted');
    const pilot = start(
      'generate-loop',
      [
        ...['--domains', 'arithmetic', '--model', 'sim', '--sim-latency-ms', '300', '--generations', '6'],
        ...['--out', out, '--estimate', '--pilot', '2'],
      ],
      { env: { TMPDIR: tmp } },
    );
    running.push(pilot);
    await until('the pilot at work', () => pilotFolders(tmp).length === 1 && processesIn(tmp).length > 0);
    pilot.child.kill('SIGINT');
    const result = await pilot.done;
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'generate-loop: the pilot was interrupted; nothing was estimated and nothing is left.',
    );
    expect(pilotFolders(tmp)).toEqual([]);
    expect(processesIn(tmp)).toEqual([]);
    expect(existsSync(out)).toBe(false);
  }, 120_000);

  it.each([
    [
      '--pilot 2',
      /^generate-loop: --pilot measures the estimate on a short run and then exits: give it with --estimate\.$/,
    ],
    ['--estimate --pilot 0', /^generate-loop: --pilot is the pilot run's generations: give a whole number/],
    [
      '--estimate --pilot 2 --estimate-from old',
      /^generate-loop: --pilot and --estimate-from both give the rates/,
    ],
    [
      '--estimate --pilot 2 --replay calls.jsonl',
      /^generate-loop: --pilot measures real model calls, and --replay makes none/,
    ],
    [
      '--estimate --pilot-tasks 3',
      /^generate-loop: --pilot-tasks sets the pilot run: give it with --estimate --pilot/,
    ],
    [
      '--estimate --pilot 2 --queue redis://127.0.0.1:1',
      /^generate-loop: --pilot runs its short run on this machine, not on the workers of a queue/,
    ],
  ])('refuses %j: exit 2, one line, nothing made', async (line, message) => {
    const tmp = tmpOf(line.replaceAll(/\W+/g, '-'));
    const out = path.join(root, 'refused');
    const result = await runCli(
      'generate-loop',
      ['--domains', 'arithmetic', '--model', 'sim', '--out', out, ...line.split(' ')],
      { TMPDIR: tmp },
    );
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
    expect(pilotFolders(tmp)).toEqual([]);
  });
});

describe('generate-loop --estimate --pilot with a real provider (OpenAI wire format, served on loopback)', () => {
  const KEY = 'sk-test-e2e-0000';
  /** Token counts the fake reports: a MetaAgent call reads much and writes some; a task call little. */
  const META = { prompt: 20_000, completion: 1_000 };
  const TASK = { prompt: 400, completion: 20 };
  let server: FakeServer | undefined;
  afterAll(() => server?.close());

  it("sends the pilot's calls to the provider and prices the estimate from the provider's token counts", async () => {
    // The MetaAgent changes nothing (its child is rejected), the TaskAgent answers 0.
    server = await startFakeServer({
      fallback: (req) =>
        JSON.stringify(req.body).includes('meta agent')
          ? textReply('I read the results and changed nothing.', { usage: META })
          : textReply('<json>{"response": 0}</json>', { usage: TASK }),
    });
    const tmp = tmpOf('provider');
    const out = path.join(root, 'provider');
    const result = await runCli(
      'generate-loop',
      [
        ...['--domains', 'arithmetic', '--model', 'openai/gpt-4o-mini', '--sandbox', 'none'],
        ...['--generations', '10', '--out', out, '--estimate', '--pilot', '2', '--pilot-tasks', '3'],
      ],
      { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${server.url}/v1`, TMPDIR: tmp },
    );
    expect(result.code, result.stderr).toBe(0);
    const chats = server.requests.filter((r) => r.path === '/v1/chat/completions');
    const metaChats = chats.filter((r) => JSON.stringify(r.body).includes('meta agent'));
    expect(metaChats).toHaveLength(2);
    for (const r of chats) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
    const made = /The pilot: 2 generation\(s\) on 6 task\(s\) .* made (\d+) model calls, \$([\d.]+),/.exec(
      result.stdout,
    );
    expect(made, result.stdout).not.toBeNull();
    expect(Number(made![1])).toBe(chats.length);
    // One MetaAgent call per generation, at the fake's tokens and the model's list price.
    const resolved = resolveModel('openai/gpt-4o-mini');
    if (!resolved.ok) throw new Error('openai/gpt-4o-mini is not in the registry');
    const { price } = resolved.model;
    const perGeneration = (META.prompt * price.input + META.completion * price.output) / 1_000_000;
    expect(result.stdout).toContain(`  Per generation: 1 calls, ${usdText(perGeneration)}, `);
    expect(result.stdout).toContain('a MetaAgent made 1.0 calls');
    expect(result.stdout).toContain('100% of children rejected or failed');
    const estimated = parseEstimate(result.stdout.split('\n')[0]!);
    expect(estimated?.usd).toBeCloseTo(Number(usdText(10 * perGeneration).slice(1)), 4);
    expect(existsSync(out)).toBe(false);
    expect(pilotFolders(tmp)).toEqual([]);
  }, 240_000);
});
