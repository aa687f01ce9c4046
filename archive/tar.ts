import {
  createReadStream,
  createWriteStream,
  mkdirSync,
  openSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';

/*
 * A gzip-compressed tar (ustar) of plain files, written and read with Node alone: no links, devices or
 * other special entries are ever written, and reading refuses them and any name that could leave the
 * folder it unpacks into.
 */

const BLOCK = 512;
/** A name longer than the ustar header holds (prefix 155 + "/" + name 100); never made by a bundle. */
const MAX_NAME = 255;

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

/** A tar that cannot be unpacked safely or at all; the message says why. */
/** A file whose path is too long for a tar header (a name over 100 bytes after its last cut, 255 in all). */
export class TarNameError extends Error {
  override name = 'TarNameError';
  constructor(readonly path: string) {
    super(`${path}: a name this long cannot be stored in a tar`);
  }
}

export class BadTarError extends Error {
  override name = 'BadTarError';
}

const text = (block: Buffer, from: number, length: number): string => {
  const field = block.subarray(from, from + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? length : end).toString('utf8');
};

/** A member name as a safe relative path, or a BadTarError naming it. */
function safeName(name: string): string {
  // `tar -C dir .` writes every name under "./".
  const trimmed = name.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  const parts = trimmed.split('/');
  if (
    trimmed === '' ||
    trimmed.length > MAX_NAME ||
    trimmed.startsWith('/') ||
    parts.some((p) => p === '' || p === '.' || p === '..') ||
    trimmed.includes('\\')
  )
    throw new BadTarError(`it holds an entry named "${name}", which could write outside its folder`);
  return trimmed;
}

/**
 * Unpacks a .tar.gz into `dir` (which exists): plain files and folders only. Returns the names of the files
 * written. Throws a BadTarError for a file that is not gzip, a damaged tar, a link or special file, or a
 * name that could lead out of `dir`.
 */
export async function readTarGz(file: string, dir: string): Promise<string[]> {
  const names: string[] = [];
  let buffered: Buffer = Buffer.alloc(0);
  let pending: { name: string; size: number; chunks: Buffer[]; got: number } | null = null;
  let skip = 0;
  let ended = false;
  const take = (chunk: Buffer): void => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    for (;;) {
      if (ended) return;
      if (skip > 0) {
        const n = Math.min(skip, buffered.length);
        buffered = buffered.subarray(n);
        skip -= n;
        if (skip > 0) return;
      }
      if (pending !== null) {
        const n = Math.min(pending.size - pending.got, buffered.length);
        pending.chunks.push(buffered.subarray(0, n));
        pending.got += n;
        buffered = buffered.subarray(n);
        if (pending.got < pending.size) return;
        const target = path.join(dir, pending.name);
        mkdirSync(path.dirname(target), { recursive: true });
        writeFileSync(target, Buffer.concat(pending.chunks), { flag: 'wx' });
        names.push(pending.name);
        skip = (BLOCK - (pending.size % BLOCK)) % BLOCK;
        pending = null;
        continue;
      }
      if (buffered.length < BLOCK) return;
      const block = buffered.subarray(0, BLOCK);
      buffered = buffered.subarray(BLOCK);
      if (block.every((b) => b === 0)) {
        ended = true;
        return;
      }
      let sum = 0;
      for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (block[i] ?? 0);
      if (Number.parseInt(text(block, 148, 8).trim(), 8) !== sum)
        throw new BadTarError('it is damaged (a tar header does not add up)');
      const prefix = text(block, 345, 155);
      const raw = prefix === '' ? text(block, 0, 100) : `${prefix}/${text(block, 0, 100)}`;
      const size = Number.parseInt(text(block, 124, 12).trim() || '0', 8);
      const type = String.fromCharCode(block[156] ?? 0);
      if (type === '5') {
        if (raw !== '.' && raw !== './') mkdirSync(path.join(dir, safeName(raw)), { recursive: true });
        continue;
      }
      const name = safeName(raw);
      if (type !== '0' && type !== '\0')
        throw new BadTarError(`it holds "${name}", which is not a plain file (a link or a special file)`);
      pending = { name, size, chunks: [], got: 0 };
    }
  };
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      try {
        take(chunk);
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
  try {
    await pipeline(createReadStream(file), createGunzip(), sink);
  } catch (error) {
    if (error instanceof BadTarError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') throw new BadTarError('it holds the same file twice');
    if (code.startsWith('Z_'))
      throw new BadTarError(`it is not a gzip-compressed tar (${(error as Error).message})`);
    throw error;
  }
  if (pending !== null || !ended) throw new BadTarError('it is cut short');
  return names;
}

/** Reads a file whole; the form entries take. */
export const fileEntry = (name: string, file: string): TarEntry => ({ name, bytes: readFileSync(file) });
