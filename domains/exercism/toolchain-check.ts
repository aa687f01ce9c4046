import { accessSync, constants } from 'node:fs';
import type { ToolchainStatus } from './language.ts';

/** One file a toolchain needs, and how to say it is missing. */
export interface RequiredFile {
  path: string;
  /** Read only (a jar, a folder) rather than run. */
  readOnly?: boolean;
}

/**
 * The status of a toolchain from the files it needs: the first one missing is named, with the Debian
 * packages that provide the whole toolchain. Paths only (no `PATH` lookup): grading runs these exact files.
 */
export function checkFiles(required: readonly RequiredFile[], packages: readonly string[]): ToolchainStatus {
  for (const file of required) {
    try {
      accessSync(file.path, file.readOnly === true ? constants.R_OK : constants.X_OK);
    } catch {
      return { ok: false, missing: file.path, packages: [...packages] };
    }
  }
  return { ok: true };
}

/** A check that runs once per process and is then remembered. */
export function once(check: () => ToolchainStatus): () => ToolchainStatus {
  let status: ToolchainStatus | undefined;
  return () => {
    status ??= check();
    return status;
  };
}
