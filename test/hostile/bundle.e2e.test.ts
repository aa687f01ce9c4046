import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, PROJECT_ROOT, runCli } from '../run-cli.ts';
import { repack, unpackWithTar, writeRawTarGz, writeZerosBomb } from './bundle-fixture.ts';

/*
 * A bundle is what a user downloads from someone else's paper or issue to check a result: the most hostile
 * input the project reads. Each case is a bundle an attacker could hand out; verify must refuse or contain it,
 * say so in one line, and leave nothing behind: no file outside its temporary folder, no temporary folder.
 */

const tmp = mkdtempSync(path.join(tmpdir(), 'hostile-bundle-'));
/** Where verify makes its temporary folder (TMPDIR): empty again after every case. */
const scratch = path.join(tmp, 'scratch');
const at = (name: string): string => path.join(tmp, name);
const good = at('good.tar.gz');
let fresh = 0;
/** The honest bundle unpacked anew, to edit. */
const unpacked = (): string => unpackWithTar(good, at(`edit-${fresh++}`));

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

beforeAll(async () => {
  mkdirSync(scratch);
  const runs = at('runs');
  const loop = await runCli('generate-loop', [
    ...['--domains', 'arithmetic', '--model', 'sim', '--out', runs, '--eval-samples', '5'],
    ...['--generations', '1', '--run-id', 'honest', '--seed', '7', '--quiet'],
  ]);
  expect(loop.code, loop.stderr).toBe(0);
  const made = await runCli('hyperagents', ['archive', 'bundle', 'honest', '-o', good, '--runs', runs]);
  expect(made.code, made.stderr).toBe(0);
}, 300_000);

/**
 * `hyperagents archive verify` with its temporary folder under `scratch`, its peak memory (VmHWM, read from
 * /proc while it runs) in bytes beside its result.
 */
async function verify(bundle: string, ...flags: string[]): Promise<CliResult & { peakBytes: number }> {
  const child = spawn(
    process.execPath,
    [path.join(PROJECT_ROOT, 'bin', 'hyperagents.mjs'), 'archive', 'verify', bundle, ...flags],
    { cwd: tmp, env: { ...process.env, TMPDIR: scratch }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  let peakBytes = 0;
  const watch = setInterval(() => {
    try {
      const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
      if (kb !== undefined) peakBytes = Math.max(peakBytes, Number(kb) * 1024);
    } catch {
      // gone
    }
  }, 20);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(watch);
  return { code, stdout, stderr, peakBytes };
}

/** Refused as not a bundle: exit 2, one line naming why, no stack, nothing left in the scratch folder. */
async function refused(
  bundle: string,
  why: string | RegExp,
  ...flags: string[]
): Promise<CliResult & { peakBytes: number }> {
  const result = await verify(bundle, ...flags);
  expect(result.code, result.stdout + result.stderr).toBe(2);
  expect(result.stderr).toMatch(why);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(readdirSync(scratch)).toEqual([]);
  return result;
}

describe('archive verify on an honest bundle', () => {
  it('still says "The same", printing the sha256 of the bundle and of its manifest', async () => {
    const result = await verify(good);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const whole = createHash('sha256').update(readFileSync(good)).digest('hex');
    expect(result.stdout).toContain(`Bundle sha256 ${whole}\n`);
    const manifest = readFileSync(path.join(unpacked(), 'manifest.json'));
    expect(result.stdout).toContain(
      `Manifest sha256 ${createHash('sha256').update(manifest).digest('hex')}\n`,
    );
    expect(result.stdout).toContain('The same:');
    expect(readdirSync(scratch)).toEqual([]);
  }, 300_000);
});

describe('archive verify refuses a manifest that names what the tar did not hold', () => {
  it('a run id that leads out of its folder: nothing is written outside, no run resumed', async () => {
    const dir = unpacked();
    const victim = path.join(path.dirname(tmp), `victim-${path.basename(tmp)}`);
    const relative = path.relative(path.join(scratch, 'hyperagents-verify-x', 'runs'), victim);
    repack(dir, at('run-id.tar.gz'), (m) => {
      (m.run as { id: string }).id = relative;
    });
    await refused(at('run-id.tar.gz'), /not a bundle this version can read: .*run\.id: a plain name/);
    expect(existsSync(victim)).toBe(false);
  }, 120_000);

  it('a file name outside the bundle: no answer says whether a file of this disk has some hash', async () => {
    const secret = at('secret.txt');
    writeFileSync(secret, 'the verifier keeps this to themselves\n');
    const right = createHash('sha256').update(readFileSync(secret)).digest('hex');
    const answers: string[] = [];
    for (const [i, hash] of [right, '0'.repeat(64)].entries()) {
      const dir = unpacked();
      const manifestFile = path.join(dir, 'manifest.json');
      const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
      manifest.files[path.relative(dir, secret)] = { sha256: hash, bytes: 38 };
      writeFileSync(manifestFile, JSON.stringify(manifest));
      const bundle = at(`oracle-${i}.tar.gz`);
      repack(dir, bundle);
      const result = await refused(
        bundle,
        /its manifest\.json names ".*secret\.txt", which is not a file a bundle holds/,
      );
      answers.push(result.stderr.replace(bundle, 'BUNDLE'));
    }
    expect(answers[0]).toBe(answers[1]);
  }, 120_000);

  it('a name that reaches /dev/zero: refused at once, not read', async () => {
    const dir = unpacked();
    const manifestFile = path.join(dir, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    manifest.files['variants.git/objects/../../../../../../../dev/zero'] = {
      sha256: '0'.repeat(64),
      bytes: 1,
    };
    writeFileSync(manifestFile, JSON.stringify(manifest));
    repack(dir, at('dev-zero.tar.gz'));
    const started = Date.now();
    const result = await refused(at('dev-zero.tar.gz'), /dev\/zero", which is not a file a bundle holds/);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(result.peakBytes).toBeLessThan(512 * 1024 * 1024);
  }, 120_000);

  it('a file the manifest lists that the tar lacks, and a file the tar holds that it does not list', async () => {
    const lacking = unpacked();
    repack(lacking, at('lacking.tar.gz'), (m) => {
      m.files['variants.git/refs/heads/planted'] = { sha256: '0'.repeat(64), bytes: 41 };
    });
    await refused(
      at('lacking.tar.gz'),
      'lists variants.git/refs/heads/planted, which the bundle does not hold',
    );
    const extra = unpacked();
    writeFileSync(path.join(extra, 'variants.git', 'refs', 'heads', 'planted'), `${'a'.repeat(40)}\n`);
    repack(extra, at('extra.tar.gz'));
    await refused(
      at('extra.tar.gz'),
      'holds variants.git/refs/heads/planted, which its manifest.json does not list',
    );
  }, 120_000);
});

describe('archive verify refuses a tar holding what no bundle holds', () => {
  const manifest = Buffer.from('{}');
  it.each([
    ['a symbolic link', [{ name: 'manifest.json', type: '2', link: '/etc/passwd' }], 'a symbolic link'],
    ['a hard link', [{ name: 'manifest.json', type: '1', link: '/etc/passwd' }], 'a hard link'],
    ['a character device', [{ name: 'archive.sqlite', type: '3' }], 'a character device'],
    ['a block device', [{ name: 'archive.sqlite', type: '4' }], 'a block device'],
    ['a named pipe', [{ name: 'archive.sqlite', type: '6' }], 'a named pipe'],
    [
      'the same name twice',
      [
        { name: 'manifest.json', data: manifest },
        { name: './manifest.json', data: manifest },
      ],
      'holds "manifest.json" twice',
    ],
    [
      'a name both a file and a folder',
      [
        { name: 'variants.git/refs', data: manifest },
        { name: 'variants.git/refs/heads/x', data: manifest },
      ],
      'both as a file and as a folder',
    ],
    ['a name leading out', [{ name: '../escaped', data: manifest }], 'could write outside its folder'],
    ['an absolute name', [{ name: '/tmp/escaped', data: manifest }], 'could write outside its folder'],
    [
      'a file larger than one may be, refused from its header',
      [{ name: 'config.json', size: 8 ** 11 }],
      /of 8\.0 GB, more than the 2\.0 GB one file may have\. .*--max-file-mb \(now 2048\)/,
    ],
  ])('%s', async (_what, entries, why) => {
    const bundle = at(`raw-${fresh++}.tar.gz`);
    writeRawTarGz(bundle, entries);
    await refused(bundle, why);
    expect(existsSync(path.join(path.dirname(tmp), 'escaped'))).toBe(false);
  });
});

describe('archive verify unpacks within limits', () => {
  it('refuses a 2 GiB bomb of zeros before writing past its limit, in little memory, leaving nothing', async () => {
    const bomb = at('bomb.tar.gz');
    await writeZerosBomb(bomb, 'archive.sqlite', 2 * 1024 ** 3);
    const result = await refused(
      bomb,
      /unpacks to more than 200 times its size.*raise the limit with --max-ratio/,
    );
    expect(result.peakBytes).toBeGreaterThan(0);
    expect(result.peakBytes).toBeLessThan(512 * 1024 * 1024);
    // A larger file than the limit allows is refused from its header, before a byte of it is written.
    const big = await refused(
      bomb,
      /holds archive\.sqlite of 2\.0 GB, more than .*--max-file-mb/,
      '--max-file-mb',
      '100',
    );
    expect(big.peakBytes).toBeLessThan(512 * 1024 * 1024);
  }, 300_000);

  it('names the flag that raises a limit an honest bundle passes, and the limit as it is', async () => {
    await refused(
      good,
      /more than 5 files and folders\. .*raise the limit with --max-files \(now 5\)/,
      '--max-files',
      '5',
    );
    const bad = await verify(good, '--max-ratio', 'lots');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-ratio must be a whole number of at least 1');
  }, 120_000);
});

describe('archive verify reads a hostile archive.sqlite only as this version writes one', () => {
  const withArchive = async (name: string, change: (db: Database.Database) => void): Promise<string> => {
    const dir = unpacked();
    const db = new Database(path.join(dir, 'archive.sqlite'));
    change(db);
    db.close();
    repack(dir, at(name));
    return at(name);
  };

  it('a view in place of a table, a trigger, a table of its own: refused before a query runs', async () => {
    const view = await withArchive('view.tar.gz', (db) => {
      db.exec('ALTER TABLE variants RENAME TO variants_old');
      db.exec(
        'CREATE VIEW variants AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT * FROM variants_old, n',
      );
    });
    await refused(view, /archive\.sqlite is not safe to read: its .* is not the one hyperagents makes/);
    const trigger = await withArchive('trigger.tar.gz', (db) =>
      db.exec('CREATE TRIGGER t AFTER INSERT ON events BEGIN DELETE FROM variants; END'),
    );
    await refused(trigger, /its trigger t is not the one hyperagents makes/);
  }, 120_000);

  it('a cell too large to read: refused without reading it', async () => {
    const huge = await withArchive('cell.tar.gz', (db) =>
      // Random text, which compresses as little as a real archive does.
      db.prepare('UPDATE runs SET config = ?').run(randomBytes(40 * 1024 * 1024).toString('hex')),
    );
    const result = await refused(huge, /its table runs holds a value of \d+ bytes, more than any run writes/);
    expect(result.peakBytes).toBeLessThan(512 * 1024 * 1024);
  }, 120_000);

  it('a file that is not SQLite at all', async () => {
    const dir = unpacked();
    writeFileSync(path.join(dir, 'archive.sqlite'), 'not a database'.repeat(100));
    repack(dir, at('not-sqlite.tar.gz'));
    await refused(at('not-sqlite.tar.gz'), /archive\.sqlite is not safe to read/);
  }, 120_000);
});

describe("archive verify treats the bundle's configuration as data", () => {
  const withConfig = (name: string, change: (config: Record<string, unknown>) => void): string => {
    const dir = unpacked();
    const file = path.join(dir, 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8'));
    change(config);
    writeFileSync(file, JSON.stringify(config));
    repack(dir, at(name));
    return at(name);
  };
  const notRerun = async (bundle: string, why: string | RegExp): Promise<void> => {
    const result = await verify(bundle);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('Files: all');
    expect(result.stdout).toMatch(why);
    expect(result.stdout).not.toContain('Re-running');
    expect(readdirSync(scratch)).toEqual([]);
  };

  it('a module: domain on this disk is never loaded', async () => {
    const marker = at('module-ran');
    const module = at('evil-domain.ts');
    writeFileSync(
      module,
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\n`,
    );
    const bundle = withConfig('module.tar.gz', (c) => {
      c.domains = [`evil=module:${module}`];
    });
    await notRerun(bundle, /Not re-run: domain evil is the module .*which verify never runs/);
    expect(existsSync(marker)).toBe(false);
  }, 120_000);

  it('a dataset: file on this disk, or a prompt template there, is never read', async () => {
    const local = at('private.jsonl');
    writeFileSync(local, '{"question": "q", "answer": "a"}\n');
    const data = withConfig('dataset.tar.gz', (c) => {
      c.domains = [`private=dataset:${local}`];
    });
    await notRerun(
      data,
      /Not re-run: the bundle holds no copy of the data of domain private .*reads no file outside the bundle/,
    );
    const template = withConfig('template.tar.gz', (c) => {
      c.dataset = { promptTemplate: at('secret.txt') };
    });
    await notRerun(
      template,
      /Not re-run: the run's prompt template is the file .*secret\.txt, outside the bundle/,
    );
  }, 120_000);

  it('a real model with no usable recording is never called, whatever keys this machine has', async () => {
    const bundle = withConfig('real-model.tar.gz', (c) => {
      c.metaModel = 'openai/gpt-4o';
      c.taskModel = 'openai/gpt-4o';
    });
    const result = await runCli('hyperagents', ['archive', 'verify', bundle], {
      OPENAI_API_KEY: 'sk-verifier-key-that-must-not-be-used',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      TMPDIR: scratch,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /Not re-run: the run called openai\/gpt-4o, and the bundle holds no recording/,
    );
    expect(readdirSync(scratch)).toEqual([]);
  }, 120_000);
});

describe('archive verify leaves no temporary folder when stopped', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)(
    '%s during the re-run: exit %i, its folder and its re-run gone',
    async (signal, code) => {
      const own = mkdtempSync(path.join(tmp, 'signal-'));
      cpSync(good, path.join(own, 'b.tar.gz'));
      const child = spawn(
        process.execPath,
        [path.join(PROJECT_ROOT, 'bin', 'hyperagents.mjs'), 'archive', 'verify', path.join(own, 'b.tar.gz')],
        { cwd: own, env: { ...process.env, TMPDIR: own }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
      });
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      const deadline = Date.now() + 120_000;
      while (!stdout.includes('Re-running') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(stdout).toContain('Re-running');
      const folder = readdirSync(own).find((n) => n.startsWith('hyperagents-verify-'));
      expect(folder).toBeDefined();
      child.kill(signal);
      expect(await closed).toBe(code);
      expect(readdirSync(own).sort()).toEqual(['b.tar.gz']);
    },
    300_000,
  );
});
