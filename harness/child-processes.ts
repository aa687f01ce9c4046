import type { ChildProcess } from 'node:child_process';

/** Every agent process the harness has started and not yet seen exit, so an interrupt can end them all. */
const live = new Set<ChildProcess>();

export function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
}

/** Kills the process group of a child started with `detached: true` (so its own children die too). */
export function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

export function killAll(): number {
  const count = live.size;
  for (const child of live) killGroup(child);
  live.clear();
  return count;
}
