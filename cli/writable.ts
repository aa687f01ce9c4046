import { accessSync, constants, statSync } from 'node:fs';
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
