import { execFile } from 'node:child_process';
import { variantRepoDir } from './run-folder.ts';

const SHA = /^[0-9a-f]{7,64}$/;

export type DiffResult = { ok: true; patch: string } | { ok: false; reason: string };

/**
 * The unified diff between two variant commits, read from the run's `variants.git` with an explicit
 * git dir, no system or user config, no external diff or text conversion, and no pager, so nothing
 * in the repository or the environment can run code. Never throws.
 */
export function variantDiff(
  runDir: string,
  from: string,
  to: string,
  maxBytes = 16 * 1024 * 1024,
): Promise<DiffResult> {
  if (!SHA.test(from) || !SHA.test(to)) return Promise.resolve({ ok: false, reason: 'not a commit id' });
  const args = [
    `--git-dir=${variantRepoDir(runDir)}`,
    '-c',
    'core.fsmonitor=',
    '-c',
    'diff.external=',
    'diff',
    '--no-ext-diff',
    '--no-textconv',
    '--no-color',
    '--no-renames',
    from,
    to,
    '--',
  ];
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_PAGER: 'cat',
    HOME: '/nonexistent',
  };
  return new Promise((resolve) => {
    execFile('git', args, { env, maxBuffer: maxBytes, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error)
        resolve({ ok: false, reason: (stderr || error.message).trim().split('\n')[0] ?? 'git failed' });
      else resolve({ ok: true, patch: stdout });
    });
  });
}
