import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeTarGz } from './tar.ts';
import { readTarGz as readWithin, TarLimitError, type UnpackLimits } from './tar-read.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'tar-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const ROOMY: UnpackLimits = { fileBytes: 1024 ** 3, totalBytes: 1024 ** 3, ratio: 100_000, entries: 1000 };
const readTarGz = (file: string, dir: string, limits = ROOMY) => readWithin(file, dir, limits);
let n = 0;
const fresh = (): string => {
  const dir = path.join(tmp, `d${n++}`);
  mkdirSync(dir);
  return dir;
};

describe('writeTarGz and readTarGz', () => {
  const entries = [
    { name: 'manifest.json', bytes: Buffer.from('{}\n') },
    { name: 'empty', bytes: Buffer.alloc(0) },
    { name: 'block', bytes: Buffer.alloc(512, 7) },
    { name: `${'deep/'.repeat(30)}long-name-${'x'.repeat(60)}`, bytes: Buffer.from('far down') },
  ];

  it('round-trips plain files, long names included, and the system tar reads what it writes', async () => {
    const file = path.join(tmp, 'round.tar.gz');
    await writeTarGz(file, entries);
    const dir = fresh();
    expect((await readTarGz(file, dir)).files.map((f) => f.name).sort()).toEqual(
      entries.map((e) => e.name).sort(),
    );
    for (const e of entries) expect(readFileSync(path.join(dir, e.name))).toEqual(e.bytes);
    const listed = execFileSync('tar', ['-tzf', file], { encoding: 'utf8' }).trim().split('\n');
    expect(listed.sort()).toEqual(entries.map((e) => e.name).sort());
  });

  it('refuses to overwrite a file', async () => {
    const file = path.join(tmp, 'taken');
    writeFileSync(file, 'mine');
    await expect(writeTarGz(file, entries)).rejects.toThrow(/EEXIST/);
    expect(readFileSync(file, 'utf8')).toBe('mine');
  });

  it.each([
    [
      'a link',
      (dir: string) => symlinkSync('/etc/passwd', path.join(dir, 'link')),
      ['link'],
      /not a plain file/,
    ],
    [
      'a name leading out',
      (dir: string) => writeFileSync(path.join(dir, 'x'), 'x'),
      ['-P', '../x'],
      /outside/,
    ],
  ])('refuses a tar holding %s', async (_what, make, names, message) => {
    const src = fresh();
    const inner = path.join(src, 'in');
    mkdirSync(inner);
    make(names[0] === '-P' ? src : inner);
    const file = path.join(tmp, `bad-${n}.tar.gz`);
    execFileSync('tar', ['-czf', file, '-C', inner, ...names]);
    await expect(readTarGz(file, fresh())).rejects.toThrow(message);
  });

  it('says a file that is not gzip, or a tar cut short, is one', async () => {
    const text = path.join(tmp, 'text');
    writeFileSync(text, 'hello');
    await expect(readTarGz(text, fresh())).rejects.toThrow(/not a gzip-compressed tar/);
    const whole = path.join(tmp, 'whole.tar.gz');
    await writeTarGz(whole, entries);
    const raw = execFileSync('gzip', ['-dc', whole]);
    const cut = path.join(tmp, 'cut.tar.gz');
    writeFileSync(cut, execFileSync('gzip', ['-c'], { input: raw.subarray(0, 700) }));
    await expect(readTarGz(cut, fresh())).rejects.toThrow(/cut short/);
  });

  it('refuses a tar over a limit before writing past it, naming the limit', async () => {
    const file = path.join(tmp, 'limits.tar.gz');
    await writeTarGz(file, [
      { name: 'small', bytes: Buffer.from('x') },
      { name: 'zeros', bytes: Buffer.alloc(4 * 1024 * 1024) },
    ]);
    const over = async (limits: Partial<UnpackLimits>, limit: string, message: RegExp) => {
      const dir = fresh();
      const error = await readTarGz(file, dir, { ...ROOMY, ...limits }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TarLimitError);
      expect((error as TarLimitError).limit).toBe(limit);
      expect(String(error)).toMatch(message);
      return dir;
    };
    const big = await over(
      { fileBytes: 1024 * 1024 },
      'fileBytes',
      /zeros of 4\.0 MB, more than the 1\.0 MB/,
    );
    expect(readdirSync(big)).toEqual(['small']);
    await over({ totalBytes: 2 * 1024 * 1024 }, 'totalBytes', /more than the 2\.0 MB a bundle may unpack to/);
    await over({ entries: 1 }, 'entries', /more than 1 files and folders/);
    await over({ ratio: 2 }, 'ratio', /more than 2 times its size/);
    const whole = await readTarGz(file, fresh());
    expect(whole.files.map((f) => [f.name, f.bytes])).toEqual([
      ['small', 1],
      ['zeros', 4 * 1024 * 1024],
    ]);
    expect(whole.files[0]!.sha256).toBe(createHash('sha256').update('x').digest('hex'));
    expect(whole.sha256).toBe(createHash('sha256').update(readFileSync(file)).digest('hex'));
  });
});
