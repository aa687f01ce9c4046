import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUILT_DOMAINS } from './built-domains.ts';
import type { Domain } from './define-domain.ts';

export const DOMAINS_DIR = path.dirname(fileURLToPath(import.meta.url));

/** Names of the folders under `dir` that hold an `index.ts`: every such folder is a domain. */
export function listDomainNames(dir = DOMAINS_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, 'index.ts')))
    .map((entry) => entry.name)
    .sort();
}

function isDomain(value: unknown): value is Domain {
  if (typeof value !== 'object' || value === null) return false;
  const d = value as Record<string, unknown>;
  return (
    typeof d.name === 'string' &&
    Array.isArray(d.splits) &&
    typeof d.load === 'function' &&
    typeof d.score === 'function' &&
    typeof d.answerSchema === 'object'
  );
}

export async function loadDomain(name: string, dir = DOMAINS_DIR): Promise<Domain> {
  const file = path.join(dir, name, 'index.ts');
  const built = dir === DOMAINS_DIR && Object.hasOwn(BUILT_DOMAINS, name) ? BUILT_DOMAINS[name] : undefined;
  const mod = (await (built ? built() : import(pathToFileURL(file).href))) as { default?: unknown };
  if (!isDomain(mod.default)) {
    throw new Error(`${file} must default-export defineDomain({...}); it exports something else`);
  }
  if (mod.default.name !== name) {
    throw new Error(`${file} defines a domain named "${mod.default.name}", but its folder is "${name}"`);
  }
  return mod.default;
}
