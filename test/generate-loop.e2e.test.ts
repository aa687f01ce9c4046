import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { PROJECT_ROOT, runCli } from './run-cli.ts';

type Summary = RunSummary;

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-e2e-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const git = (gitDir: string, ...args: string[]): string =>
  execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8' });

describe('generate-loop on the simulated model', () => {
  let five: Summary;
  let ten: Summary;

  beforeAll(async () => {
    // Seed 4: on the simulated landscape its first ten generations find a better variant (not every seed's
    // do: the landscape is built so that progress takes a search, not a lucky first draw).
    const base = ['--domains', 'arithmetic', '--model', 'sim', '--seed', '4', '--json'];
    const [a, b] = [
      await runCli('generate-loop', [...base, '--generations', '5', '--out', path.join(tmp, 'five')]),
      await runCli('generate-loop', [...base, '--generations', '10', '--out', path.join(tmp, 'ten')]),
    ];
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    five = JSON.parse(a.stdout) as Summary;
    ten = JSON.parse(b.stdout) as Summary;
  }, 600_000);

  it('prints one JSON summary listing variants 0..5 with parent, commit, status and score', () => {
    expect(five.simulated).toBe(true);
    expect(five.model).toBe('sim');
    expect(five.variants.map((v) => v.id)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(five.variants[0]).toMatchObject({ parent: null, status: 'evaluated', validParent: true });
    for (const v of five.variants.slice(1)) {
      expect(v.parent).not.toBeNull();
      expect(v.parent!).toBeLessThan(v.id);
      expect(['evaluated', 'staged_only', 'rejected', 'failed']).toContain(v.status);
      if (v.status === 'evaluated') {
        expect(v.score).toBeGreaterThanOrEqual(0);
        expect(v.commit).toMatch(/^[0-9a-f]{40}$/);
      }
    }
    expect(five.best?.score).toBe(Math.max(...five.variants.map((v) => v.score ?? -1)));
    expect(five.llmCalls).toBeGreaterThan(0);
  });

  it('keeps the lineage in git: every child commit has its parent variant as parent commit', () => {
    const gitDir = path.join(five.runDir, 'variants.git');
    const log = git(gitDir, 'log', '--all', '--format=%H %P');
    const parents = new Map(
      log
        .trim()
        .split('\n')
        .map((line) => line.split(' ') as [string, string]),
    );
    const byId = new Map(five.variants.map((v) => [v.id, v]));
    for (const v of five.variants) {
      if (v.commit === null) continue;
      expect(parents.has(v.commit)).toBe(true);
      if (v.parent !== null) expect(parents.get(v.commit)).toBe(byId.get(v.parent)!.commit);
    }
  });

  it('lets at least one child change agents/task/prompt.md and never anything outside agents/', () => {
    const gitDir = path.join(five.runDir, 'variants.git');
    const root = five.variants[0]!.commit!;
    const changed = five.variants
      .filter((v) => v.parent !== null && v.commit !== null)
      .map((v) =>
        git(gitDir, 'diff', '--name-only', byIdCommit(five, v.parent!), v.commit!).trim().split('\n'),
      );
    expect(changed.some((files) => files.includes('agents/task/prompt.md'))).toBe(true);
    for (const files of changed) for (const f of files) expect(f.startsWith('agents/')).toBe(true);
    expect(git(gitDir, 'show', `${root}:agents/task/prompt.md`)).toContain('"response"');
  });

  it('records runs, variants, evaluations, task results and LLM calls in SQLite', () => {
    const db = new Database(path.join(five.runDir, 'archive.sqlite'), { readonly: true });
    const count = (table: string): number =>
      (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect(count('runs')).toBe(1);
    expect(count('variants')).toBe(6);
    expect(count('evaluations')).toBeGreaterThanOrEqual(2);
    expect(count('task_results')).toBeGreaterThanOrEqual(80);
    expect(count('llm_calls')).toBe(five.llmCalls);
    const roles = db.prepare('SELECT DISTINCT role FROM llm_calls ORDER BY role').all() as { role: string }[];
    expect(roles.map((r) => r.role)).toEqual(['meta', 'task']);
    const run = db.prepare('SELECT seed, simulated, status FROM runs').get() as {
      seed: number;
      simulated: number;
      status: string;
    };
    expect(run).toEqual({ seed: 4, simulated: 1, status: 'done' });
    const v0 = db
      .prepare("SELECT score FROM evaluations WHERE variant_id = 0 AND split = 'val' AND stage = 'full'")
      .get() as {
      score: number;
    };
    expect(v0.score).toBe(five.variants[0]!.score);
    const outcomes = db.prepare('SELECT DISTINCT outcome FROM task_results').all() as { outcome: string }[];
    expect(outcomes.map((o) => o.outcome)).toContain('correct');
    db.close();
  });

  it('gives the same scores for the same seed', () => {
    expect(ten.variants.slice(0, 6).map((v) => [v.parent, v.status, v.score])).toEqual(
      five.variants.map((v) => [v.parent, v.status, v.score]),
    );
  });

  it('finds a variant better than the initial agent within 10 generations', () => {
    expect(ten.variants).toHaveLength(11);
    expect(ten.best!.score).toBeGreaterThan(ten.variants[0]!.score!);
  });
});

function byIdCommit(summary: Summary, id: number): string {
  return summary.variants.find((v) => v.id === id)!.commit!;
}

describe('a run stopped by Ctrl-C ends with the command that continues it, alone on the last line', () => {
  /** Started as a user of a clone would without npm: node and the script (npx would print npx generate-loop). */
  const start = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    delete childEnv.npm_command;
    const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'bin', 'generate-loop.mjs'), ...args], {
      cwd: tmp,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      child.on('close', (code) => resolve({ code, stdout, stderr })),
    );
    return { child, done };
  };

  it.each([[[]], [['--json']], [['--quiet']], [['--json', '--quiet']]])(
    'with %j, and the command pasted in a shell finishes the run',
    async (flags) => {
      const out = path.join(tmp, `stopped-${flags.join('') || 'plain'}`);
      const runDir = path.join(out, 'r');
      const run = start([
        ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '2', '--eval-samples', '4'],
        ...['--sim-latency-ms', '150', '--out', out, '--run-id', 'r', ...flags],
      ]);
      // Stopped once variant 0 is scored and the first generation is under way.
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const file = path.join(runDir, 'archive.sqlite');
        if (!existsSync(file)) continue;
        const db = new Database(file, { readonly: true });
        const going =
          db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'variants'").get() !== undefined &&
          db.prepare('SELECT 1 FROM variants WHERE id = 1').get() !== undefined;
        db.close();
        if (going) break;
      }
      run.child.kill('SIGINT');
      const stopped = await run.done;
      expect(stopped.code).toBe(130);
      const lines = stopped.stderr.trimEnd().split('\n');
      const command = `node ${path.join(PROJECT_ROOT, 'bin', 'generate-loop.mjs')} --resume ${runDir}`;
      expect(lines.at(-1)).toBe(command);
      expect(lines.at(-2)).toBe(
        `generate-loop: interrupted; finished work is kept in ${runDir}. Continue with:`,
      );
      if (flags.includes('--json')) expect(JSON.parse(stopped.stdout).stopped).toBe('interrupted');
      const resumed = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const shell = spawn('sh', ['-c', `${lines.at(-1)!} --json --quiet`], {
          cwd: tmp,
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let stdout = '';
        shell.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
        });
        shell.on('close', (code) => resolve({ code, stdout }));
      });
      expect(resumed.code).toBe(0);
      const summary = JSON.parse(resumed.stdout) as RunSummary;
      expect(summary.variants.map((v) => v.id)).toEqual([0, 1, 2]);
      expect(summary.stopped).toBeNull();
    },
    300_000,
  );
});

describe('generate-loop refuses bad input with exit code 2 and writes nothing', () => {
  const file = path.join(tmp, 'a-file');
  beforeAll(() => writeFileSync(file, 'not a folder'));

  it.each([
    [
      'an unknown domain, listing the known ones',
      ['--domains', 'arithmatic'],
      /Unknown domain "arithmatic".*arithmetic/s,
    ],
    ['an unknown model', ['--domains', 'arithmetic', '--model', 'gpt-9000'], /Unknown model "gpt-9000"/],
    [
      'a negative generation count',
      ['--domains', 'arithmetic', '--generations', '-1'],
      /--generations must be a whole number/,
    ],
    [
      'an --out that cannot be written',
      ['--domains', 'arithmetic', '--out', path.join(file, 'runs')],
      /is a file, not a folder/,
    ],
  ])('%s', async (_name, args, message) => {
    const out = path.join(tmp, `bad-${Math.random().toString(36).slice(2)}`);
    const hasOut = args.includes('--out');
    const result = await runCli('generate-loop', hasOut ? args : [...args, '--out', out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(tmp).filter((f) => f.startsWith('bad-'))).toEqual([]);
  });
});

describe('results of an unchanged TaskAgent are reused', () => {
  it('a second run in the same --out folder evaluates the initial agent without calling the model', async () => {
    const out = path.join(tmp, 'reuse');
    const args = ['--domains', 'arithmetic', '--generations', '0', '--out', out, '--json', '--quiet'];
    const first = await runCli('generate-loop', [...args, '--run-id', 'setup']);
    const second = await runCli('generate-loop', [...args, '--run-id', 'later']);
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    const [a, b] = [JSON.parse(first.stdout) as RunSummary, JSON.parse(second.stdout) as RunSummary];
    expect(a.llmCalls).toBe(80);
    expect(b.llmCalls).toBe(0);
    expect(b.variants[0]!.score).toBe(a.variants[0]!.score);
    const db = new Database(path.join(b.runDir, 'archive.sqlite'), { readonly: true });
    const rows = db.prepare('SELECT COUNT(*) AS n, SUM(reused) AS reused FROM task_results').get();
    db.close();
    expect(rows).toEqual({ n: 80, reused: 80 });
  });
});

describe('an estimate before the first generation', () => {
  it('names the calls, the nominal sim price and the budget, keeps --json whole, and is left out with --quiet', async () => {
    const args = ['--domains', 'arithmetic', '--model', 'sim', '--generations', '1', '--json'];
    const priced = ['--sim-price-per-mtok', '10', '--budget-usd', '5'];
    const shown = await runCli('generate-loop', [...args, ...priced, '--out', path.join(tmp, 'estimate')]);
    const quiet = await runCli('generate-loop', [
      ...args,
      '--quiet',
      '--out',
      path.join(tmp, 'estimate-quiet'),
    ]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(quiet.code, quiet.stderr).toBe(0);
    const line = shown.stderr.split('\n').find((l) => l.startsWith('Estimate for 1 generation:'));
    expect(line, shown.stderr).toMatch(
      /^Estimate for 1 generation: (\d+)–(\d+) model calls, \$[\d.]+–\$([\d.]+) \(sim: nominal \$10\/Mtok from --sim-price-per-mtok\), about /,
    );
    expect(shown.stderr).toMatch(
      /high end is over the budget left \(\$5\.00 of --budget-usd\): the run will likely stop/,
    );
    // Printed before the first generation starts; the run's calls and spend fall inside the range.
    expect(shown.stderr.indexOf('Estimate for')).toBeLessThan(shown.stderr.indexOf('variant 1:'));
    const [, low, high, highUsd] = line!.match(/(\d+)–(\d+) model calls, \$[\d.]+–\$([\d.]+)/)!;
    const summary = JSON.parse(shown.stdout) as RunSummary;
    expect(summary.llmCalls).toBeGreaterThanOrEqual(Number(low));
    expect(summary.llmCalls).toBeLessThanOrEqual(Number(high));
    expect(summary.costUsd).toBeLessThanOrEqual(Number(highUsd));
    expect(quiet.stderr).not.toContain('Estimate');
    expect((JSON.parse(quiet.stdout) as RunSummary).variants).toHaveLength(2);
  }, 300_000);
});
