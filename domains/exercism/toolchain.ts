import { spawnSync } from 'node:child_process';
import type { ToolchainStatus } from './language.ts';

/**
 * Whether `file args` runs and exits 0 here, with the grading sandbox's PATH (system directories only), so
 * a toolchain found only elsewhere (~/.cargo/bin, pyenv shims) counts as missing. Cached per command line.
 */
const seen = new Map<string, boolean>();
export function runs(file: string, args: readonly string[]): boolean {
  const key = JSON.stringify([file, ...args]);
  let ok = seen.get(key);
  if (ok === undefined) {
    const result = spawnSync(file, args, {
      env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' },
      stdio: 'ignore',
      timeout: 30_000,
    });
    ok = result.status === 0;
    seen.set(key, ok);
  }
  return ok;
}

/** A toolchain status from checks in order: the first that fails names what is missing. */
export function toolchainStatus(
  packages: readonly string[],
  checks: readonly { what: string; file: string; args: readonly string[] }[],
): ToolchainStatus {
  for (const check of checks)
    if (!runs(check.file, check.args)) return { ok: false, missing: check.what, packages: [...packages] };
  return { ok: true };
}
