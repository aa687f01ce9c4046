import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

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
