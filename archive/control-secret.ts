import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { controlSecretFile } from './run-folder.ts';

/**
 * A run's control secret: made by the process that runs it when the run starts (kept, readable by its owner
 * only, across --resume), and accepted by `hyperagents serve` for that run's controls beside its own token.
 */
export function ensureControlSecret(runDir: string): string {
  const existing = readControlSecret(runDir);
  if (existing !== null) return existing;
  const secret = randomBytes(18).toString('base64url');
  try {
    writeFileSync(controlSecretFile(runDir), `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    // Another process made it first: that one is the run's.
    const made = readControlSecret(runDir);
    if (made === null) throw error;
    return made;
  }
}

/** The run's control secret, or null when it has none (a run started before secrets existed). */
export function readControlSecret(runDir: string): string | null {
  try {
    const text = readFileSync(controlSecretFile(runDir), 'utf8').trim();
    return text === '' ? null : text;
  } catch {
    return null;
  }
}

/** Whether `given` is `secret`, compared in constant time; a missing one never matches. */
export function secretMatches(given: string | undefined, secret: string | null): boolean {
  if (given === undefined || secret === null) return false;
  const [a, b] = [Buffer.from(given), Buffer.from(secret)];
  return a.length === b.length && timingSafeEqual(a, b);
}
