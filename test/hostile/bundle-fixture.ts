import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { createGzip, gzipSync } from 'node:zlib';

/*
 * Bundles an attacker would hand out: tars written byte by byte (so they can hold what no honest tool writes),
 * a tar of zeros that unpacks to gigabytes, and honest bundles edited with their hashes made to match again.
 */

const BLOCK = 512;

/** One member of a hand-made tar: its header's name, type flag, size and link name as given, and its data. */
export interface RawEntry {
  name: string;
  /** The ustar type flag: '0' a file, '1' a hard link, '2' a symbolic link, '3'/'4' a device, '6' a fifo. */
  type?: string;
  data?: Buffer;
  /** The size the header declares; the data's length unless given. */
  size?: number;
  link?: string;
}

function header(entry: RawEntry): Buffer {
  const block = Buffer.alloc(BLOCK);
  const size = entry.size ?? entry.data?.length ?? 0;
  block.write(entry.name, 0, 100, 'utf8');
  block.write('0000644\0', 100, 'ascii');
  block.write('0000000\0', 108, 'ascii');
  block.write('0000000\0', 116, 'ascii');
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  block.write('00000000000\0', 136, 'ascii');
  block.fill(' ', 148, 156);
  block.write(entry.type ?? '0', 156, 'ascii');
  if (entry.link !== undefined) block.write(entry.link, 157, 100, 'utf8');
  block.write('ustar\u000000', 257, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

const padding = (size: number): Buffer => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/** A .tar.gz of exactly these members, written to `file`. */
export function writeRawTarGz(file: string, entries: readonly RawEntry[]): void {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const data = entry.data ?? Buffer.alloc(0);
    parts.push(header(entry), data, padding(data.length));
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  writeFileSync(file, gzipSync(Buffer.concat(parts)));
}

/** A .tar.gz whose one member, `name`, is `bytes` zero bytes: a few MB that unpack to all of them. */
export async function writeZerosBomb(file: string, name: string, bytes: number): Promise<void> {
  const gzip = createGzip({ level: 9 });
  const out = createWriteStream(file);
  gzip.pipe(out);
  const write = (chunk: Buffer): Promise<void> =>
    new Promise((resolve) => {
      if (gzip.write(chunk)) resolve();
      else gzip.once('drain', resolve);
    });
  await write(header({ name, size: bytes }));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let left = bytes; left > 0; left -= zeros.length)
    await write(zeros.subarray(0, Math.min(left, zeros.length)));
  await write(Buffer.alloc(2 * BLOCK));
  gzip.end();
  await finished(out);
}

/** An honest bundle unpacked into `dir` (with the system's tar, as a person would). */
export function unpackWithTar(bundle: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-xzf', bundle, '-C', dir]);
  return dir;
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Packs the unpacked bundle in `dir` again as `file`, after `edit` changed its files and manifest: every
 * file the manifest lists gets its hash and size as it is now, so the bundle passes the hash check and what
 * it holds is read.
 */
export function repack(
  dir: string,
  file: string,
  edit: (manifest: Record<string, unknown> & { files: Record<string, unknown> }) => void = () => undefined,
): void {
  const manifestFile = path.join(dir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  edit(manifest);
  for (const name of Object.keys(manifest.files)) {
    // A name the edit made to lead out of the folder keeps the hash it was given.
    if (path.relative(dir, path.join(dir, name)).startsWith('..')) continue;
    try {
      const bytes = readFileSync(path.join(dir, name));
      manifest.files[name] = { sha256: sha256(bytes), bytes: bytes.length };
    } catch {
      // a name the edit made up: left as it is
    }
  }
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  execFileSync('tar', ['-czf', file, '-C', dir, '.']);
}
