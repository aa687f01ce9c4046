import { createWriteStream, openSync, readFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

/*
 * A gzip-compressed tar (ustar) of plain files, written with Node alone: no links, devices or other special
 * entries are ever written. tar-read.ts reads them back.
 */

export const BLOCK = 512;

/** One file to pack: its name in the tar (forward slashes, relative) and its bytes. */
export interface TarEntry {
  name: string;
  bytes: Buffer;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  let prefix = '';
  let base = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    if (cut <= 0 || Buffer.byteLength(name.slice(cut + 1)) > 100) throw new TarNameError(name);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
  }
  block.write(base, 0, 100, 'utf8');
  block.write(octal(0o644, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii');
  block.write(octal(0, 8), 116, 'ascii');
  block.write(octal(size, 12), 124, 'ascii');
  block.write(octal(Math.floor(Date.now() / 1000), 12), 136, 'ascii');
  block.fill(' ', 148, 156);
  block.write('0', 156, 'ascii');
  block.write('ustar\u000000', 257, 'ascii');
  block.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

/**
 * Writes the entries as a .tar.gz to `file`, which must not exist yet (`wx`). Each entry's bytes are taken
 * when it comes: `entries` may read its files lazily, in the order it yields them.
 */
export async function writeTarGz(file: string, entries: Iterable<TarEntry>): Promise<void> {
  // Opened here, so a path that cannot be written fails at once, before anything is read.
  const fd = openSync(file, 'wx');
  const gzip = createGzip();
  const done = pipeline(gzip, createWriteStream('', { fd }));
  // Awaited below; a failure while writing also fails the write under way.
  done.catch(() => undefined);
  const write = (chunk: Buffer): Promise<void> =>
    new Promise((resolve, reject) => {
      gzip.write(chunk, (error) => (error ? reject(error) : resolve()));
    });
  try {
    for (const entry of entries) {
      await write(header(entry.name, entry.bytes.length));
      await write(entry.bytes);
      const pad = (BLOCK - (entry.bytes.length % BLOCK)) % BLOCK;
      if (pad > 0) await write(Buffer.alloc(pad));
    }
    await write(Buffer.alloc(2 * BLOCK));
  } catch (error) {
    gzip.destroy(error as Error);
    await done.catch(() => undefined);
    throw await done.then(
      () => error,
      (failed: unknown) => failed,
    );
  }
  gzip.end();
  await done;
}

/** A file whose path is too long for a tar header (a name over 100 bytes after its last cut, 255 in all). */
export class TarNameError extends Error {
  override name = 'TarNameError';
  constructor(readonly path: string) {
    super(`${path}: a name this long cannot be stored in a tar`);
  }
}

/** Reads a file whole; the form entries take. */
export const fileEntry = (name: string, file: string): TarEntry => ({ name, bytes: readFileSync(file) });
