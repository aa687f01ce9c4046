import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from './run-cli.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'bad-inputs-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const SIM = ['--domains', 'arithmetic', '--model', 'sim', '--generations', '1', '--eval-samples', '4'];
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
  ])('%s', async (_what, extra, message) => {
    const out = extra.includes('--out') ? [] : ['--out', path.join(dir, 'runs')];
    const result = await runCli('generate-loop', [...SIM, ...out, ...extra], {}, dir);
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
    const variants = archive.prepare('SELECT id, status, failure_reason FROM variants').all() as {
      id: number;
      status: string;
      failure_reason: string;
    }[];
    const status = archive.prepare('SELECT status FROM runs').get() as { status: string };
    archive.close();
    expect(variants).toHaveLength(1);
    expect(variants[0]).toMatchObject({ id: 0, status: 'failed' });
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
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (!existsSync(archiveFile)) continue;
      const db = new Database(archiveFile, { readonly: true });
      const started =
        db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'variants'").get() !== undefined &&
        db.prepare('SELECT 1 FROM variants WHERE id = 1').get() !== undefined;
      db.close();
      if (started) break;
    }
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
