import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { variantRepoDir } from '../../archive/index.ts';
import { gitBytes } from '../../system/git.ts';
import { PROJECT_ROOT, type RunConfig } from './run-config.ts';

/**
 * The agents/ folder variant 0 starts from: the project's own, or with `--from RUN:VARIANT` that
 * variant's code, taken from its run's variant repo. `cleanup` removes any copy made.
 */
export async function initialAgents(config: Pick<RunConfig, 'from'>): Promise<{
  dir: string;
  reason: string;
  cleanup(): void;
}> {
  if (config.from === null) {
    return { dir: path.join(PROJECT_ROOT, 'agents'), reason: 'initial agent', cleanup: () => undefined };
  }
  const { runDir, variantId, commit } = config.from;
  const staging = mkdtempSync(path.join(tmpdir(), 'hyperagents-transfer-'));
  const tar = await gitBytes({ gitDir: variantRepoDir(runDir) }, ['archive', commit, 'agents']);
  await execa('tar', ['-x', '-C', staging], { input: tar });
  return {
    dir: path.join(staging, 'agents'),
    reason: `transferred from variant ${variantId} of ${runDir}`,
    cleanup: () => rmSync(staging, { recursive: true, force: true }),
  };
}
