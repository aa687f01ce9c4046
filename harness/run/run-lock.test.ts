import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { alive } from '../process/index.ts';
import { clearDeadEvals, clearLeftovers, evalFolderName, evalSocketPrefix, killOrphans } from './run-lock.ts';

const started: ChildProcess[] = [];
const folders: string[] = [];

afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A real process that idles in `cwd` (its own process group, as agent processes run). */
function idleIn(cwd: string): ChildProcess {
  mkdirSync(cwd, { recursive: true });
  const child = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], {
    cwd,
    stdio: 'ignore',
    detached: true,
  });
  started.push(child);
  return child;
}

/** The pid of a process that has ended. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid;

const gone = async (pid: number): Promise<boolean> => {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !alive(pid);
};

/**
 * A run folder as a killed run and evaluations beside it leave it: the run's agent in its worktree, a
 * `hyperagents eval` still running (its process and its agent), and one that was killed (its agent left).
 */
function leftovers() {
  const runDir = mkdtempSync(path.join(tmpdir(), 'run-lock-'));
  folders.push(runDir);
  const elsewhere = mkdtempSync(path.join(tmpdir(), 'eval-cwd-'));
  folders.push(elsewhere);
  const liveEval = idleIn(elsewhere);
  const deadEval = deadPid();
  const live = path.join(runDir, 'worktrees', evalFolderName(1, liveEval.pid!));
  const dead = path.join(runDir, 'worktrees', evalFolderName(2, deadEval));
  for (const name of [path.basename(live), path.basename(dead)])
    mkdirSync(path.join(runDir, 'builds', name), { recursive: true });
  const liveSocket = mkdtempSync(path.join(tmpdir(), evalSocketPrefix(liveEval.pid!)));
  const deadSocket = mkdtempSync(path.join(tmpdir(), evalSocketPrefix(deadEval)));
  folders.push(liveSocket, deadSocket);
  return {
    runDir,
    live,
    dead,
    liveSocket,
    deadSocket,
    deadEval,
    runAgent: idleIn(path.join(runDir, 'worktrees', 'variant-3', 'agents')),
    liveAgent: idleIn(path.join(live, 'agents')),
    deadAgent: idleIn(path.join(dead, 'agents')),
  };
}

describe('what a resumed run cleans up', () => {
  it('kills the dead run and dead evaluations’ agents and removes their worktrees, sparing a running eval', async () => {
    const f = leftovers();
    expect(killOrphans(f.runDir)).toBe(2);
    expect(await gone(f.runAgent.pid!)).toBe(true);
    expect(await gone(f.deadAgent.pid!)).toBe(true);
    expect(alive(f.liveAgent.pid!)).toBe(true);
    clearLeftovers(f.runDir);
    expect(existsSync(path.join(f.runDir, 'worktrees', 'variant-3'))).toBe(false);
    expect(existsSync(f.dead)).toBe(false);
    expect(existsSync(path.join(f.runDir, 'builds', path.basename(f.dead)))).toBe(false);
    expect(existsSync(f.live)).toBe(true);
    expect(existsSync(path.join(f.runDir, 'builds', path.basename(f.live)))).toBe(true);
  });
});

describe('what an evaluation cleans up when it starts', () => {
  it('removes only what killed evaluations left: processes, worktree, build and socket folders', async () => {
    const f = leftovers();
    const forgotten: string[] = [];
    expect(await clearDeadEvals(f.runDir, async (dir) => void forgotten.push(dir))).toEqual([f.deadEval]);
    expect(forgotten).toEqual([f.dead]);
    expect(await gone(f.deadAgent.pid!)).toBe(true);
    expect(existsSync(f.dead)).toBe(false);
    expect(existsSync(path.join(f.runDir, 'builds', path.basename(f.dead)))).toBe(false);
    expect(existsSync(f.deadSocket)).toBe(false);
    // Neither the running evaluation's things nor the run's own.
    expect(alive(f.liveAgent.pid!)).toBe(true);
    expect(alive(f.runAgent.pid!)).toBe(true);
    expect(existsSync(f.live)).toBe(true);
    expect(existsSync(f.liveSocket)).toBe(true);
    expect(existsSync(path.join(f.runDir, 'worktrees', 'variant-3'))).toBe(true);
  });
});
