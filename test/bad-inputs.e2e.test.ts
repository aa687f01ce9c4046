import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from './run-cli.ts';
import { generations, until } from './run-watch.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'bad-inputs-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const SIM = ['--domains', 'arithmetic', '--model', 'sim', '--generations', '1', '--eval-samples', '4'];

/** SIM with the flags that `extra` gives left out (a flag given twice is refused as such). */
function simWith(extra: string[]): string[] {
  const args: string[] = [];
  for (let i = 0; i < SIM.length; i += 2) if (!extra.includes(SIM[i]!)) args.push(SIM[i]!, SIM[i + 1]!);
  return [...args, ...extra];
}
/** No stack frame, and no blaming git for a folder that is gone. */
const noTrace = (text: string): void => {
  expect(text).not.toMatch(/^\s+at /m);
  expect(text).not.toMatch(/ENOENT/);
};

describe('generate-loop refuses bad input with one paragraph, exit code 2, and writes nothing', () => {
  it.each([
    ['an empty --out', ['--out', ''], /--out is empty/],
    ['a 300-character --run-id', ['--run-id', 'r'.repeat(300)], /--run-id is 300 characters long/],
    ['--generations 1e9', ['--generations', '1e9'], /--generations must be a whole number from 0 to 100000/],
    ['--out given twice', ['--out', 'a', '--out', 'b'], /--out was given 2 times \(a, b\): give it once/],
  ])('%s', async (_what, extra, message) => {
    const out = extra.includes('--out') ? [] : ['--out', path.join(dir, 'runs')];
    const result = await runCli('generate-loop', simWith([...out, ...extra]), {}, dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    noTrace(result.stderr);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a sim script that scripts nothing', async () => {
    writeFileSync(path.join(dir, 'script.json'), '{}');
    const out = path.join(dir, 'runs');
    const result = await runCli(
      'generate-loop',
      [...SIM, '--out', out, '--sim-script', 'script.json'],
      {},
      dir,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--sim-script: .*script\.json.*scripts no role/s);
    expect(existsSync(out)).toBe(false);
  });

  it('a result cache that is not a database, named in the message, with no run folder made', async () => {
    const out = path.join(dir, 'runs');
    mkdirSync(out);
    const cache = path.join(out, 'eval-cache.sqlite');
    writeFileSync(cache, 'this is not sqlite '.repeat(200));
    const result = await runCli('generate-loop', [...SIM, '--out', out, '--run-id', 'r1'], {}, dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`The result cache ${cache} cannot be opened`);
    expect(result.stderr).toMatch(/move it away or delete it/);
    noTrace(result.stderr);
    expect(readdirSync(out)).toEqual(['eval-cache.sqlite']);
  });
});

/** The hard limit on open files every process here inherits; null when unlimited. */
function hardOpenFiles(): number | null {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const hard = line?.split(/\s{2,}/)[2];
  return hard === undefined || !/^\d+$/.test(hard) ? null : Number(hard);
}

describe('a limit or timeout the machine cannot honour is refused with its range, before anything is written', () => {
  const SECONDS =
    'must be a whole number of seconds from 1 to 2147483 \\(about 24 days: the longest a timer can wait\\)';
  it.each([
    ['--task-timeout 1e9', ['--task-timeout', '1e9'], `--task-timeout ${SECONDS}, not 1000000000\\.`],
    ['--meta-timeout 10000000', ['--meta-timeout', '10000000'], `--meta-timeout ${SECONDS}, not 10000000\\.`],
    [
      '--memory-mb 1',
      ['--memory-mb', '1'],
      "--memory-mb must be a whole number of MiB from 384 to \\d+ \\(the typecheck of a variant's code takes about 300 MiB\\), not 1\\.",
    ],
    [
      '--max-open-files 1',
      ['--max-open-files', '1'],
      '--max-open-files must be at least 48 for a TaskAgent process that runs 8 tasks at once .*, not 1\\.',
    ],
    [
      '--max-processes 1',
      ['--max-processes', '1'],
      '--max-processes must be a whole number from 32 to 4194304 \\(Node alone runs about a dozen threads, and each one counts\\), not 1\\.',
    ],
    ["--generations ''", ['--generations', ''], '--generations was given an empty value: give a number\\.'],
    ['--generations=', ['--generations='], '--generations was given an empty value: give a number\\.'],
    [
      '--sim-retry-ms 1e10',
      ['--sim-retry-ms', '1e10'],
      '--sim-retry-ms must be a whole number of milliseconds from 0 to 60000 \\(the longest a retry waits\\), not 10000000000\\.',
    ],
    [
      '--sim-latency-ms 99999999999',
      ['--sim-latency-ms', '99999999999'],
      '--sim-latency-ms must give delays of at most 2147483647 ms \\(the longest a timer can wait\\)',
    ],
  ])('generate-loop %s', async (_what, extra, message) => {
    const result = await runCli(
      'generate-loop',
      simWith(['--out', path.join(dir, 'runs'), ...extra]),
      {},
      dir,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^generate-loop: ${message}`));
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    noTrace(result.stderr);
    expect(readdirSync(dir)).toEqual([]);
  });

  const hard = hardOpenFiles();
  it.skipIf(hard === null)(
    'more open files than the hard limit, named with the most this machine gives',
    async () => {
      const result = await runCli(
        'hyperagents',
        ['generate-loop', ...SIM, '--out', path.join(dir, 'runs'), '--max-open-files', String(hard! + 1)],
        {},
        dir,
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `--max-open-files ${hard! + 1} is more than this machine lets a process have (${hard}: the hard limit on ` +
          `open files, ulimit -Hn), so no agent process could start. Give at most ${hard}`,
      );
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it('experiment checks the generate-loop options of every configuration before it starts a run', async () => {
    const out = path.join(dir, 'exp');
    const result = await runCli(
      'hyperagents',
      ['experiment', '--out', out, '--seeds', '1', '--config', 'slow=--task-timeout 1e9', '--', ...SIM],
      {},
      dir,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /configuration "slow": --task-timeout must be a whole number of seconds from 1 to 2147483/,
    );
    expect(existsSync(out)).toBe(false);
  });
});

describe('the floors of the limits are enough for the harness', () => {
  it('a run at the lowest memory, processes and open files ends as one at the defaults, typecheck included', async () => {
    // The MetaAgent adds a TypeScript file, so the child's gate typechecks it under the limits too.
    const script = path.join(dir, 'script.json');
    const helper = {
      command: 'create',
      path: 'agents/task/helper.ts',
      file_text: 'export const n: number = 1;\n',
    };
    writeFileSync(
      script,
      JSON.stringify({
        meta: [[{ content: 'Adding a helper.', toolCalls: [{ name: 'editor', input: helper }] }, 'Done.']],
      }),
    );
    const args = [
      '--domains',
      'arithmetic,code',
      '--model',
      'sim',
      '--sim-script',
      script,
      '--generations',
      '1',
    ];
    const run = async (name: string, limits: string[]) => {
      const result = await runCli(
        'generate-loop',
        [...args, '--eval-samples', '4', '--out', path.join(dir, name), '--json', '--quiet', ...limits],
        {},
        dir,
      );
      expect(result.code, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout) as {
        runDir: string;
        variants: { id: number; status: string; scores: unknown }[];
      };
      const db = new Database(path.join(summary.runDir, 'archive.sqlite'), { readonly: true });
      const outcomes = db
        .prepare('SELECT variant_id, domain, task_id, outcome FROM task_results ORDER BY 1, 2, 3')
        .all();
      db.close();
      return { variants: summary.variants.map((v) => [v.id, v.status, v.scores]), outcomes };
    };
    const lowest = await run('lowest', [
      '--memory-mb',
      '384',
      '--max-processes',
      '32',
      '--max-open-files',
      '48',
    ]);
    const defaults = await run('defaults', []);
    expect(lowest.variants).toEqual([
      [0, 'evaluated', expect.anything()],
      [1, 'evaluated', expect.anything()],
    ]);
    expect(lowest).toEqual(defaults);
    expect(lowest.outcomes.every((o) => (o as { outcome: string }).outcome !== 'error')).toBe(true);
  }, 300_000);
});

describe('eval and --resume check the limits of the run they take up', () => {
  const runs = () => path.join(dir, 'runs');
  const setStored = (change: string): void => {
    const db = new Database(path.join(runs(), 'r1', 'archive.sqlite'));
    db.prepare(`UPDATE runs SET config = json_set(config, ${change})`).run();
    db.close();
  };
  beforeEach(async () => {
    const made = await runCli(
      'generate-loop',
      ['--domains', 'arithmetic', '--model', 'sim', '--generations', '0', '--eval-samples', '2'].concat(
        '--out',
        runs(),
        '--run-id',
        'r1',
      ),
      {},
      dir,
    );
    expect(made.code, made.stderr).toBe(0);
  }, 120_000);

  it.each([
    [
      '--eval-workers 0',
      ['--eval-workers', '0'],
      /--eval-workers must be a whole number of at least 1, not 0\./,
    ],
    ["--eval-samples ''", ['--eval-samples', ''], /--eval-samples was given an empty value: give a number\./],
    [
      '--eval-samples 1.5',
      ['--eval-samples', '1.5'],
      /--eval-samples must be a whole number of at least 1, not 1\.5\./,
    ],
  ])('eval %s', async (_what, extra, message) => {
    const result = await runCli(
      'hyperagents',
      ['eval', 'r1:0', '--domains', 'arithmetic', '--out', runs(), ...extra],
      {},
      dir,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    noTrace(result.stderr);
  });

  it.skipIf(hardOpenFiles() === null)(
    'eval of a run started with more open files than this machine gives',
    async () => {
      const hard = hardOpenFiles()!;
      setStored(`'$.limits.openFiles', ${hard + 1}`);
      const result = await runCli(
        'hyperagents',
        ['eval', 'r1:0', '--domains', 'arithmetic', '--out', runs()],
        {},
        dir,
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `The run ${path.join(runs(), 'r1')} was started with --max-open-files ${hard + 1}, more than this machine lets a process have (${hard}:`,
      );
      const db = new Database(path.join(runs(), 'r1', 'archive.sqlite'), { readonly: true });
      const tests = db.prepare("SELECT COUNT(*) AS n FROM task_results WHERE split = 'test'").get() as {
        n: number;
      };
      db.close();
      expect(tests.n).toBe(0);
    },
  );

  it('--resume of a run stored with a limit under its floor names the value, not "another version"', async () => {
    setStored("'$.limits.memoryMb', 1");
    const result = await runCli('generate-loop', ['--resume', 'r1', '--out', runs()], {}, dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--resume r1: the run was started with a value this version refuses: --memory-mb must be a whole number of MiB from 384 .*, not 1\. Start a new run/,
    );
  });
});

describe('an option that takes one value, given twice', () => {
  it.each([
    [['archive', 'list', '--runs', 'a', '--runs', 'b'], /--runs was given 2 times \(a, b\): give it once/],
    [['archive', 'best', '--top', '1', '--top', '2'], /--top was given 2 times \(1, 2\): give it once/],
    [
      ['eval', 'r:0', '--domains', 'arithmetic', '--split', 'val', '--split', 'test'],
      /--split was given 2 times/,
    ],
  ])('hyperagents %j is refused, naming it', async (args, message) => {
    const result = await runCli('hyperagents', args, {}, dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    noTrace(result.stderr);
  });
});

describe('hyperagents domains and models', () => {
  it.each([
    ['domains', 'foo'],
    ['models', 'foo'],
    ['models', '--jsonn'],
  ])('%s refuses the extra word %s', async (command, word) => {
    const result = await runCli('hyperagents', [command, word]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${command} takes no`);
    expect(result.stderr).toContain(`"${word}"`);
    expect(result.stdout).toBe('');
  });

  it.each([['domains'], ['models']])('%s --help prints its help, not the list', async (command) => {
    const result = await runCli('hyperagents', [command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^hyperagents ${command} \\[--json\\]`));
    expect(result.stdout).not.toContain('arithmetic');
    expect(result.stdout).not.toContain('anthropic/');
  });
});

describe('faults during a run', () => {
  it('a model nobody answers for: each retry is shown, then the run fails fast with the message chat gives', async () => {
    // Nothing listens on port 9 of loopback: every connection is refused at once.
    const env = { HYPERAGENTS_LOCAL_BASE_URL: 'http://127.0.0.1:9/v1' };
    const out = path.join(dir, 'runs');
    const args = ['--domains', 'arithmetic', '--model', 'local/llama3', '--generations', '2'];
    const run = await runCli(
      'generate-loop',
      [...args, '--out', out, '--run-id', 'r1', '--sandbox', 'none'],
      env,
      dir,
    );
    const chat = await runCli(
      'hyperagents',
      ['chat', '--model', 'local/llama3', '--retry-seconds', '0', 'hi'],
      env,
      dir,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/local\/llama3: attempt 1 failed, retrying in [\d.]+ s: could not reach/);
    const reason = /provider unreachable: (could not reach .*?)(?: \(|$)/m;
    expect(chat.stderr).toMatch(reason);
    expect(run.stderr).toContain(`generate-loop: provider unreachable: ${chat.stderr.match(reason)![1]}`);
    noTrace(run.stderr);
    const archive = new Database(path.join(out, 'r1', 'archive.sqlite'), { readonly: true });
    const variants = archive
      .prepare('SELECT id, status, failure_reason, failure_cause FROM variants')
      .all() as {
      id: number;
      status: string;
      failure_reason: string;
      failure_cause: string | null;
    }[];
    const status = archive.prepare('SELECT status FROM runs').get() as { status: string };
    archive.close();
    expect(variants).toHaveLength(1);
    // The harness could not reach the model: the failure is recorded with that cause, not the agent's.
    expect(variants[0]).toMatchObject({ id: 0, status: 'failed', failure_cause: 'harness' });
    expect(variants[0]!.failure_reason).toMatch(/^model unreachable: could not reach/);
    expect(status.status).toBe('failed');
  }, 180_000);

  it('the variant repository removed under a running run: a clear reason, no stack trace, finished variants kept', async () => {
    const out = path.join(dir, 'runs');
    const archiveFile = path.join(out, 'r1', 'archive.sqlite');
    const child = spawn(
      process.execPath,
      [
        path.join(PROJECT_ROOT, 'bin', 'generate-loop.mjs'),
        ...['--domains', 'arithmetic', '--model', 'sim', '--generations', '5', '--eval-samples', '6'],
        ...['--sim-latency-ms', '150', '--out', out, '--run-id', 'r1'],
      ],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Once variant 0 is done and variant 1 is under way, the repository goes.
    await until(() => generations(path.join(out, 'r1')).length > 0);
    // Moved away in one step (the run keeps writing into it, so a recursive delete could race it).
    renameSync(path.join(out, 'r1', 'variants.git'), path.join(dir, 'removed.git'));
    const code = await exited;

    expect(code).toBe(1);
    expect(stderr).toMatch(/variant repository .*variants\.git was removed while the run was going/);
    noTrace(stderr);
    const db = new Database(archiveFile, { readonly: true });
    const variants = db.prepare('SELECT id, step, status, failure_reason FROM variants').all() as {
      id: number;
      step: string;
      status: string;
      failure_reason: string | null;
    }[];
    const events = db.prepare("SELECT data FROM events WHERE type = 'harness_error'").all() as {
      data: string;
    }[];
    db.close();
    expect(variants[0]).toMatchObject({ id: 0, step: 'done', status: 'evaluated' });
    for (const v of variants) noTrace(v.failure_reason ?? '');
    for (const e of events) noTrace(e.data);
    expect(events.map((e) => e.data).join('\n')).toMatch(/was removed while the run was going/);
    // The variant under way when the repository went is not failed for it: it waits at its step, as an
    // interrupted one does. A resume without the repository is refused, naming it.
    expect(variants.filter((v) => v.step === 'failed')).toEqual([]);
    const resumed = await runCli('generate-loop', ['--resume', path.join(out, 'r1')], {}, dir);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/the variant repository .*variants\.git is missing/);
  }, 300_000);
});
