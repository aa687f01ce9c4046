import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { type CliResult, PROJECT_ROOT } from './run-cli.ts';

/** A command of the project as a child process, so that a test can signal it. */
export interface Started {
  child: ChildProcess;
  done: Promise<CliResult>;
  /** stderr so far. */
  stderr(): string;
}

/** Starts `bin` (or, with `npx`, `npx bin`) with `args`; provider keys are not inherited (`env` adds to it). */
export function start(
  bin: 'generate-loop' | 'hyperagents',
  args: string[],
  options: { npx?: boolean; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Started {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (/_API_KEY$|_BASE_URL$/.test(name)) delete env[name];
  Object.assign(env, options.env);
  const child = options.npx
    ? spawn('npx', ['--yes', bin, ...args], {
        cwd: PROJECT_ROOT,
        env: { ...env, npm_config_offline: 'true', npm_config_update_notifier: 'false' },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, [path.join(PROJECT_ROOT, 'bin', `${bin}.mjs`), ...args], {
        cwd: options.cwd ?? PROJECT_ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done, stderr: () => stderr };
}

/** Polls `check` every 50 ms until it returns something other than null/false; fails after `capMs`. */
export async function until<T>(what: string, check: () => T | null | false, capMs = 120_000): Promise<T> {
  const deadline = Date.now() + capMs;
  for (;;) {
    const value = check();
    if (value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Live processes that belong to `dir`: started with it on their command line, or working inside it
 * (agents run in their worktrees). Linux only: reads /proc.
 */
export function processesIn(dir: string): { pid: number; command: string }[] {
  const inside = `${path.resolve(dir)}${path.sep}`;
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      const cwd = `${readlinkSync(`/proc/${pid}/cwd`)}${path.sep}`;
      if (cwd.startsWith(inside) || command.includes(path.resolve(dir))) found.push({ pid, command });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};
