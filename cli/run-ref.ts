import { existsSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './usage-error.ts';

/** A run named on the command line: its folder, given directly or as a run id inside `out`. */
export function locateRun(ref: string, out: string, option: string): string {
  const candidates = [path.resolve(ref), path.join(out, ref)];
  const found = candidates.find((dir) => existsSync(path.join(dir, 'archive.sqlite')));
  if (found === undefined) {
    throw new UsageError(
      `${option} ${ref}: no run there. Give a run id in ${out} (or pass --out with the folder that holds it), ` +
        'or the path of a run folder (the one with archive.sqlite).',
    );
  }
  return found;
}

/** `RUN:VARIANT`: a run (id or folder) and a variant id in it. */
export function parseVariantRef(
  ref: string,
  out: string,
  option: string,
): { runDir: string; variantId: number } {
  const colon = ref.lastIndexOf(':');
  const variant = colon < 0 ? '' : ref.slice(colon + 1);
  if (colon <= 0 || !/^\d+$/.test(variant)) {
    throw new UsageError(
      `${option} takes RUN:VARIANT, a run id (or folder) and a variant number, e.g. 20260101-120000-000:3; ` +
        `not "${ref}".`,
    );
  }
  return { runDir: locateRun(ref.slice(0, colon), out, option), variantId: Number(variant) };
}
