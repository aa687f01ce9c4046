import { git } from '../system/git.ts';
import { variantRepoDir } from './run-folder.ts';

const SHA = /^[0-9a-f]{7,64}$/;

export type DiffResult = { ok: true; patch: string } | { ok: false; reason: string };

/**
 * The unified diff between two variant commits, read from the run's `variants.git` by the project's one
 * hardened git client (no repository or user config, no external diff, text conversion or pager), so
 * nothing in the repository or the environment can run code. Never throws.
 */
export async function variantDiff(
  runDir: string,
  from: string,
  to: string,
  maxBytes = 16 * 1024 * 1024,
): Promise<DiffResult> {
  if (!SHA.test(from) || !SHA.test(to)) return { ok: false, reason: 'not a commit id' };
  const args = ['diff', '--no-ext-diff', '--no-textconv', '--no-color', '--no-renames', from, to, '--'];
  try {
    return { ok: true, patch: await git({ gitDir: variantRepoDir(runDir) }, args, { maxBytes }) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message.trim().split('\n')[0] ?? 'git failed' };
  }
}
