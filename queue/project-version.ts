import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { HARNESS_VERSION, PROJECT_ROOT } from '../harness/run/index.ts';

/**
 * The folders whose code decides what a task's result is: its grading (domains/), how it runs (harness/) and
 * how it crosses Redis (queue/).
 */
const HASHED = ['domains', 'harness', 'queue'];

/**
 * The version a coordinator and its workers must share: package.json's version and a hash of the project's
 * domains/, harness/ and queue/ source (tests left out), as `0.1.0+1a2b3c4d5e6f`. Workers grade with their own copy
 * of the domains, so two checkouts of the same version number with other domain code must not meet.
 */
export function projectVersion(root: string, packageVersion: string): string {
  const hash = createHash('sha256');
  for (const folder of HASHED) {
    for (const file of sourceFiles(path.join(root, folder))) {
      hash.update(`${path.relative(root, file)}\u0000`);
      hash.update(readFileSync(file));
      hash.update('\u0000');
    }
  }
  return `${packageVersion}+${hash.digest('hex').slice(0, 12)}`;
}

/** Every file under `dir` but tests, in one order on every machine. */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (entry.isFile() && !/\.test\.ts$/.test(entry.name)) out.push(full);
  }
  return out;
}

/** This installation's project version (read once: the code does not change under a running process). */
export const PROJECT_VERSION = projectVersion(PROJECT_ROOT, HARNESS_VERSION);
