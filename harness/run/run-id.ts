import { existsSync } from 'node:fs';
import path from 'node:path';

/** A new run's id when --run-id is not given: the local time to the millisecond, e.g. 20260101-120000-000. */
export function defaultRunId(now = new Date()): string {
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  return (
    `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}-` +
    `${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}-${pad(now.getMilliseconds(), 3)}`
  );
}

/** Whether `out` already holds a folder named `runId`. */
export const runExists = (out: string, runId: string): boolean => existsSync(path.join(out, runId));
