import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchiveReader } from '../archive/index.ts';
import { PROJECT_ROOT, runCli } from './run-cli.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'bundle-e2e-'));
const runs = path.join(tmp, 'runs');
const sim = ['--domains', 'arithmetic', '--model', 'sim', '--out', runs, '--eval-samples', '10', '--quiet'];
const archive = (...args: string[]) => runCli('hyperagents', ['archive', ...args, '--runs', runs]);
const at = (name: string): string => path.join(tmp, name);

/** Unpacks a bundle with the system's tar, as someone inspecting it would. */
function untar(file: string, name: string): string {
  const dir = at(name);
  mkdirSync(dir);
  execFileSync('tar', ['-xzf', file, '-C', dir]);
  return dir;
}

async function loop(...args: string[]): Promise<void> {
  const result = await runCli('generate-loop', [...sim, '--generations', '2', ...args]);
  expect(result.code, result.stderr).toBe(0);
}

let going: ChildProcess | undefined;
afterAll(() => {
  going?.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

beforeAll(async () => {
  await loop('--run-id', 'done', '--seed', '3');
  await loop('--run-id', 'recorded', '--seed', '4', '--record', at('calls.jsonl'));
}, 600_000);

describe('archive bundle and verify on a finished sim run', () => {
  it('packs archive, variants.git, config and a manifest of hashes, domains, models and version', async () => {
    const made = await archive('bundle', 'done', '-o', at('done.tar.gz'));
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`Wrote ${at('done.tar.gz')}: run done (done, 3 variants)`);
    const dir = untar(at('done.tar.gz'), 'done-unpacked');
    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.run).toMatchObject({ id: 'done', state: 'done', seed: 3, metaModel: 'sim', variants: 3 });
    expect(manifest.project.version).toBe('0.1.0');
    expect(manifest.project.commit).toMatch(/^([0-9a-f]{40}|unknown)$/);
    // The sim serves its calls itself: the id it reports is its own.
    expect(manifest.models).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          model: 'sim',
          role: 'meta',
          reported: [{ model: 'sim', calls: expect.any(Number) }],
        }),
      ]),
    );
    expect(manifest.domains).toEqual([
      expect.objectContaining({ name: 'arithmetic', graderVersion: '1', tasks: 30 }),
    ]);
    expect(manifest.recording).toBeNull();
    expect(manifest.files['archive.sqlite'].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(manifest.files)).toContain('variants.git/HEAD');
    // The copy is a whole SQLite file on its own, and variants.git a repository git reads.
    expect(existsSync(path.join(dir, 'archive.sqlite-wal'))).toBe(false);
    const reader = openArchiveReader(path.join(dir, 'archive.sqlite'));
    expect(reader.variants().map((v) => v.id)).toEqual([0, 1, 2]);
    reader.close();
    const log = execFileSync('git', [
      '--git-dir',
      path.join(dir, 'variants.git'),
      'log',
      '--all',
      '--oneline',
    ]);
    expect(log.toString()).toContain('variant 2');
  }, 600_000);

  it('verify re-runs it from the bundle and says it comes out the same', async () => {
    const verified = await archive('verify', at('done.tar.gz'));
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/Files: all \d+ match the manifest's sha256/);
    expect(verified.stdout).toContain('with the simulated model, same seed');
    expect(verified.stdout).toMatch(/The same: 3 variants, their parents, scores and \d+ task results match/);
  }, 600_000);

  it('names the file changed in a bundle, and exits 1', async () => {
    const dir = untar(at('done.tar.gz'), 'tampered');
    appendFileSync(path.join(dir, 'variants.git', 'refs', 'heads', 'variant-1'), 'x');
    execFileSync('tar', ['-czf', at('tampered.tar.gz'), '-C', dir, '.']);
    const verified = await archive('verify', at('tampered.tar.gz'));
    expect(verified.code).toBe(1);
    expect(verified.stdout).toContain('NOT the same');
    expect(verified.stdout).toContain('variants.git/refs/heads/variant-1: changed since the bundle was made');
    expect(verified.stdout).not.toContain('Re-running');
  }, 600_000);

  it('reads a bundle made before reported model ids and data files were kept', async () => {
    const dir = untar(at('done.tar.gz'), 'older');
    const file = path.join(dir, 'manifest.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    delete manifest.data;
    for (const m of manifest.models) delete m.reported;
    writeFileSync(file, JSON.stringify(manifest, null, 2));
    execFileSync('tar', ['-czf', at('older.tar.gz'), '-C', dir, '.']);
    const verified = await archive('verify', at('older.tar.gz'));
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/Models: .*meta sim: \d+ calls/);
    expect(verified.stdout).toContain('The same: 3 variants');
  }, 600_000);

  it('tells a run whose archive was edited from its re-run, naming the variant and the score', async () => {
    cpSync(path.join(runs, 'done'), path.join(runs, 'edited'), { recursive: true });
    const db = new Database(path.join(runs, 'edited', 'archive.sqlite'));
    db.prepare("UPDATE evaluations SET score = 0.95 WHERE variant_id = 1 AND split = 'val'").run();
    db.close();
    expect((await archive('bundle', 'edited', '-o', at('edited.tar.gz'))).code).toBe(0);
    const verified = await archive('verify', at('edited.tar.gz'));
    expect(verified.code).toBe(1);
    expect(verified.stdout).toContain('Files: all');
    expect(verified.stdout).toMatch(
      /variant 1: arithmetic val score 0\.950 in the bundle, 0\.\d+ in the re-run/,
    );
  }, 600_000);
});

describe('archive bundle with a recording', () => {
  it('packs the recording, and verify answers every call of the re-run from it', async () => {
    expect((await archive('bundle', 'recorded', '-o', at('recorded.tar.gz'))).code).toBe(0);
    const dir = untar(at('recorded.tar.gz'), 'recorded-unpacked');
    expect(readFileSync(path.join(dir, 'recording.jsonl'))).toEqual(readFileSync(at('calls.jsonl')));
    const verified = await archive('verify', at('recorded.tar.gz'));
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toContain('every model call answered from its recording');
    expect(verified.stdout).toContain('The same: 3 variants');
  }, 600_000);

  it('of a run with a real model and no recording: checks the hashes, says re-running needs one', async () => {
    cpSync(path.join(runs, 'done'), path.join(runs, 'real'), { recursive: true });
    const db = new Database(path.join(runs, 'real', 'archive.sqlite'));
    const config = JSON.parse((db.prepare('SELECT config FROM runs').get() as { config: string }).config);
    const real = { ...config, metaModel: 'openai/gpt-4o', taskModel: 'openai/gpt-4o' };
    db.prepare('UPDATE runs SET config = ?, meta_model = ?, task_model = ?').run(
      JSON.stringify(real),
      'openai/gpt-4o',
      'openai/gpt-4o',
    );
    db.close();
    expect((await archive('bundle', 'real', '-o', at('real.tar.gz'))).code).toBe(0);
    const verified = await archive('verify', at('real.tar.gz'));
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toContain('Files: all');
    expect(verified.stdout).toContain(
      'Not re-run: the run called openai/gpt-4o, and the bundle holds no recording',
    );
    expect(verified.stdout).toContain('--record FILE');
  }, 600_000);
});

describe('archive bundle of a dataset domain', () => {
  const data = at('data');
  const file = path.join(data, 'sums.jsonl');
  const packed = 'domains/sums/sums.jsonl';

  beforeAll(async () => {
    mkdirSync(data);
    const rows = Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({
        id: `q${i + 1}`,
        question: `What is ${i + 1} + ${i + 1}?`,
        answer: String(2 * i + 2),
      }),
    );
    writeFileSync(file, `${rows.join('\n')}\n`);
    const result = await runCli('generate-loop', [
      ...['--domains', `sums=dataset:${file}`, '--model', 'sim', '--out', runs, '--eval-samples', '10'],
      ...['--quiet', '--generations', '2', '--seed', '6', '--run-id', 'data'],
    ]);
    expect(result.code, result.stderr).toBe(0);
  }, 600_000);

  it('packs the data file with its hash, and verify re-runs from the copy once the original is gone', async () => {
    const made = await archive('bundle', 'data', '-o', at('data.tar.gz'));
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain('with the data files of sums (');
    const dir = untar(at('data.tar.gz'), 'data-unpacked');
    expect(readFileSync(path.join(dir, packed))).toEqual(readFileSync(file));
    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.data).toEqual([{ domain: 'sums', path: packed, files: 1, bytes: statSync(file).size }]);
    expect(manifest.files[packed].sha256).toMatch(/^[0-9a-f]{64}$/);

    renameSync(file, `${file}.moved`);
    try {
      const verified = await archive('verify', at('data.tar.gz'));
      expect(verified.code, verified.stdout + verified.stderr).toBe(0);
      expect(verified.stdout).toContain("Data files: sums read from the bundle's copy.");
      expect(verified.stdout).not.toContain('Note: domain sums');
      expect(verified.stdout).toMatch(
        /The same: 3 variants, their parents, scores and \d+ task results match/,
      );
    } finally {
      renameSync(`${file}.moved`, file);
    }
  }, 600_000);

  it('names a packed data file changed since, and exits 1', async () => {
    const dir = untar(at('data.tar.gz'), 'data-tampered');
    appendFileSync(path.join(dir, packed), '{"id": "q99", "question": "What is 1 + 1?", "answer": "3"}\n');
    execFileSync('tar', ['-czf', at('data-tampered.tar.gz'), '-C', dir, '.']);
    const verified = await archive('verify', at('data-tampered.tar.gz'));
    expect(verified.code).toBe(1);
    expect(verified.stdout).toContain(`${packed}: changed since the bundle was made`);
    expect(verified.stdout).not.toContain('Re-running');
  }, 600_000);

  it('refuses data over 100 MB in one line, and --no-data leaves it out, keeping its hash', async () => {
    renameSync(file, `${file}.kept`);
    try {
      // A sparse file: 101 MB to stat, nothing on disk.
      execFileSync('truncate', ['-s', '101M', file]);
      const refused = await archive('bundle', 'data', '-o', at('big.tar.gz'));
      expect(refused.code, refused.stdout).toBe(2);
      expect(refused.stderr).toContain("the run's data files come to 101.0 MB (sums 101.0 MB)");
      expect(refused.stderr).toContain('Pass --no-data');
      expect(refused.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(at('big.tar.gz'))).toBe(false);
    } finally {
      renameSync(`${file}.kept`, file);
    }
    const made = await archive('bundle', 'data', '-o', at('no-data.tar.gz'), '--no-data');
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain('without data files (--no-data)');
    const dir = untar(at('no-data.tar.gz'), 'no-data-unpacked');
    expect(existsSync(path.join(dir, 'domains'))).toBe(false);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.data).toBeNull();
    expect(manifest.domains).toEqual([
      expect.objectContaining({ name: 'sums', sourceHash: expect.any(String) }),
    ]);
  }, 600_000);
});

describe('archive bundle of a dataset whose file name no tar can hold', () => {
  it('refuses in one line, naming the file and --no-data, and writes nothing', async () => {
    mkdirSync(at('long'), { recursive: true });
    const long = path.join(at('long'), `${'sums-'.repeat(24)}.jsonl`);
    writeFileSync(long, `${JSON.stringify({ question: 'What is 1 + 1?', answer: '2' })}\n`.repeat(12));
    const result = await runCli('generate-loop', [
      ...['--domains', `sums=dataset:${long}`, '--model', 'sim', '--out', runs, '--eval-samples', '4'],
      ...['--quiet', '--generations', '1', '--run-id', 'long-name'],
    ]);
    expect(result.code, result.stderr).toBe(0);
    const refused = await archive('bundle', 'long-name', '-o', at('long-name.tar.gz'));
    expect(refused.code, refused.stdout).toBe(2);
    expect(refused.stderr).toMatch(/sums-sums-.*\.jsonl is too long a path to pack/);
    expect(refused.stderr).toContain('--no-data');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(at('long-name.tar.gz'))).toBe(false);
    const made = await archive('bundle', 'long-name', '-o', at('long-name.tar.gz'), '--no-data');
    expect(made.code, made.stderr).toBe(0);
  }, 600_000);
});

describe('archive bundle of a run that sent alerts', () => {
  it("keeps no webhook path or alert command, and verify sends no alert and runs no bundle's command", async () => {
    let posts = 0;
    const hook = createServer((req, res) => {
      posts++;
      req.resume();
      res.writeHead(200).end();
    });
    hook.listen(0, '127.0.0.1');
    await once(hook, 'listening');
    const { port } = hook.address() as AddressInfo;
    const marker = at('alert-command-ran');
    try {
      await loop(
        ...['--run-id', 'alerted', '--notify', `http://127.0.0.1:${port}/hooks/s3cret-path`],
        ...['--notify-cmd', `touch '${marker}'`],
      );
      expect(posts).toBeGreaterThan(0);
      expect(existsSync(marker)).toBe(true);
      rmSync(marker);

      expect((await archive('bundle', 'alerted', '-o', at('alerted.tar.gz'))).code).toBe(0);
      const dir = untar(at('alerted.tar.gz'), 'alerted-unpacked');
      const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8'));
      expect(config).toMatchObject({
        notifyUrl: `http://127.0.0.1:${port}/…`,
        notifyCmd: '(left out: it may hold a secret)',
      });
      const db = new Database(path.join(dir, 'archive.sqlite'), { readonly: true });
      const stored = (db.prepare('SELECT config FROM runs').get() as { config: string }).config;
      db.close();
      expect(stored).not.toContain('s3cret-path');
      expect(stored).not.toContain(marker);

      // A bundle whose configuration names a command (made by hand, its hashes made to match) re-runs without it.
      config.notifyCmd = `touch '${marker}'`;
      config.notifyUrl = `http://127.0.0.1:${port}/hooks/s3cret-path`;
      const text = `${JSON.stringify(config, null, 2)}\n`;
      writeFileSync(path.join(dir, 'config.json'), text);
      const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
      manifest.files['config.json'] = {
        ...manifest.files['config.json'],
        sha256: createHash('sha256').update(text).digest('hex'),
        bytes: Buffer.byteLength(text),
      };
      writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      execFileSync('tar', ['-czf', at('alerted-edited.tar.gz'), '-C', dir, '.']);
      const before = posts;
      const verified = await archive('verify', at('alerted-edited.tar.gz'));
      expect(verified.stdout).toContain('Re-running');
      expect(verified.code, verified.stdout + verified.stderr).toBe(0);
      expect(existsSync(marker)).toBe(false);
      expect(posts).toBe(before);
    } finally {
      hook.close();
    }
  }, 600_000);
});

describe('archive bundle of a run still going', () => {
  it('packs a consistent copy of its archive, which verify re-runs up to its last finished variant', async () => {
    going = spawn(
      process.execPath,
      [
        path.join(PROJECT_ROOT, 'bin', 'generate-loop.mjs'),
        ...sim,
        '--generations',
        '500',
        '--seed',
        '5',
        '--run-id',
        'going',
      ],
      { stdio: 'ignore', cwd: tmp },
    );
    const exited = new Promise((resolve) => going!.once('exit', resolve));
    const file = path.join(runs, 'going', 'archive.sqlite');
    for (;;) {
      if (existsSync(file)) {
        try {
          const reader = openArchiveReader(file);
          const v = reader.variant(1);
          reader.close();
          if (v !== null && v.outcome !== 'in_progress') break;
        } catch {}
      }
      await sleep(300);
    }
    const made = await archive('bundle', 'going', '-o', at('going.tar.gz'));
    going.kill('SIGINT');
    await exited;
    expect(made.code, made.stderr).toBe(0);
    const dir = untar(at('going.tar.gz'), 'going-unpacked');
    expect(JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')).run.state).toBe('running');
    const db = new Database(path.join(dir, 'archive.sqlite'), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    db.close();
    const verified = await archive('verify', at('going.tar.gz'));
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/Re-running \d+ generation\(s\)/);
    expect(verified.stdout).toContain('The same:');
  }, 900_000);
});

describe('archive bundle and verify refuse bad input with one line and exit 2', () => {
  const refused = async (args: string[], text: string): Promise<void> => {
    const result = await archive(...args);
    expect(result.code, result.stdout).toBe(2);
    expect(result.stderr).toContain(text);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  };

  it('an unknown run, no -o, a folder that is not there, a file already there', async () => {
    await refused(['bundle', 'nosuch', '-o', at('x.tar.gz')], 'no run "nosuch"');
    await refused(['bundle', 'done'], 'archive bundle needs -o FILE');
    await refused(['bundle', 'done', '-o', at('missing/x.tar.gz')], 'there is no folder');
    writeFileSync(at('plain-file'), '');
    await refused(['bundle', 'done', '-o', at('plain-file/x.tar.gz')], 'there is no folder');
    writeFileSync(at('taken.tar.gz'), 'keep me');
    await refused(['bundle', 'done', '-o', at('taken.tar.gz')], 'already exists. Pass --force');
    expect(readFileSync(at('taken.tar.gz'), 'utf8')).toBe('keep me');
    const forced = await archive('bundle', 'done', '-o', at('taken.tar.gz'), '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(statSync(at('taken.tar.gz')).size).toBeGreaterThan(1000);
  }, 600_000);

  it('a missing file, a file that is not a bundle, a tar holding a link', async () => {
    await refused(['verify'], 'archive verify needs FILE');
    await refused(['verify', at('nothing.tar.gz')], 'no such file');
    writeFileSync(at('notes.txt'), 'not a bundle');
    await refused(['verify', at('notes.txt')], 'is not a bundle this version can read: it is not a gzip');
    const linked = at('linked');
    mkdirSync(linked);
    symlinkSync('/etc/passwd', path.join(linked, 'manifest.json'));
    execFileSync('tar', ['-czf', at('linked.tar.gz'), '-C', linked, 'manifest.json']);
    await refused(['verify', at('linked.tar.gz')], 'which is not a plain file');
  }, 600_000);

  it('a manifest pointing a domain at data outside the bundle', async () => {
    const dir = untar(at('done.tar.gz'), 'leading-out');
    const file = path.join(dir, 'manifest.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    manifest.data = [{ domain: 'arithmetic', path: 'domains/arithmetic/../../../etc', files: 1, bytes: 1 }];
    writeFileSync(file, JSON.stringify(manifest));
    execFileSync('tar', ['-czf', at('leading-out.tar.gz'), '-C', dir, '.']);
    await refused(
      ['verify', at('leading-out.tar.gz')],
      'its manifest.json is not one this version reads (data.0.path: a path under domains/, with no . or .. in it)',
    );
  }, 600_000);
});
