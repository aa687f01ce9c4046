import { createHash, createHmac, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A run's queue identity, kept in its folder so that a resumed coordinator finds its own jobs again and
 * issues the same gateway tokens: the jobs still in Redis carry them.
 */
export interface RunSecret {
  /** Names the run in Redis (job ids, code and gateway keys); reveals nothing of the secret. */
  runKey: string;
  /**
   * The task-role gateway token of a variant's attempt (0: the first; `--eval-repeats` and confirmation make
   * later ones): the same after a restart of the coordinator.
   */
  taskToken(variantId: number, attempt?: number): string;
  /** The meta-role gateway token of a variant's MetaAgent on a worker (`--remote-generations`), likewise. */
  metaToken(variantId: number): string;
}

export function runSecret(runDir: string): RunSecret {
  const file = path.join(runDir, 'queue-secret');
  let secret: string;
  try {
    secret = readFileSync(file, 'utf8').trim();
  } catch {
    secret = randomBytes(32).toString('hex');
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  }
  return {
    runKey: createHash('sha256').update(secret).digest('hex').slice(0, 32),
    taskToken: (variantId, attempt = 0) =>
      `hat_${createHmac('sha256', secret)
        .update(attempt === 0 ? `task:${variantId}` : `task:${variantId}:${attempt}`)
        .digest('base64url')}`,
    metaToken: (variantId) =>
      `hat_${createHmac('sha256', secret).update(`meta:${variantId}`).digest('base64url')}`,
  };
}
