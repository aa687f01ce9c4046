import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runToCompletion } from './agent-processes.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'agent-processes-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const bash = (script: string) => ({
  file: 'bash',
  args: ['-c', script],
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  cwd: dir,
});

/** Whether the process runs (a zombie waiting for its reaper does not). */
function running(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    if (check()) return true;
  }
  return check();
}

describe('runToCompletion', () => {
  it('ends what a process left running in its group when it exits', async () => {
    const finished = await runToCompletion(bash(`sleep 600 >/dev/null 2>&1 & echo $! > ${dir}/pid; exit 3`), {
      timeoutMs: 60_000,
      logFile: path.join(dir, 'log'),
    });
    expect(finished).toMatchObject({ exitCode: 3, timedOut: false });
    const pid = Number(readFileSync(path.join(dir, 'pid'), 'utf8'));
    expect(await until(() => !running(pid), 10_000)).toBe(true);
  });

  it('kills the whole group at its timeout and says so', async () => {
    const finished = await runToCompletion(bash(`sleep 600 & echo started; wait`), {
      timeoutMs: 300,
      logFile: path.join(dir, 'log'),
    });
    expect(finished.timedOut).toBe(true);
    expect(finished.exitCode).toBeNull();
    expect(readFileSync(path.join(dir, 'log'), 'utf8')).toContain('started');
  });
});
