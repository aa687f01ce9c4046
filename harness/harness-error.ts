import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * A harness failure (git, disk, a process that cannot start) as one line for the archive and the terminal:
 * no stack trace, and the real cause when the run's variant repository was removed under it (git then
 * reports only "spawn git ENOENT", as if git were missing). `fatal`: the run cannot go on.
 */
export function describeHarnessError(error: unknown, repoDir: string): { message: string; fatal: boolean } {
  // git takes a folder for a repository only while it has all three; rm -r takes them one by one.
  if (!['HEAD', 'objects', 'refs'].every((part) => existsSync(path.join(repoDir, part)))) {
    return {
      message:
        `the variant repository ${repoDir} was removed while the run was going, so no variant can be ` +
        'checked out or committed; the variants finished before it are kept in the archive',
      fatal: true,
    };
  }
  return { message: firstLine(error instanceof Error ? error.message : String(error)), fatal: false };
}

/** The message without the stack lines some libraries fold into it. */
function firstLine(message: string): string {
  const lines = message.split('\n').filter((line) => !/^\s+at /.test(line) && line.trim() !== '');
  return (lines.join(' ').trim() || 'unknown error').replace(/^Error: /, '');
}
