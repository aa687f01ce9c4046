import { createHash } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { BLOCK } from './tar.ts';

/*
 * Reads a gzip-compressed tar that may come from anyone: streamed to disk a piece at a time (memory stays flat
 * whatever its size), plain files and folders only, every name kept inside the folder it unpacks into, and
 * limits on sizes checked before the bytes they count are written.
 */

/** A name longer than the ustar header holds (prefix 155 + "/" + name 100); never made by a bundle. */
const MAX_NAME = 255;

/** What an unpacked tar may hold; each is checked before what it counts is written. */
export interface UnpackLimits {
  /** The largest file, in bytes. */
  fileBytes: number;
  /** All files together, in bytes. */
  totalBytes: number;
  /** Bytes unpacked per byte of the .tar.gz read so far (once past RATIO_GRACE_BYTES). */
  ratio: number;
  /** Files and folders. */
  entries: number;
}

/** Bytes any tar may unpack before the ratio is checked: its headers alone compress far better than data. */
export const RATIO_GRACE_BYTES = 1024 * 1024;

/** A tar that cannot be unpacked safely or at all; the message says why. */
export class BadTarError extends Error {
  override name = 'BadTarError';
}

/** A tar that holds more than a limit allows; `limit` names which, the message what was found. */
export class TarLimitError extends Error {
  override name = 'TarLimitError';
  constructor(
    readonly limit: keyof UnpackLimits,
    message: string,
  ) {
    super(message);
  }
}

/** A file as it was unpacked: its name in the tar, its size and its sha256, taken while it was written. */
export interface UnpackedFile {
  name: string;
  bytes: number;
  sha256: string;
}

export interface Unpacked {
  /** The files, in the order the tar holds them. */
  files: UnpackedFile[];
  /** The sha256 of the .tar.gz itself, and its size in bytes. */
  sha256: string;
  packedBytes: number;
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

const ENTRY_KINDS: Record<string, string> = {
  '1': 'a hard link',
  '2': 'a symbolic link',
  '3': 'a character device',
  '4': 'a block device',
  '6': 'a named pipe',
  '7': 'a contiguous file',
  x: 'an extended header',
  g: 'a global extended header',
  L: 'a long name record',
  K: 'a long link record',
};

/** Bytes as a person reads them: KB under a megabyte, MB under a gigabyte, else GB. Pure. */
export function sizeText(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.ceil(bytes / 1024)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}

/**
 * Unpacks a .tar.gz into `dir` (which exists and is empty): plain files and folders only, each file written
 * as it streams in (never whole in memory) and hashed on the way. Throws a BadTarError for a file that is not
 * gzip, a damaged tar, a link or special file, a name that could lead out of `dir` or a name held twice; a
 * TarLimitError, before writing past it, for a tar over one of `limits`; an AbortError once `signal` aborts.
 */
// Over 80 lines: one streaming reader whose steps share the header, the open file and the counts.
export async function readTarGz(
  file: string,
  dir: string,
  limits: UnpackLimits,
  signal?: AbortSignal,
): Promise<Unpacked> {
  const files: UnpackedFile[] = [];
  const packedHash = createHash('sha256');
  let packed = 0;
  let unpacked = 0;
  let total = 0;
  let entries = 0;
  let buffered: Buffer = Buffer.alloc(0);
  let pending: {
    name: string;
    size: number;
    got: number;
    fd: number;
    hash: ReturnType<typeof createHash>;
  } | null = null;
  let skip = 0;
  let ended = false;

  const counted = (): void => {
    entries++;
    if (entries > limits.entries)
      throw new TarLimitError('entries', `it holds more than ${limits.entries} files and folders`);
  };
  const open = (name: string, size: number): void => {
    if (size > limits.fileBytes)
      throw new TarLimitError(
        'fileBytes',
        `it holds ${name} of ${sizeText(size)}, more than the ${sizeText(limits.fileBytes)} one file may have`,
      );
    total += size;
    if (total > limits.totalBytes)
      throw new TarLimitError(
        'totalBytes',
        `its files come to more than the ${sizeText(limits.totalBytes)} a bundle may unpack to (at ${name})`,
      );
    const target = path.join(dir, name);
    mkdirSync(path.dirname(target), { recursive: true });
    // `wx`: a name held twice, or a file over a folder of the same name, fails instead of writing twice.
    pending = { name, size, got: 0, fd: openSync(target, 'wx', 0o644), hash: createHash('sha256') };
  };
  const write = (fd: number, bytes: Buffer): void => {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  };
  const take = (chunk: Buffer): void => {
    unpacked += chunk.length;
    if (unpacked > RATIO_GRACE_BYTES && unpacked > limits.ratio * packed)
      throw new TarLimitError(
        'ratio',
        `it unpacks to more than ${limits.ratio} times its size (${sizeText(unpacked)} from the first ` +
          `${sizeText(packed)}), as a file made to fill the disk does`,
      );
    if (ended) return;
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    for (;;) {
      if (skip > 0) {
        const n = Math.min(skip, buffered.length);
        buffered = buffered.subarray(n);
        skip -= n;
        if (skip > 0) return;
      }
      if (pending !== null) {
        const n = Math.min(pending.size - pending.got, buffered.length);
        const piece = buffered.subarray(0, n);
        write(pending.fd, piece);
        pending.hash.update(piece);
        pending.got += n;
        buffered = buffered.subarray(n);
        if (pending.got < pending.size) return;
        closeSync(pending.fd);
        files.push({ name: pending.name, bytes: pending.size, sha256: pending.hash.digest('hex') });
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
      const sizeField = text(block, 124, 12).trim();
      const size =
        sizeField === '' ? 0 : /^[0-7]+$/.test(sizeField) ? Number.parseInt(sizeField, 8) : Number.NaN;
      if (!Number.isSafeInteger(size))
        throw new BadTarError(`it is damaged (the size of "${raw}" is not a number a bundle holds)`);
      const type = String.fromCharCode(block[156] ?? 0);
      if (type === '5') {
        counted();
        if (raw !== '.' && raw !== './') mkdirSync(path.join(dir, safeName(raw)), { recursive: true });
        continue;
      }
      const name = safeName(raw);
      if (type !== '0' && type !== '\0')
        throw new BadTarError(
          `it holds "${name}", which is not a plain file (${ENTRY_KINDS[type] ?? `an entry of type "${type}"`})`,
        );
      counted();
      open(name, size);
    }
  };
  const count = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      packed += chunk.length;
      packedHash.update(chunk);
      callback(null, chunk);
    },
  });
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
    await pipeline(
      createReadStream(file),
      count,
      createGunzip(),
      sink,
      signal === undefined ? {} : { signal },
    );
  } catch (error) {
    if (error instanceof BadTarError || error instanceof TarLimitError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') throw new BadTarError(`it holds ${pendingName(error)} twice`);
    if (code === 'ENOTDIR' || code === 'EISDIR')
      throw new BadTarError(`it holds ${pendingName(error)} both as a file and as a folder`);
    if (code.startsWith('Z_'))
      throw new BadTarError(`it is not a gzip-compressed tar (${(error as Error).message})`);
    throw error;
  } finally {
    const open = pending as { fd: number } | null;
    if (open !== null) closeSync(open.fd);
  }
  if (pending !== null || !ended) throw new BadTarError('it is cut short');
  return { files, sha256: packedHash.digest('hex'), packedBytes: packed };

  function pendingName(error: unknown): string {
    const where = (error as NodeJS.ErrnoException).path;
    return where === undefined ? 'a name' : `"${path.relative(dir, where)}"`;
  }
}
