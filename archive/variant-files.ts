import { git, gitBytes } from '../system/git.ts';
import { variantRepoDir } from './run-folder.ts';

const SHA = /^[0-9a-f]{7,64}$/;
const BLOB_ID = /^[0-9a-f]{40,64}$/;

/** A file of a variant's code at its commit. */
export interface VariantFileEntry {
  path: string;
  bytes: number;
}

/** What is shown of one file at most: larger files are named, not shown. */
export const FILE_CAP_BYTES = 1024 * 1024;

/** The most files listed of one commit. */
const MAX_FILES = 20_000;

export type FileList = { ok: true; files: VariantFileEntry[]; cut: boolean } | { ok: false; reason: string };

export type FileView =
  | { ok: true; path: string; bytes: number; text: string | null; note: string | null }
  | { ok: false; reason: string; missing: boolean };

interface Blob extends VariantFileEntry {
  id: string;
}

/** The blobs of `commit` (`git ls-tree -r -l -z`), at most MAX_FILES: links and submodules are not files. */
async function blobs(runDir: string, commit: string): Promise<{ blobs: Blob[]; cut: boolean }> {
  const out = await git(
    { gitDir: variantRepoDir(runDir) },
    ['ls-tree', '-r', '-l', '-z', '--full-tree', commit],
    {
      maxBytes: 16 * 1024 * 1024,
    },
  );
  const found: Blob[] = [];
  for (const record of out.split('\0')) {
    // <mode> SP <type> SP <id> SP+ <size> TAB <path>
    const match = /^(\d+) (\w+) ([0-9a-f]+) +(\d+|-)\t(.+)$/s.exec(record);
    if (match === null || match[2] !== 'blob' || match[1] === '120000') continue;
    found.push({ id: match[3] ?? '', bytes: Number(match[4]), path: match[5] ?? '' });
  }
  return { blobs: found.slice(0, MAX_FILES), cut: found.length > MAX_FILES };
}

/**
 * Every file of a variant's code at its commit, with its size, from the run's `variants.git` through the
 * project's one hardened git client. Never throws.
 */
export async function variantFiles(runDir: string, commit: string): Promise<FileList> {
  if (!SHA.test(commit)) return { ok: false, reason: 'not a commit id' };
  try {
    const listed = await blobs(runDir, commit);
    return { ok: true, files: listed.blobs.map(({ path, bytes }) => ({ path, bytes })), cut: listed.cut };
  } catch (error) {
    return { ok: false, reason: (error as Error).message.trim().split('\n')[0] ?? 'git failed' };
  }
}

/**
 * One file of a variant's code at its commit, as text. `file` is only ever matched against the commit's own
 * list of files (never handed to git or the file system as a path), so no path can lead elsewhere. A file
 * over `maxBytes` or one that is not text is named with its size and not shown. Never throws.
 */
export async function variantFile(
  runDir: string,
  commit: string,
  file: string,
  maxBytes = FILE_CAP_BYTES,
): Promise<FileView> {
  if (!SHA.test(commit)) return { ok: false, reason: 'not a commit id', missing: false };
  try {
    const blob = (await blobs(runDir, commit)).blobs.find((b) => b.path === file);
    if (blob === undefined || !BLOB_ID.test(blob.id)) {
      return { ok: false, reason: 'the variant has no such file at its commit', missing: true };
    }
    const shown = { ok: true as const, path: blob.path, bytes: blob.bytes };
    if (blob.bytes > maxBytes) {
      return { ...shown, text: null, note: `${blob.bytes} bytes: too large to show here (over ${maxBytes})` };
    }
    const bytes = await gitBytes({ gitDir: variantRepoDir(runDir) }, ['cat-file', 'blob', blob.id], {
      maxBytes,
    });
    if (bytes.includes(0)) return { ...shown, text: null, note: 'not text: a binary file is not shown' };
    return { ...shown, text: bytes.toString('utf8'), note: null };
  } catch (error) {
    return {
      ok: false,
      reason: (error as Error).message.trim().split('\n')[0] ?? 'git failed',
      missing: false,
    };
  }
}
