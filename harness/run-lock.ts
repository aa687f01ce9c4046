import { readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { alive } from './resource-limits.ts';

/** `run.lock` in a run folder holds the pid of the process running it; it is removed when the run ends. */
export const lockFile = (runDir: string): string => path.join(runDir, 'run.lock');

/** The pid of a live process that holds the run, or null when nobody does (a dead holder's lock is stale). */
export function runHolder(runDir: string): number | null {
  let text: string;
  try {
    text = readFileSync(lockFile(runDir), 'utf8');
  } catch {
    return null;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : null;
}

/** Takes the run for this process. The caller checked `runHolder` first. */
export function lockRun(runDir: string): void {
  writeFileSync(lockFile(runDir), `${process.pid}\n`);
}

export function unlockRun(runDir: string): void {
  rmSync(lockFile(runDir), { force: true });
}

/**
 * Ends what a dead run left running: every process whose working folder is inside the run folder (agents
 * run in their worktrees) is killed with its process group. Linux only (reads /proc); elsewhere nothing is
 * found. Returns how many processes were found.
 */
export function killOrphans(runDir: string): number {
  const inside = `${path.resolve(runDir)}${path.sep}`;
  const own = processGroup('self');
  let found = 0;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      continue;
    }
    if (!`${cwd}${path.sep}`.startsWith(inside)) continue;
    found++;
    const group = processGroup(String(pid));
    try {
      process.kill(group !== null && group > 1 && group !== own ? -group : pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  return found;
}

/** Field 5 of /proc/PID/stat, counted after the parenthesised command name; null when it cannot be read. */
function processGroup(pid: string): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const pgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    return Number.isInteger(pgid) ? pgid : null;
  } catch {
    return null;
  }
}

/** Removes what a dead run left in its folder: worktrees, the MetaAgent's evals folders, the gateway socket. */
export function clearLeftovers(runDir: string): void {
  for (const sub of ['worktrees', 'evals']) {
    rmSync(path.join(runDir, sub), { recursive: true, force: true });
  }
  rmSync(path.join(runDir, 'gateway.sock'), { force: true });
}
