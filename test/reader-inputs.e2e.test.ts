import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../archive/testing/synthetic-run.ts';
import { type CliResult, PROJECT_ROOT, runCli } from './run-cli.ts';

/**
 * The readers (archive, serve, report, eval, generate-loop --resume and --from) given a folder or an
 * archive they cannot use: each refuses with exit code 2 and names the folder, flag or file; the full
 * disk cases write on a real 1 MB tmpfs and leave nothing half-written.
 */

const root = mkdtempSync(path.join(tmpdir(), 'reader-inputs-'));
const runs = path.join(root, 'runs');
const SIM = ['--domains', 'arithmetic', '--model', 'sim', '--eval-samples', '4', '--quiet'];
const archiveOf = (run: string): string => path.join(runs, run, 'archive.sqlite');
const hyperagents = (...args: string[]) => runCli('hyperagents', args, {}, root);

/** One paragraph for the user: no stack frame. */
const noTrace = (r: CliResult): void => {
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stderr).not.toContain('HYPERAGENTS_DEBUG');
};

/** A copy of the finished run `good` as `name`, its archive replaced by what `damage` makes of it. */
function damagedCopy(name: string, damage: (file: string) => void): void {
  cpSync(path.join(runs, 'good'), path.join(runs, name), {
    recursive: true,
    filter: (src) => !/archive\.sqlite-(wal|shm)$/.test(src),
  });
  damage(archiveOf(name));
}

const UNREADABLE = (run: string) =>
  `${archiveOf(run)} is not a readable run archive (`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

beforeAll(async () => {
  const good = await runCli(
    'generate-loop',
    [...SIM, '--generations', '1', '--out', runs, '--run-id', 'good'],
    {},
    root,
  );
  expect(good.code, good.stderr).toBe(0);
  damagedCopy('garbage', (file) => writeFileSync(file, Buffer.alloc(8192, 'not an archive ')));
  damagedCopy('truncated', (file) => truncateSync(file, Math.floor(statSync(file).size / 2)));
  damagedCopy('badstep', (file) => {
    const db = new Database(file);
    db.prepare("UPDATE variants SET step = 'bogus' WHERE id = 1").run();
    db.close();
  });
}, 300_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('archive', () => {
  it('refuses a runs folder that is missing or is a file, naming it', async () => {
    const missing = path.join(root, 'nonexistent');
    const gone = await hyperagents('archive', 'list', '--runs', missing);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(`--runs ${missing}: there is no such folder`);
    noTrace(gone);
    const file = path.join(root, 'a-file');
    writeFileSync(file, 'x');
    const notDir = await hyperagents('archive', 'best', '--runs', file);
    expect(notDir.code).toBe(2);
    expect(notDir.stderr).toContain(`--runs ${file} is a file, not a folder of runs`);
    // An empty folder is a folder with no runs, not an error.
    const empty = path.join(root, 'empty');
    mkdirSync(empty);
    const none = await hyperagents('archive', 'list', '--runs', empty);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain('No runs in');
  });

  it('lists a run whose archive is unreadable as such, with the file named; show refuses it', async () => {
    const list = await hyperagents('archive', 'list', '--runs', runs);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^good\s+done\s/m);
    expect(list.stdout).toMatch(/^garbage\s+unreadable\s/m);
    expect(list.stdout).toMatch(/^truncated\s+unreadable\s/m);
    expect(list.stdout).toMatch(new RegExp(`run garbage: ${UNREADABLE('garbage')}file is not a database\\)`));
    expect(list.stdout).toMatch(new RegExp(`run truncated: ${UNREADABLE('truncated')}`));

    const json = JSON.parse((await hyperagents('archive', 'list', '--json', '--runs', runs)).stdout) as {
      id: string;
      state: string;
      archive?: string;
    }[];
    expect(json.find((r) => r.id === 'garbage')).toMatchObject({
      state: 'unreadable',
      archive: archiveOf('garbage'),
    });

    for (const run of ['garbage', 'truncated']) {
      const show = await hyperagents('archive', 'show', `${run}:0`, '--runs', runs);
      expect(show.code).toBe(2);
      expect(show.stderr).toMatch(new RegExp(UNREADABLE(run)));
      expect(show.stderr).toContain('restore it from a copy');
      noTrace(show);
    }
    // Named, an unreadable run is refused; among every run, it is passed over with a warning.
    const named = await hyperagents('archive', 'best', 'garbage', '--runs', runs);
    expect(named.code).toBe(2);
    expect(named.stderr).toMatch(new RegExp(UNREADABLE('garbage')));
    const all = await hyperagents('archive', 'best', '--json', '--runs', runs);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toMatch(new RegExp(`passed over run garbage: ${UNREADABLE('garbage')}`));
    expect(JSON.parse(all.stdout).map((r: { run: string }) => r.run)).toContain('good');
  });

  it.each([['-1'], ['abc'], ['0'], ['1.5']])('best --top %s is a usage error with the range', async (top) => {
    const r = await hyperagents('archive', 'best', '--top', top, '--runs', runs);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--top must be a whole number of at least 1, not /);
    expect(r.stdout).toBe('');
  });

  it('best --top 1 shows one variant', async () => {
    const r = await hyperagents('archive', 'best', 'good', '--top', '1', '--json', '--runs', runs);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(1);
  });

  it('tasks --split bogus names the splits; --domain bogus names the run’s domains', async () => {
    const split = await hyperagents('archive', 'tasks', 'good:0', '--split', 'bogus', '--runs', runs);
    expect(split.code).toBe(2);
    expect(split.stderr).toContain('--split must be one of train, val, test, not "bogus"');
    const domain = await hyperagents('archive', 'tasks', 'good:0', '--domain', 'bogus', '--runs', runs);
    expect(domain.code).toBe(2);
    expect(domain.stderr).toContain('--domain bogus: run good has no such domain (it has arithmetic)');
    const val = await hyperagents('archive', 'tasks', 'good:0', '--split', 'val', '--json', '--runs', runs);
    expect(val.code, val.stderr).toBe(0);
    const rows = JSON.parse(val.stdout) as { split: string }[];
    expect(rows.length).toBe(4);
    expect(rows.every((t) => t.split === 'val')).toBe(true);
  });
});

/** `hyperagents serve --port 0 ...`, stopped with Ctrl-C as soon as it says it serves (which it should not). */
function serve(...args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(PROJECT_ROOT, 'bin', 'hyperagents.mjs'), 'serve', '--port', '0', ...args],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (stdout.includes('Archive browser')) child.kill('SIGINT');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('serve', () => {
  it.each([
    ['a missing folder', () => path.join(root, 'nonexistent'), /there is no such folder/],
    ['a file', () => path.join(root, 'a-file'), /is a file, not a folder of runs/],
  ])('refuses --runs naming %s, and does not start', async (_what, folder, message) => {
    writeFileSync(path.join(root, 'a-file'), 'x');
    const r = await serve('--runs', folder());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--runs ${folder()}`);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).not.toContain('Archive browser');
  });

  it('refuses a --host that does not resolve, naming --host', async () => {
    const r = await serve('--host', '999.1.1.1', '--runs', runs);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--host 999.1.1.1 cannot be served on: it does not resolve');
    expect(r.stderr).toContain('127.0.0.1');
    noTrace(r);
  });
});

describe('report -o', () => {
  it('given a folder, writes report.html inside it and nothing beside it', async () => {
    const outDir = path.join(root, 'reports');
    mkdirSync(outDir);
    const r = await hyperagents('report', 'good', '-o', outDir, '--runs', runs);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Wrote ${path.join(outDir, 'report.html')}`);
    expect(readdirSync(outDir)).toEqual(['report.html']);
    expect(readdirSync(root).filter((name) => name.includes('partial'))).toEqual([]);
    expect(readFileSync(path.join(outDir, 'report.html'), 'utf8')).toContain('id="report-data"');
  });

  it('refuses a folder that does not exist before building anything', async () => {
    const r = await hyperagents('report', 'good', '-o', path.join(root, 'no-such', 'r.html'), '--runs', runs);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`there is no folder ${path.join(root, 'no-such')} to write the report in`);
  });
});

describe('eval, generate-loop --resume and --from on an archive they cannot read', () => {
  const cases = [
    ['garbage', /file is not a database/],
    ['truncated', /damaged|malformed/],
    ['badstep', /variant 1 has step "bogus", which this version does not know/],
  ] as const;

  it.each(cases)(
    '%s: refused with the file named, exit 2, the archive untouched',
    async (run, why) => {
      const before = readFileSync(archiveOf(run));
      const results = [
        await hyperagents(
          'eval',
          `${run}:1`,
          '--domains',
          'arithmetic',
          '--eval-samples',
          '2',
          '--out',
          runs,
        ),
        await runCli('generate-loop', ['--resume', run, '--out', runs, '--quiet'], {}, root),
        await runCli(
          'generate-loop',
          [...SIM, '--from', `${run}:1`, '--out', runs, '--run-id', `from-${run}`],
          {},
          root,
        ),
      ];
      for (const r of results) {
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(new RegExp(UNREADABLE(run)));
        expect(r.stderr).toMatch(why);
        noTrace(r);
      }
      expect(readFileSync(archiveOf(run)).equals(before)).toBe(true);
      expect(readdirSync(runs)).not.toContain(`from-${run}`);
    },
    120_000,
  );

  it('the same commands take the sound archive they were copied from', async () => {
    const evaluated = await hyperagents(
      'eval',
      'good:1',
      '--domains',
      'arithmetic',
      '--split',
      'val',
      '--eval-samples',
      '2',
      '--out',
      runs,
    );
    expect(evaluated.code, evaluated.stderr).toBe(0);
    expect(evaluated.stdout).toMatch(/^variant 1 arithmetic val: \d\.\d{3}$/m);
    const resumed = await runCli(
      'generate-loop',
      ['--resume', 'good', '--generations', '2', '--out', runs, '--quiet'],
      {},
      root,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/^2\s+\d\s/m);
  }, 300_000);
});

/** A 1 MB tmpfs with `room` bytes left free; removed afterwards. Needs root. */
function smallDisk(room: number): { dir: string; unmount: () => void } {
  const dir = mkdtempSync(path.join(root, 'disk-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) throw new Error(`mount -t tmpfs failed: ${mounted.stderr}`);
  const { bavail, bsize } = statfsSync(dir);
  writeFileSync(path.join(dir, 'filler'), Buffer.alloc(Math.max(0, bavail * bsize - room)));
  return { dir, unmount: () => spawnSync('umount', [dir]) };
}

const asRoot = process.getuid?.() === 0;

describe.skipIf(!asRoot)('a full disk (a real 1 MB tmpfs: needs root, skipped otherwise)', () => {
  it('report: a clear message, the old report kept, no partial file left', async () => {
    const disk = smallDisk(64 * 1024);
    try {
      const target = path.join(disk.dir, 'report.html');
      writeFileSync(target, 'the old report');
      const r = await hyperagents('report', 'good', '-o', target, '--runs', runs);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`Cannot write ${target}: no space left on the disk (ENOSPC)`);
      expect(r.stderr).toContain('no partial file is left');
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(readFileSync(target, 'utf8')).toBe('the old report');
      expect(readdirSync(disk.dir).sort()).toEqual(['filler', 'report.html']);
    } finally {
      disk.unmount();
    }
  }, 120_000);

  it('archive export to a file: a clear message, and what it wrote is cut back off', async () => {
    writeSyntheticRun(runs, { id: 'many', variants: 400 });
    writeSyntheticRun(runs, { id: 'few', variants: 3 });
    const disk = smallDisk(64 * 1024);
    try {
      const fresh = path.join(disk.dir, 'export.jsonl');
      const appended = path.join(disk.dir, 'appended.jsonl');
      writeFileSync(appended, 'kept\n');
      for (const [file, flags, before] of [
        [fresh, 'w', ''],
        [appended, 'a', 'kept\n'],
      ] as const) {
        const r = await exportTo(file, flags, 'many');
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(
          `Cannot write ${file} (standard output): no space left on the disk (ENOSPC)`,
        );
        expect(r.stderr).toContain('What was written of it was removed');
        expect(r.stderr).not.toMatch(/^\s+at /m);
        expect(readFileSync(file, 'utf8')).toBe(before);
      }
      // With room, the same export is whole: one line per variant.
      const small = await exportTo(fresh, 'w', 'few');
      expect(small.code, small.stderr).toBe(0);
      expect(readFileSync(fresh, 'utf8').trim().split('\n')).toHaveLength(3);
    } finally {
      disk.unmount();
    }
  }, 120_000);
});

/** `hyperagents archive export RUN --format jsonl > file` (or `>>` with flags 'a'). */
function exportTo(
  file: string,
  flags: 'w' | 'a',
  run: string,
): Promise<{ code: number | null; stderr: string }> {
  const fd = openSync(file, flags);
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        path.join(PROJECT_ROOT, 'bin', 'hyperagents.mjs'),
        'archive',
        'export',
        run,
        '--format',
        'jsonl',
        '--runs',
        runs,
      ],
      { cwd: root, stdio: ['ignore', fd, 'pipe'] },
    );
    closeSync(fd);
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}
