import {
  fstatSync,
  ftruncateSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { UsageError } from './usage-error.ts';

/** Why a write failed, in words, for the errors a user can meet: a full disk and the like. */
const REASONS: Record<string, string> = {
  ENOSPC: 'no space left on the disk',
  EDQUOT: 'the disk quota is used up',
  EFBIG: 'the file would be larger than the filesystem allows',
  EIO: 'the disk reported an input/output error',
  EROFS: 'the filesystem is read-only',
  EACCES: 'no permission to write there',
  EPERM: 'no permission to write there',
  EISDIR: 'it is a folder',
  ENOENT: 'its folder does not exist',
  ENOTDIR: 'a part of its path is a file, not a folder',
};
/** Failures of the disk rather than of the path chosen: they end the command with 1, not 2. */
const DISK = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EIO']);

export function writeFailure(what: string, error: unknown, removed: string): Error {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const reason = REASONS[code] === undefined ? (error as Error).message : `${REASONS[code]} (${code})`;
  const message = `Cannot write ${what}: ${reason}. ${removed}`;
  if (DISK.has(code)) return new Error(`${message} Make room, then run it again.`);
  return new UsageError(`${message} Choose another place to write it.`);
}

/** The partial file of `file`: beside it in its own folder (so the rename is atomic), hidden, one per process. */
export const partialFileOf = (file: string): string =>
  path.join(path.dirname(file), `.${path.basename(file)}.partial-${process.pid}`);

/**
 * Writes `text` to `file` whole or not at all: into its partial file, renamed over `file` once complete.
 * The partial file is removed whatever happens, and `file` keeps what it held. Throws a message naming
 * `file` and the reason: an Error when the disk failed, a UsageError when the path cannot be written.
 */
export function writeFileWhole(file: string, text: string): void {
  const partial = partialFileOf(file);
  try {
    writeFileSync(partial, text);
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw writeFailure(file, error, 'Nothing was written, and no partial file is left.');
  }
}

/**
 * Writes `text` to standard output. When that is a file (`> out.csv`), every byte is written or the
 * command fails: Node's stream would drop the rest of a write cut short by a full disk and exit 0. On a
 * failure the file is cut back to the size it had, so no half-written output is left in it. A terminal
 * or a pipe gets the stream as before.
 */
export function writeStdout(text: string): void {
  let size: number | null = null;
  try {
    const stat = fstatSync(1);
    if (stat.isFile()) size = stat.size;
  } catch {}
  if (size === null) {
    process.stdout.write(text);
    return;
  }
  const bytes = Buffer.from(text);
  try {
    for (let done = 0; done < bytes.length; ) done += writeSync(1, bytes, done);
  } catch (error) {
    let removed = 'What was written of it could not be removed.';
    try {
      ftruncateSync(1, size);
      removed = 'What was written of it was removed.';
    } catch {}
    let name = 'standard output';
    try {
      name = `${readlinkSync('/proc/self/fd/1')} (standard output)`;
    } catch {}
    throw writeFailure(name, error, removed);
  }
}
