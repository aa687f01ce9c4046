import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { killGroup, track } from './child-processes.ts';
import type { CommandSpec } from './task-workers.ts';

export interface Finished {
  exitCode: number | null;
  timedOut: boolean;
  /** The last lines of stderr and stdout, for failure reasons. */
  tail: string;
  /** The end of stdout alone (its last 4000 characters), for commands that answer there. */
  stdout: string;
}

/**
 * Runs a command to completion in its own process group, output appended to `logFile`. On timeout the
 * whole group is killed. Never rejects for the command's own failures.
 */
export function runToCompletion(
  command: CommandSpec,
  timeoutMs: number,
  logFile: string,
  /** Written to the command's stdin, which is then closed; without it stdin is empty. */
  input?: string,
): Promise<Finished> {
  return new Promise((resolve) => {
    const log = createWriteStream(logFile, { flags: 'a' });
    let tail = '';
    let stdout = '';
    const child = spawn(command.file, command.args, {
      cwd: command.cwd,
      env: command.env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    track(child);
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
    const collect = (chunk: Buffer): void => {
      log.write(chunk);
      tail = (tail + chunk.toString()).slice(-4000);
    };
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout = (stdout + chunk.toString()).slice(-4000);
      collect(chunk);
    });
    child.stderr?.on('data', collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    const done = (exitCode: number | null): void => {
      clearTimeout(timer);
      log.end(() => resolve({ exitCode, timedOut, tail: lastLines(tail, 8), stdout }));
    };
    child.on('error', (error) => {
      collect(Buffer.from(`${error.message}\n`));
      done(null);
    });
    child.on('close', (code) => done(code));
  });
}

export function lastLines(text: string, n: number): string {
  return text.trim().split('\n').slice(-n).join('\n');
}
