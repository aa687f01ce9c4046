import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readArchive } from './kill-points.ts';
import { isAlive, processesIn, type Started, start, until } from './processes.ts';

/**
 * Processes killed with SIGKILL, signals other than SIGINT, and npx: nothing may be left running or on disk
 * (agent processes, worktrees, run.lock), and the next command finishes the work.
 */

const tmp = mkdtempSync(path.join(tmpdir(), 'leftovers-'));
const running: Started[] = [];

afterEach(() => {
  for (const s of running.splice(0)) if (s.child.exitCode === null) s.child.kill('SIGKILL');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function launch(...args: Parameters<typeof start>): Started {
  const started = start(...args);
  running.push(started);
  return started;
}

const LOOP = ['--domains', 'arithmetic', '--model', 'sim'];

/** The variant ids of a run that reached `step` or beyond. */
const variantsAt = (runDir: string, ids: number[]): boolean =>
  readArchive(runDir, (db) => {
    const rows = db.prepare('SELECT id, step FROM variants').all() as { id: number; step: string }[];
    return ids.every((id) => rows.some((r) => r.id === id));
  }) === true;

const runStatus = (runDir: string): string | null =>
  readArchive(runDir, (db) => (db.prepare('SELECT status FROM runs').get() as { status: string }).status);

/** Worktrees git still has registered beside the bare repository. */
function registeredWorktrees(runDir: string): string[] {
  const listing = execFileSync('git', ['--git-dir', path.join(runDir, 'variants.git'), 'worktree', 'list'], {
    encoding: 'utf8',
  });
  return listing
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.includes('(bare)'))
    .map((line) => line.split(/\s+/)[0]!);
}

/** What a run folder must not hold once nothing runs it. */
/** The resume advice: "Continue with:" then, alone on the next line, the command that continues the run. */
function expectResumeCommand(output: string, runDir: string): void {
  const lines = output.split('\n');
  const command = lines.find(
    (line) =>
      line.endsWith(`generate-loop --resume ${runDir}`) ||
      line.endsWith(`generate-loop.mjs --resume ${runDir}`),
  );
  expect(command, `a line with the resume command in:\n${output}`).toBeDefined();
  expect(lines[lines.indexOf(command!) - 1]).toMatch(/Continue with:$/);
}

function expectNothingLeft(runDir: string): void {
  expect(processesIn(runDir)).toEqual([]);
  expect(existsSync(path.join(runDir, 'run.lock'))).toBe(false);
  const worktrees = path.join(runDir, 'worktrees');
  expect(existsSync(worktrees) ? readdirSync(worktrees) : []).toEqual([]);
  expect(registeredWorktrees(runDir)).toEqual([]);
}

describe('hyperagents experiment killed with SIGKILL', () => {
  const GRID = ['--seeds', '1-2', '--config', 'full=', '--jobs', '2'];
  const OPTS = ['--', ...LOOP, '--generations', '6'];

  it('its runs stop by themselves, leave nothing behind, and the rerun finishes them', async () => {
    const dir = path.join(tmp, 'experiment');
    const runDirs = ['full-s1', 'full-s2'].map((id) => path.join(dir, 'runs', id));
    const first = launch('hyperagents', ['experiment', ...GRID, '--out', dir, ...OPTS]);
    // Both runs under way, past their initial agent.
    await until('both runs at generation 1', () => runDirs.every((r) => variantsAt(r, [0, 1])));
    const lock = JSON.parse(readFileSync(path.join(dir, 'experiment.lock'), 'utf8')) as {
      runs: Record<string, number>;
    };
    const pids = Object.values(lock.runs);
    expect(pids).toHaveLength(2);
    // Its progress says which run started and each generation as it ends.
    await until('progress lines', () => /full-s2: generation 1\/6 /.test(first.stderr()));
    expect(first.stderr()).toContain('full-s1: starting');
    expect(first.stderr()).toMatch(/full-s1: initial agent evaluated \d\.\d{3}/);
    first.child.kill('SIGKILL');
    await first.done;

    // The runs were not killed: each notices that its experiment ended and stops cleanly.
    await until('the runs to end', () => pids.every((pid) => !isAlive(pid)));
    for (const [i, runDir] of runDirs.entries()) {
      const log = readFileSync(path.join(dir, 'logs', `full-s${i + 1}.log`), 'utf8');
      expect(log).toContain('the experiment that started this process ended: stopping the run cleanly');
      expectResumeCommand(log, runDir);
      expect(runStatus(runDir)).toBe('stopped');
      expectNothingLeft(runDir);
    }
    expect(processesIn(dir)).toEqual([]);

    const rerun = launch('hyperagents', ['experiment', ...GRID, '--out', dir, '--json', ...OPTS]);
    const result = await rerun.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('full-s1: resuming (stopped)');
    expect(result.stderr).toMatch(/full-s2: generation 6\/6 /);
    expect(result.stderr).toMatch(
      /\[\d\/2\] full-s1: done in \d+ s, best \d\.\d{3} \(variant \d\), 6 generation/,
    );
    const summary = JSON.parse(result.stdout) as { configs: { runs: string[] }[] };
    expect(summary.configs[0]?.runs).toEqual(['full-s1', 'full-s2']);
    for (const runDir of runDirs) expectNothingLeft(runDir);
    expect(existsSync(path.join(dir, 'experiment.lock'))).toBe(false);
  }, 600_000);

  it("the next start stops a dead experiment's run that is still going, then finishes it", async () => {
    // A run the experiment's lock names, whose experiment died without its runs noticing (as with an
    // experiment of a version that did not tie its runs to itself): a generate-loop with no channel to watch.
    const dir = path.join(tmp, 'left');
    const runDir = path.join(dir, 'runs', 'full-s1');
    const loopArgs = [...LOOP, '--generations', '20', '--sim-latency-ms', '100'];
    const orphan = launch('generate-loop', [
      ...loopArgs,
      ...['--seed', '1', '--json', '--quiet', '--out', path.join(dir, 'runs'), '--run-id', 'full-s1'],
    ]);
    await until('the run at generation 1', () => variantsAt(runDir, [0, 1]));
    const deadExperiment = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(
      path.join(dir, 'experiment.lock'),
      JSON.stringify({ pid: deadExperiment, runs: { 'full-s1': orphan.child.pid } }),
    );
    const next = launch('hyperagents', [
      'experiment',
      ...['--seeds', '1', '--config', 'full=', '--out', dir, '--', ...loopArgs],
    ]);
    const stopped = await orphan.done;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('SIGTERM: stopping the run cleanly');
    const result = await next.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `full-s1: still running (process ${orphan.child.pid}) after the experiment that started it ended; stopping it.`,
    );
    expect(result.stderr).toContain('full-s1: resuming (stopped)');
    expect(result.stderr).toMatch(/\[1\/1\] full-s1: done in/);
    expectNothingLeft(runDir);
  }, 600_000);
});

describe('hyperagents eval killed with SIGKILL', () => {
  const out = path.join(tmp, 'eval-runs');
  const runDir = path.join(out, 'r');
  const evalArgs = (variant: number) => [
    ...['eval', `r:${variant}`, '--domains', 'arithmetic', '--split', 'test', '--runs', out],
  ];

  /**
   * Starts an evaluation of `variant` and kills it with SIGKILL once its TaskAgents are at work; returns its
   * pid. The test split of `variant` must not have been evaluated yet, nor its tasks be in the eval cache.
   */
  async function killedEval(variant: number): Promise<number> {
    const evaluation = launch('hyperagents', [...evalArgs(variant), '--eval-workers', '1']);
    const pid = evaluation.child.pid!;
    const folder = `eval-${variant}-${pid}`;
    await until(
      'the evaluation at work',
      () =>
        existsSync(path.join(runDir, 'builds', folder, 'task')) &&
        processesIn(path.join(runDir, 'worktrees', folder)).length > 0,
    );
    evaluation.child.kill('SIGKILL');
    await evaluation.done;
    // The fault is real: what it was using is still there.
    expect(existsSync(path.join(runDir, 'worktrees', folder))).toBe(true);
    expect(registeredWorktrees(runDir)).toEqual([path.join(runDir, 'worktrees', folder)]);
    return pid;
  }

  it('the next eval removes its worktree, build folder and socket folder, and finishes', async () => {
    const made = await launch('generate-loop', [...LOOP, '--generations', '1', '--out', out, '--run-id', 'r'])
      .done;
    expect(made.code, made.stderr).toBe(0);
    const killed = await killedEval(1);
    const again = await launch('hyperagents', evalArgs(1)).done;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`left by a killed evaluation (process ${killed}) in ${runDir}`);
    expect(again.stdout).toMatch(/^variant 1 arithmetic test: \d\.\d{3}$/m);
    expectNothingLeft(runDir);
    expect(readdirSync(path.join(runDir, 'builds')).filter((n) => n.startsWith('eval-'))).toEqual([]);
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith(`hyperagents-eval-${killed}-`))).toEqual([]);
  }, 600_000);

  it('a resumed generate-loop does not trip over what a killed eval left', async () => {
    // Variant 0's test split has not been evaluated; without the cache its TaskAgents have work to do.
    for (const suffix of ['', '-wal', '-shm'])
      rmSync(path.join(out, `eval-cache.sqlite${suffix}`), { force: true });
    await killedEval(0);
    const resumed = await launch('generate-loop', [
      '--resume',
      'r',
      '--out',
      out,
      '--generations',
      '2',
      '--json',
    ]).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((JSON.parse(resumed.stdout) as { generations: number }).generations).toBe(2);
    expectNothingLeft(runDir);
    expect(readdirSync(path.join(runDir, 'builds')).filter((n) => n.startsWith('eval-'))).toEqual([]);
  }, 600_000);
});

describe('signals other than SIGINT stop like Ctrl-C', () => {
  it.each(['SIGHUP', 'SIGTERM'] as const)(
    'generate-loop on %s: a clean stop, the resume command last, nothing left, and the resume finishes',
    async (signal) => {
      const out = path.join(tmp, `signal-${signal}`);
      const runDir = path.join(out, 'r');
      const run = launch('generate-loop', [...LOOP, '--generations', '4', '--out', out, '--run-id', 'r']);
      await until('generation 1 under way', () => variantsAt(runDir, [0, 1]));
      run.child.kill(signal);
      const stopped = await run.done;
      expect(stopped.code).toBe(130);
      expect(stopped.stderr).toContain(`${signal}: stopping the run cleanly`);
      const lines = stopped.stderr.trimEnd().split('\n');
      expect(lines.at(-2)).toBe(
        `generate-loop: interrupted; finished work is kept in ${runDir}. Continue with:`,
      );
      expectResumeCommand(lines.slice(-2).join('\n'), runDir);
      expect(runStatus(runDir)).toBe('stopped');
      expectNothingLeft(runDir);
      const resumed = await launch('generate-loop', ['--resume', runDir]).done;
      expect(resumed.code, resumed.stderr).toBe(0);
      expectNothingLeft(runDir);
    },
    600_000,
  );

  it('eval on SIGHUP: stops and removes its worktree', async () => {
    const out = path.join(tmp, 'eval-hup');
    const runDir = path.join(out, 'r');
    const made = await launch('generate-loop', [...LOOP, '--generations', '1', '--out', out, '--run-id', 'r'])
      .done;
    expect(made.code, made.stderr).toBe(0);
    const evaluation = launch('hyperagents', [
      ...['eval', 'r:1', '--domains', 'arithmetic', '--split', 'test', '--runs', out, '--eval-workers', '1'],
    ]);
    const worktree = path.join(runDir, 'worktrees', `eval-1-${evaluation.child.pid}`);
    await until('the evaluation at work', () => processesIn(worktree).length > 0);
    evaluation.child.kill('SIGHUP');
    const result = await evaluation.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('SIGHUP: stopping the evaluation');
    expectNothingLeft(runDir);
  }, 600_000);
});

describe('npx generate-loop', () => {
  it.each([
    ['SIGINT', 'Ctrl-C'],
    ['SIGHUP', 'the npx process that started this process ended'],
  ] as const)(
    'kill -%s of the npx process reaches the run: it stops cleanly (%s)',
    async (signal, said) => {
      const out = path.join(tmp, `npx-${signal}`);
      const runDir = path.join(out, 'r');
      const run = launch('generate-loop', [...LOOP, '--generations', '6', '--out', out, '--run-id', 'r'], {
        npx: true,
      });
      await until('generation 1 under way', () => variantsAt(runDir, [0, 1]));
      const holder = Number(readFileSync(path.join(runDir, 'run.lock'), 'utf8'));
      expect(holder).not.toBe(run.child.pid);
      run.child.kill(signal);
      const result = await run.done;
      await until('the run to end', () => !isAlive(holder));
      expect(result.stderr).toContain(`${said}: stopping the run cleanly`);
      expectResumeCommand(result.stderr, runDir);
      expect(runStatus(runDir)).toBe('stopped');
      expectNothingLeft(runDir);
    },
    600_000,
  );
});
