import { mkdirSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  buildsDir,
  evalsDir,
  gatewaySocketFile,
  logsDir,
  runLockFile,
  runLockHolder,
  worktreesDir,
} from '../../archive/index.ts';
import { procStat } from '../../system/proc-stat.ts';
import { alive } from '../process/index.ts';

export const lockFile = runLockFile;

/** The pid of another live process that holds the run, or null when nobody does (a dead holder's lock is stale). */
export function runHolder(runDir: string): number | null {
  const pid = runLockHolder(runDir);
  return pid === process.pid ? null : pid;
}

/** Takes the run for this process. The caller checked `runHolder` first. */
export function lockRun(runDir: string): void {
  writeFileSync(lockFile(runDir), `${process.pid}\n`);
}

export function unlockRun(runDir: string): void {
  rmSync(lockFile(runDir), { force: true });
}

/**
 * The name of the worktree and build folders of a `hyperagents eval` of variant `id` beside the run, which
 * carries the pid of the process that evaluates: whether they are left over is whether that process lives.
 */
export const evalFolderName = (id: number, pid = process.pid): string => `eval-${id}-${pid}`;
const EVAL_FOLDER = /^eval-\d+-(\d+)$/;

/** The prefix of an evaluation's gateway socket folder in the temp folder, also carrying its pid. */
export const evalSocketPrefix = (pid = process.pid): string => `hyperagents-eval-${pid}-`;
const EVAL_SOCKET = /^hyperagents-eval-(\d+)-/;

/** The worktrees of `hyperagents eval` processes beside the run: those still running and those left over. */
function evalWorktrees(runDir: string): { live: string[]; dead: { dir: string; pid: number }[] } {
  const worktrees = worktreesDir(path.resolve(runDir));
  const found = { live: [] as string[], dead: [] as { dir: string; pid: number }[] };
  let names: string[];
  try {
    names = readdirSync(worktrees);
  } catch {
    return found;
  }
  for (const name of names) {
    const pid = Number(EVAL_FOLDER.exec(name)?.[1]);
    if (!Number.isInteger(pid)) continue;
    const dir = path.join(worktrees, name);
    if (pid !== process.pid && alive(pid)) found.live.push(dir);
    else if (pid !== process.pid) found.dead.push({ dir, pid });
  }
  return found;
}

/**
 * Ends what a dead run left running: every process whose working folder is inside the run folder (agents
 * run in their worktrees) is killed with its process group, except those of a `hyperagents eval` still
 * running beside it. Linux only (reads /proc); elsewhere nothing is found. Returns how many were found.
 */
export function killOrphans(runDir: string): number {
  return killProcessesIn(runDir, evalWorktrees(runDir).live);
}

/** Kills every process whose working folder is inside `dir` but not inside one of `spare`. */
function killProcessesIn(dir: string, spare: readonly string[]): number {
  const inside = `${path.resolve(dir)}${path.sep}`;
  const spared = spare.map((d) => `${path.resolve(d)}${path.sep}`);
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
    const where = `${cwd}${path.sep}`;
    if (!where.startsWith(inside) || spared.some((d) => where.startsWith(d))) continue;
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

/** The process group of a process; null when it cannot be read. */
function processGroup(pid: string): number | null {
  return procStat(pid)?.processGroup ?? null;
}

/**
 * Removes what a dead run left in its folder: worktrees, the MetaAgent's evals folders, the gateway socket,
 * and the build folders of killed `hyperagents eval` processes. What a `hyperagents eval` still running
 * beside it uses is kept; git forgets the removed worktrees when the run prunes its worktrees.
 */
export function clearLeftovers(runDir: string): void {
  const keep = new Set(evalWorktrees(runDir).live.map((dir) => path.basename(dir)));
  const worktrees = worktreesDir(runDir);
  let names: string[] = [];
  try {
    names = readdirSync(worktrees);
  } catch {}
  for (const name of names) {
    if (keep.has(name)) continue;
    rmSync(path.join(worktrees, name), { recursive: true, force: true });
    if (EVAL_FOLDER.test(name)) rmSync(path.join(buildsDir(runDir), name), { recursive: true, force: true });
  }
  rmSync(evalsDir(runDir), { recursive: true, force: true });
  rmSync(gatewaySocketFile(runDir), { force: true });
}

/**
 * Removes what `hyperagents eval` processes that died without cleaning up (SIGKILL, a reboot) left: the
 * processes still running in their worktrees, their worktree and build folders in the run folder, and
 * their gateway socket folders in the temp folder. `forget` drops a removed worktree from git's records
 * (git worktree prune).
 * Evaluations still running are left alone. Returns the pids of the dead evaluations cleaned up after.
 */
export async function clearDeadEvals(
  runDir: string,
  forget: (worktree: string) => Promise<void>,
): Promise<number[]> {
  const { dead } = evalWorktrees(runDir);
  for (const { dir } of dead) {
    killProcessesIn(dir, []);
    rmSync(dir, { recursive: true, force: true });
    rmSync(path.join(buildsDir(runDir), path.basename(dir)), { recursive: true, force: true });
    await forget(dir);
  }
  let sockets: string[] = [];
  try {
    sockets = readdirSync(tmpdir());
  } catch {}
  for (const name of sockets) {
    const pid = Number(EVAL_SOCKET.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid))
      rmSync(path.join(tmpdir(), name), { recursive: true, force: true });
  }
  return dead.map((d) => d.pid);
}

/**
 * Takes the run folder for this process: after a run that died, ends the agent processes it left and removes
 * its leftovers first.
 */
export function takeRunFolder(
  plan: { runDir: string; mode: 'new' | 'resume' },
  progress: (line: string) => void,
): void {
  const { runDir } = plan;
  if (plan.mode === 'resume') {
    const orphans = killOrphans(runDir);
    clearLeftovers(runDir);
    if (orphans > 0) progress(`Stopped ${orphans} agent process(es) left running by the interrupted run.`);
  }
  for (const dir of [logsDir(runDir), worktreesDir(runDir), evalsDir(runDir)])
    mkdirSync(dir, { recursive: true });
  lockRun(runDir);
}
