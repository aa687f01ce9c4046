import { lstatSync } from 'node:fs';
import path from 'node:path';
import { readNoFollow } from '../system/read-no-follow.ts';
import type { Redactor } from './redact.ts';
import { VARIANT_LOGS, type VariantLogName, variantLogParts } from './run-folder.ts';

/** A log as a reader gets it: its text (redacted, cut at the cap with a note) and its whole size. */
export interface VariantLog {
  name: VariantLogName;
  text: string;
  /** The log's size on disk, in bytes. */
  bytes: number;
  /** Whether the text stops before the end of the log (the note at its end says where). */
  cut: boolean;
}

/** What is read of one log at most: enough for every step of a MetaAgent, not enough to stall a page. */
export const LOG_CAP_BYTES = 2 * 1024 * 1024;

/** Whether `name` is one of the logs a variant can have (and nothing else: no path, no other file). Pure. */
export const isVariantLog = (name: string): name is VariantLogName =>
  (VARIANT_LOGS as readonly string[]).includes(name);

/**
 * The folder of variant `id`'s logs when every folder on the way to it inside the run folder is a real
 * folder (an agent could have planted a link to lead a reader elsewhere); null otherwise.
 */
function logFolder(runDir: string, id: number): string | null {
  let at = runDir;
  for (const part of variantLogParts(id)) {
    at = path.join(at, part);
    try {
      if (!lstatSync(at).isDirectory()) return null;
    } catch {
      return null;
    }
  }
  return at;
}

/** The logs variant `id` has, with their sizes: regular files only (a link or a FIFO is left out). */
export function listVariantLogs(runDir: string, id: number): { name: VariantLogName; bytes: number }[] {
  const folder = logFolder(runDir, id);
  if (folder === null) return [];
  return VARIANT_LOGS.flatMap((name) => {
    try {
      const stat = lstatSync(path.join(folder, name));
      return stat.isFile() ? [{ name, bytes: stat.size }] : [];
    } catch {
      return [];
    }
  });
}

/**
 * One log of variant `id`, read without following a link (the harness writes these files, but in a folder
 * an agent's process could reach), at most `maxBytes` of it with a note where it was cut, redacted.
 * null when the variant has no such log or it is not a regular file.
 */
export function readVariantLog(
  runDir: string,
  id: number,
  name: VariantLogName,
  redact: Redactor,
  maxBytes = LOG_CAP_BYTES,
): VariantLog | null {
  const folder = logFolder(runDir, id);
  if (folder === null) return null;
  const read = readNoFollow(path.join(folder, name), maxBytes);
  if (read === null) return null;
  const cut = read.size > read.bytes.length;
  // A cut may fall inside a character: its broken end is dropped.
  const text = read.bytes.toString('utf8').replace(cut ? /\uFFFD$/ : /$^/, '');
  const note = cut
    ? `\n[cut here: the log is ${read.size} bytes and only its first ${read.bytes.length} are shown]\n`
    : '';
  return { name, text: redact(text) + note, bytes: read.size, cut };
}
