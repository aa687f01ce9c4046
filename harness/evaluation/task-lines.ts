import type { ChildProcess } from 'node:child_process';
import { capText } from '../process/index.ts';

/** The TaskAgent's side of its JSON-lines protocol, as a pool reads it: one reply per line on stdout. */

/**
 * Calls `onLine` for each stdout line; a line longer than `maxBytes` is never held in memory whole: it
 * ends with `onLine(null)` and the rest of the stream is ignored.
 */
export function onLines(child: ChildProcess, maxBytes: number, onLine: (line: string | null) => void): void {
  let held = '';
  let broken = false;
  child.stdout?.on('data', (chunk: Buffer) => {
    if (broken) return;
    held += chunk.toString();
    let end = held.indexOf('\n');
    while (end >= 0 && end <= maxBytes) {
      onLine(held.slice(0, end));
      held = held.slice(end + 1);
      end = held.indexOf('\n');
    }
    if (end > maxBytes || held.length > maxBytes) {
      broken = true;
      held = '';
      onLine(null);
    }
  });
}

/** A reply line, its output and error cut to their caps; null when it is not a reply. */
export function parseReply(
  text: string,
  capBytes: number,
): { id: string; output: string; error: string | null } | null {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null) return null;
    const { id, output, error } = value as Record<string, unknown>;
    if (typeof id !== 'string') return null;
    return {
      id,
      output: capText(typeof output === 'string' ? output : JSON.stringify(output ?? ''), capBytes),
      error: typeof error === 'string' && error !== '' ? capText(error, 4096) : null,
    };
  } catch {
    return null;
  }
}
