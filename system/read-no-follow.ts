import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  opendirSync,
  openSync,
  readdirSync,
  readSync,
  rmdirSync,
  rmSync,
  type Stats,
  unlinkSync,
} from 'node:fs';

/**
 * At most `maxBytes` of a regular file, opened without following a link (O_NOFOLLOW) and without blocking
 * (O_NONBLOCK, so a planted FIFO cannot hang the reader), with the file's whole size. null when the file is
 * absent, a link, or not a regular file. The one reader of files an agent could have written or replaced.
 */
export function readNoFollow(file: string, maxBytes: number): { bytes: Buffer; size: number } | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return null;
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes));
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return { bytes: buffer.subarray(0, read), size: stat.size };
  } finally {
    closeSync(fd);
  }
}

/** The mode bits of a setuid (0o4000) or setgid (0o2000) file. */
const SETUID_SETGID = 0o6000;

/** Caps on what `readTreeNoFollow` takes from a folder an agent wrote. */
export interface TreeLimits {
  /** Entries of any kind (files, folders, links, ...) below the folder. */
  maxEntries: number;
  /** Bytes of all regular files together. */
  maxBytes: number;
  /** Folders inside folders. */
  maxDepth: number;
}

/**
 * A folder's regular files (relative path → bytes), read without following any link at any depth: each
 * folder is opened with O_NOFOLLOW and its entries are reached through that open folder
 * (`/proc/self/fd/N/name`), so a folder swapped for a link while it is read is never entered. Links, FIFOs,
 * sockets, devices, setuid or setgid files and `.git` are left out and named in `skipped`. `over` says which
 * cap was passed (reading stops there); `null` when `dir` is not a folder (or a link to one).
 */
export function readTreeNoFollow(
  dir: string,
  limits: TreeLimits,
): { files: Map<string, Buffer>; skipped: string[]; over: string | null } | null {
  const root = openFolder(dir);
  if (root === null) return null;
  const state = { files: new Map<string, Buffer>(), skipped: [] as string[], over: null as string | null };
  let entries = 0;
  let bytes = 0;
  const walk = (fd: number, prefix: string, depth: number): void => {
    const listing = opendirSync(`/proc/self/fd/${fd}`);
    try {
      for (let entry = listing.readSync(); entry !== null; entry = listing.readSync()) {
        if (state.over !== null) return;
        if (++entries > limits.maxEntries) {
          state.over = `more than ${limits.maxEntries} files and folders`;
          return;
        }
        const rel = `${prefix}${entry.name}`;
        const at = `/proc/self/fd/${fd}/${entry.name}`;
        let stat: Stats;
        try {
          stat = lstatSync(at);
        } catch {
          continue;
        }
        if (entry.name === '.git') state.skipped.push(`${rel} (a .git folder is not collected)`);
        else if (stat.isSymbolicLink()) state.skipped.push(`${rel} (a link)`);
        else if (stat.isDirectory()) {
          if (depth >= limits.maxDepth) {
            state.over = `folders nested more than ${limits.maxDepth} deep`;
            return;
          }
          const sub = openFolder(at);
          if (sub === null) {
            state.skipped.push(`${rel} (a folder that could not be opened)`);
            continue;
          }
          try {
            walk(sub, `${rel}/`, depth + 1);
          } finally {
            closeSync(sub);
          }
        } else if (!stat.isFile()) state.skipped.push(`${rel} (not a regular file)`);
        else if ((stat.mode & SETUID_SETGID) !== 0) state.skipped.push(`${rel} (a setuid or setgid file)`);
        else {
          const read = readNoFollow(at, limits.maxBytes - bytes + 1);
          if (read === null) {
            state.skipped.push(`${rel} (not a regular file)`);
            continue;
          }
          bytes += read.size;
          if (bytes > limits.maxBytes) {
            state.over = `more than ${limits.maxBytes} bytes of files`;
            return;
          }
          state.files.set(rel, read.bytes);
        }
      }
    } finally {
      listing.closeSync();
    }
  };
  try {
    walk(root, '', 1);
  } finally {
    closeSync(root);
  }
  return state;
}

/**
 * Removes a folder an agent wrote, never through a link: entries are unlinked through the open folder that
 * holds them (a link is removed, not what it points to). Best effort: never throws.
 */
export function removeTreeNoFollow(dir: string): void {
  const empty = (fd: number, depth: number): void => {
    const names = readdirSync(`/proc/self/fd/${fd}`);
    for (const name of names) {
      const at = `/proc/self/fd/${fd}/${name}`;
      try {
        if (lstatSync(at).isDirectory() && depth < 4096) {
          let sub = openFolder(at);
          if (sub === null) {
            chmodSync(at, 0o700);
            sub = openFolder(at);
          }
          if (sub !== null) {
            try {
              empty(sub, depth + 1);
            } finally {
              closeSync(sub);
            }
          }
          rmdirSync(at);
        } else unlinkSync(at);
      } catch {
        // Removed already, or changed under us: what is left stays in the harness's own folder.
      }
    }
  };
  const root = openFolder(dir);
  if (root === null) {
    rmSync(dir, { force: true });
    return;
  }
  try {
    empty(root, 0);
  } catch {
    // As above.
  } finally {
    closeSync(root);
  }
  try {
    rmdirSync(dir);
  } catch {
    // As above.
  }
}

/** An open folder, never a link to one; null when `dir` is not a folder. */
function openFolder(dir: string): number | null {
  try {
    return openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
}
