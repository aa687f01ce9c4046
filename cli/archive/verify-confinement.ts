import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '../../agents/index.ts';
import { MAX_JSON_BYTES } from '../../archive/index.ts';
import { readSidecar, sidecarPath } from '../../domains/index.ts';
import { resolveSandbox } from '../../harness/process/index.ts';
import { domainData, type RunConfig } from '../../harness/run/index.ts';
import { providerVariables } from '../../llm/index.ts';

/*
 * What `archive verify` does so that a bundle's re-run reads nothing of this machine but the project, the
 * bundle and the exercises an exercism: domain names, spends no key, and runs the bundle's code sandboxed.
 */

/**
 * Why the re-run of `config` (its data pointed at the bundle's copy in `bundleDir`) would read a file outside
 * the bundle, or null: a packed domain whose files (a task YAML's data files, a sidecar) lie elsewhere, or a
 * prompt template in a sidecar that is a file elsewhere. `cwd` is where the re-run starts (a relative path is
 * read from there).
 */
export function outsideTheBundle(config: RunConfig, bundleDir: string, cwd: string): string | null {
  for (const ref of config.domains) {
    if (ref.kind !== 'dataset' && ref.kind !== 'lmeval') continue;
    const copy = path.join(bundleDir, 'domains', ref.name);
    const data = domainData(ref);
    const stray =
      data === null
        ? null
        : data.files.map((f) => path.join(data.root, f.rel)).find((f) => !isInside(copy, f));
    if (data !== null && (stray !== undefined || !isInside(copy, data.root)))
      return `domain ${ref.name} reads ${stray ?? data.root}, outside the bundle, and verify reads no such file`;
    if (ref.kind !== 'dataset') continue;
    const sidecarFile = sidecarPath(ref.file);
    if (existsSync(sidecarFile) && statSync(sidecarFile).size > MAX_JSON_BYTES)
      return `domain ${ref.name}'s ${path.basename(sidecarFile)} is larger than any options file`;
    const sidecar = readSidecar(ref.file);
    const template = sidecar.ok ? sidecar.options.promptTemplate : undefined;
    if (template !== undefined && !template.includes('{') && !isInside(copy, path.resolve(cwd, template)))
      return `domain ${ref.name}'s prompt template is the file ${template}, outside the bundle, and verify reads no such file`;
  }
  return null;
}

/** Why the bundle's code cannot run in the sandbox here, or null when bubblewrap works. */
export function sandboxMissing(): string | null {
  return resolveSandbox('bwrap').kind === 'bwrap'
    ? null
    : "the bundle's agent code runs only in the sandbox, and bubblewrap (bwrap) does not work here: install it " +
        '(apt-get install bubblewrap); the hashes above are checked all the same';
}

/**
 * This process's environment without any provider key or base URL: whatever the bundle's configuration says,
 * its re-run cannot reach a paid model with this machine's keys. (It starts in a folder with no .env.)
 */
export function rerunEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const names = new Set(providerVariables());
  return Object.fromEntries(Object.entries(env).filter(([name]) => !names.has(name)));
}
