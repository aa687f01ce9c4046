import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

/**
 * The environment with `.env` (in `dir`) underneath it: variables already set (and not empty) win. `.env`
 * is read, never written into `process.env`, so agent processes never inherit keys from it.
 */
export function loadEnv(
  dir = process.cwd(),
  env: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string | undefined> {
  let fromFile: Record<string, string> = {};
  try {
    fromFile = parseEnv(readFileSync(path.join(dir, '.env'), 'utf8')) as Record<string, string>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const set = Object.entries(env).filter(([, value]) => value !== undefined && value !== '');
  return { ...fromFile, ...Object.fromEntries(set) };
}
