import { readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/*
 * Whether a path stays inside a folder: the one test every confinement of the project uses (the editor,
 * the safety policies, the harness's checks of built and bundled files). Pure string work on resolved
 * paths; `realPathOf` is what follows links first.
 */

/** Whether `path` is `root` itself or inside it, after resolving both (`..` parts, relative paths). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path));
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Whether `path` is inside `root` and not `root` itself. */
export const isStrictlyInside = (root: string, path: string): boolean =>
  isInside(root, path) && resolve(root) !== resolve(path);

/**
 * The real path of `path`, following every link on the way, also when the path or some of its folders do
 * not exist yet (a link to a missing target is followed to where it points; missing parts are kept as
 * written). At most 40 links are followed, as the kernel does.
 */
export function realPathOf(path: string, depth = 0): string {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(realpathSync(current), ...missing);
    } catch {
      const link = readLink(current);
      if (link !== undefined && depth < 40) {
        return realPathOf(join(resolve(dirname(current), link), ...missing), depth + 1);
      }
      const parent = dirname(current);
      if (parent === current) return path;
      missing.unshift(basename(current));
      current = parent;
    }
  }
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}
