import { type BigIntStats, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { readCapped } from '../process/index.ts';

/**
 * How the harness left one entry of a folder it wrote. Any write, truncation, rename, chmod, chown, link
 * or utime of an entry sets its ctime to the current time, which no process can choose; adding, removing
 * or renaming an entry of a folder sets the folder's ctime.
 */
export interface Stamp {
  /** The file's text as written; null for a folder. */
  text: string | null;
  mode: bigint;
  ino: bigint;
  size: bigint;
  nlink: bigint;
  ctimeNs: bigint;
}

/**
 * What the harness wrote into a folder: each entry's path relative to the folder ('' is the folder itself)
 * and its stamp, taken after the entry's last change by the harness (a folder after its entries).
 */
export type FolderStamps = Map<string, Stamp>;

const statOf = (file: string): BigIntStats | undefined =>
  lstatSync(file, { bigint: true, throwIfNoEntry: false });

/** Stamps `rel` under `root` as it is now: `text` is what the harness wrote to it, null for a folder. */
export function stampEntry(stamps: FolderStamps, root: string, rel: string, text: string | null): void {
  const stat = statOf(path.join(root, rel));
  if (stat === undefined) throw new Error(`${path.join(root, rel)} vanished as it was written`);
  const { mode, ino, size, nlink, ctimeNs } = stat;
  stamps.set(rel, { text, mode, ino, size, nlink, ctimeNs });
}

/** The names a stamped folder holds: the stamped entries directly under it. */
function namesIn(stamps: FolderStamps, rel: string): string[] {
  const names: string[] = [];
  for (const entry of stamps.keys()) {
    if (entry !== '' && path.dirname(entry) === (rel === '' ? '.' : rel)) names.push(path.basename(entry));
  }
  return names.sort();
}

/**
 * What changed under `root` since it was stamped, or null if nothing did; never throws (an entry that
 * cannot be read counts as changed). Costs one lstat per entry. A timestamp is as fine as the
 * filesystem's clock tick, so a change made in the tick of the harness's last write can leave an entry's
 * ctime as stamped: an entry stamped in that tick (the newest ctime stamped) is also compared by content,
 * a file's text or a folder's names, as git does with racily clean files. Changes made while the harness
 * stamps are not seen: the folder is stamped before anyone else is given it.
 */
export function changeUnder(root: string, stamps: FolderStamps): string | null {
  let newest = 0n;
  for (const { ctimeNs } of stamps.values()) if (ctimeNs > newest) newest = ctimeNs;
  // A folder before what it holds, so that the change named is the outermost one.
  for (const rel of [...stamps.keys()].sort()) {
    const name = rel === '' ? 'the folder' : rel;
    try {
      const change = changeOf(root, rel, stamps, newest);
      if (change !== null) return `${name} ${change}`;
    } catch (error) {
      return `${name} could not be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
    }
  }
  return null;
}

function changeOf(root: string, rel: string, stamps: FolderStamps, newest: bigint): string | null {
  const stamp = stamps.get(rel)!;
  const now = statOf(path.join(root, rel));
  if (now === undefined) return 'was removed';
  if (now.mode !== stamp.mode) return 'was replaced or its mode changed';
  if (now.ino !== stamp.ino || now.nlink !== stamp.nlink) return 'was replaced or linked';
  if (now.size !== stamp.size || now.ctimeNs !== stamp.ctimeNs) return 'was changed';
  if (stamp.ctimeNs < newest) return null;
  const same =
    stamp.text === null
      ? readdirSync(path.join(root, rel)).sort().join('\0') === namesIn(stamps, rel).join('\0')
      : readCapped(path.join(root, rel), Number(stamp.size)) === stamp.text;
  return same ? null : 'was changed';
}
