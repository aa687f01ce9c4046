import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { DomainRef } from '../../domains/index.ts';
import { readLmevalTask, sidecarPath } from '../../domains/index.ts';

/**
 * The data files a domain reads from outside the project (`dataset:FILE` with its `.domain.json` sidecar,
 * `lmeval:FILE` and the files its YAML names), so that a bundle can carry them. `entry` is the path the reference names, relative to `root`;
 * `files` every plain file to copy, relative to `root`, in path order, so that the copy keeps the layout the
 * reference and a task YAML's relative paths expect. Folders are walked as the domain's source hash walks
 * them (node_modules left out, links not followed).
 */
export interface DomainData {
  name: string;
  root: string;
  entry: string;
  files: { rel: string; bytes: number }[];
}

/** What a domain that reads data from outside the project holds; null for the others, or when it is not there. */
export function domainData(ref: DomainRef): DomainData | null {
  if (ref.kind !== 'dataset' && ref.kind !== 'lmeval') return null;
  if (!existsSync(ref.file)) return null;
  const targets =
    ref.kind === 'dataset'
      ? [ref.file, ...[sidecarPath(ref.file)].filter((f) => existsSync(f))]
      : [ref.file, ...lmevalSources(ref.file)];
  // A folder's parent, so the copy keeps the folder's own name as the reference does.
  const root = commonFolder(targets.map((t) => path.dirname(t)));
  const files = new Map<string, number>();
  for (const target of targets) walk(target, root, files);
  return {
    name: ref.name,
    root,
    entry: path.relative(root, ref.file).split(path.sep).join('/'),
    files: [...files].sort(([a], [b]) => (a < b ? -1 : 1)).map(([rel, bytes]) => ({ rel, bytes })),
  };
}

/** The files and folders a task YAML reads its rows from; none when it cannot be read (the run reports that). */
function lmevalSources(file: string): string[] {
  const read = readLmevalTask(readFileSync(file, 'utf8'), file, existsSync);
  if (!read.ok) return [];
  const source = read.task.source;
  switch (source.kind) {
    case 'file':
      return [source.file];
    case 'files':
      return source.files.map((f) => f.file);
    case 'folder':
      return [source.dir];
  }
}

/** The deepest folder holding every one of `dirs`. */
function commonFolder(dirs: readonly string[]): string {
  let common = dirs[0] ?? path.sep;
  for (const dir of dirs.slice(1))
    while (common !== path.dirname(common) && path.relative(common, dir).startsWith('..'))
      common = path.dirname(common);
  return common;
}

/** Adds `at` (a file named by the reference, followed if a link) or every plain file under it to `files`. */
function walk(at: string, root: string, files: Map<string, number>, named = true): void {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = named ? statSync(at) : lstatSync(at);
  } catch {
    return;
  }
  if (stat.isFile()) {
    files.set(path.relative(root, at).split(path.sep).join('/'), stat.size);
    return;
  }
  if (!stat.isDirectory()) return;
  for (const name of readdirSync(at).sort())
    if (name !== 'node_modules') walk(path.join(at, name), root, files, false);
}
