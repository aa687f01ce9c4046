import { accessSync, constants, lstatSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './usage-error.ts';

/**
 * Checks, without writing anything, that `dir` is a folder we could create or write into:
 * it exists as a writable folder, or its nearest existing ancestor is one.
 */
export function assertWritableDir(dir: string, flag: string): void {
  let probe = path.resolve(dir);
  for (;;) {
    let isDir: boolean;
    try {
      isDir = statSync(probe).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && path.dirname(probe) !== probe) {
        probe = path.dirname(probe);
        continue;
      }
      throw new UsageError(
        `${flag} ${dir} cannot be used: ${code ?? 'unreadable'} at ${probe}. Choose a folder you can write to.`,
      );
    }
    if (!isDir) {
      throw new UsageError(
        `${flag} ${dir} cannot be created: ${probe} is a file, not a folder. Choose another folder.`,
      );
    }
    try {
      accessSync(probe, constants.W_OK);
    } catch (error) {
      const why =
        (error as NodeJS.ErrnoException).code === 'EROFS'
          ? `${probe} is on a read-only file system`
          : `no write permission on ${probe}`;
      throw new UsageError(`${flag} ${dir} is not writable (${why}). Choose a folder you can write to.`);
    }
    return;
  }
}

const statOf = (p: string, follow: boolean) => {
  try {
    return follow ? statSync(p) : lstatSync(p);
  } catch {
    return null;
  }
};

/**
 * The file `-o` asks for, checked before anything is built: given a folder (one that exists, or a path ending
 * in /), `nameInFolder` inside it. Its folder must exist and be writable, and the file, if there, a regular one.
 */
export function outputFile(given: string, nameInFolder: string, what: string): string {
  const resolved = path.resolve(given);
  const namesFolder = /[\\/]$/.test(given) || statOf(resolved, true)?.isDirectory() === true;
  const file = namesFolder ? path.join(resolved, nameInFolder) : resolved;
  const folder = path.dirname(file);
  if (statOf(folder, true)?.isDirectory() !== true) {
    throw new UsageError(
      `-o ${given}: there is no folder ${folder} to write ${what} in. Create it first, or give another path.`,
    );
  }
  const existing = statOf(file, false);
  if (existing !== null && !existing.isFile() && !existing.isSymbolicLink()) {
    throw new UsageError(`-o ${given}: ${file} exists and is not a regular file. Give another path.`);
  }
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new UsageError(`-o ${given}: no permission to write in ${folder}. Give another path.`);
  }
  return file;
}
