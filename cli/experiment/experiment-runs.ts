import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { alive } from '../../harness/process/index.ts';
import { runHolder } from '../../harness/run/index.ts';
import { abortExitCode, describeStop, watchStops } from '../shared/stop-signals.ts';

const GENERATE_LOOP = fileURLToPath(new URL('../../bin/generate-loop.mjs', import.meta.url));

/**
 * experiment.lock in an experiment folder: the pid of the experiment running there and, by run id, the pid
 * of each generate-loop run it has going. A later experiment reads it to find what a dead one left running.
 */
const Lock = z.object({ pid: z.number().int(), runs: z.record(z.string(), z.number().int()) });
export type ExperimentLock = z.infer<typeof Lock>;

const lockFile = (dir: string): string => path.join(dir, 'experiment.lock');

/** The lock of the folder, or null when there is none (or none this version wrote). */
export function readExperimentLock(dir: string): ExperimentLock | null {
  try {
    const parsed = Lock.safeParse(JSON.parse(readFileSync(lockFile(dir), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function writeExperimentLock(dir: string, lock: ExperimentLock): void {
  const tmp = `${lockFile(dir)}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(lock)}\n`);
  renameSync(tmp, lockFile(dir));
}

export function removeExperimentLock(dir: string): void {
  rmSync(lockFile(dir), { force: true });
}

/** The pid of a live experiment holding the folder other than this process, or null. */
export function experimentHolder(lock: ExperimentLock | null): number | null {
  return lock !== null && lock.pid !== process.pid && alive(lock.pid) ? lock.pid : null;
}

/** One generate-loop run of the experiment, as a child process. */
export interface StartedRun {
  pid: number | undefined;
  /** Its exit code (1 when it could not start or died of a signal). */
  done: Promise<number>;
  /** Asks it to stop cleanly, as Ctrl-C does; a second call makes it exit at once. */
  stop(): void;
}

/**
 * Starts one generate-loop run: stdout (its --json summary) and stderr go to files under logs/. It runs in
 * its own process group, so a Ctrl-C in the terminal reaches the experiment only, which stops each run
 * once. It holds an IPC channel to this process: when this process ends, however it ends (SIGKILL
 * included), the channel closes and the run stops cleanly by itself (see watchStops).
 */
export function startRun(
  args: readonly string[],
  logBase: string,
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): StartedRun {
  const out = openSync(`${logBase}.json`, 'w');
  const err = openSync(`${logBase}.log`, 'a');
  const child = spawn(process.execPath, [GENERATE_LOOP, ...args], {
    stdio: ['ignore', out, err, 'ipc'],
    detached: true,
    ...options,
  });
  const done = new Promise<number>((resolve) => {
    let settled = false;
    const finish = (code: number): void => {
      if (settled) return;
      settled = true;
      closeSync(out);
      closeSync(err);
      resolve(code);
    };
    child.on('error', () => finish(1));
    child.on('exit', (code, signal) => finish(code ?? (signal ? 1 : 0)));
  });
  return {
    pid: child.pid,
    done,
    stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    },
  };
}

const WAIT_STEP_MS = 100;

async function exited(pid: number, withinMs: number): Promise<boolean> {
  for (let waited = 0; waited < withinMs; waited += WAIT_STEP_MS) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
  }
  return !alive(pid);
}

/** How long a run left by a dead experiment gets to stop by itself, then after SIGTERM, before SIGKILL. */
const LEFT_RUN_GRACE_MS = { own: 10_000, term: 10_000 };

/**
 * Stops the runs a dead experiment left running: those its lock names that still hold their run. Such a
 * run normally stops by itself when its experiment ends; one that has not within a grace period gets
 * SIGTERM (a clean stop), then SIGKILL with its process group. What a killed run leaves (agent processes,
 * worktrees, its lock) is cleaned up when it is resumed. Returns the ids of the runs that were stopped.
 */
export async function stopLeftRuns(
  dir: string,
  left: ExperimentLock,
  log: (line: string) => void,
): Promise<string[]> {
  const stopped: string[] = [];
  await Promise.all(
    Object.entries(left.runs).map(async ([id, pid]) => {
      if (runHolder(path.join(dir, 'runs', id)) !== pid) return;
      log(`${id}: still running (process ${pid}) after the experiment that started it ended; stopping it.`);
      stopped.push(id);
      if (await exited(pid, LEFT_RUN_GRACE_MS.own)) return;
      signal(pid, 'SIGTERM');
      if (await exited(pid, LEFT_RUN_GRACE_MS.term)) return;
      signal(-pid, 'SIGKILL');
      signal(pid, 'SIGKILL');
      await exited(pid, LEFT_RUN_GRACE_MS.term);
    }),
  );
  return stopped;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/** Stops the runs under way cleanly on a first Ctrl-C or stop signal, and aborts at once on a second. */
export function stopRunsOnSignal(running: ReadonlyMap<string, StartedRun>): ReturnType<typeof watchStops> {
  return watchStops({
    first(cause) {
      process.stderr.write(
        `\n${describeStop(cause)}: stopping the experiment; ${running.size} run(s) under way stop cleanly ` +
          '(finished work is kept; press Ctrl-C again to abort at once).\n',
      );
      for (const run of running.values()) run.stop();
    },
    again(cause) {
      for (const run of running.values()) run.stop();
      process.stderr.write('Aborted. Run the same command again to continue the experiment.\n');
      process.exit(abortExitCode(cause));
    },
  });
}
