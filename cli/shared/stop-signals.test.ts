import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../test/run-cli.ts';

/** A process that watches for stop requests and says what it got, one line each, on stdout. */
const WATCHER = `
import { describeStop, watchStops } from ${JSON.stringify(path.join(import.meta.dirname, 'stop-signals.ts'))};
watchStops({
  first: (cause) => console.log('stopping: ' + describeStop(cause)),
  again: (cause) => { console.log('again: ' + describeStop(cause)); process.exit(7); },
});
setInterval(() => undefined, 1000);
console.log('ready ' + process.pid);
`;

const watcherArgs = ['--import', 'tsx', '--input-type=module', '-e', WATCHER];

/** Collects a child's stdout lines; `line(re)` resolves with the first line matching `re`. */
function lines(child: ChildProcess) {
  const seen: string[] = [];
  const waiting: { re: RegExp; resolve(line: string): void }[] = [];
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      seen.push(line);
      for (const w of waiting.filter((w) => w.re.test(line))) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const closed = new Promise<void>((resolve) => child.stdout!.on('close', () => resolve()));
  return {
    seen,
    closed,
    line: (re: RegExp) =>
      new Promise<string>((resolve) => {
        const found = seen.find((l) => re.test(l));
        if (found !== undefined) resolve(found);
        else waiting.push({ re, resolve });
      }),
  };
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );

/** Every process a test started, ended after it whatever the outcome. */
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
});

describe('stop requests', () => {
  it.each(['SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR2'] as const)(
    '%s stops cleanly like Ctrl-C, and a second one exits at once',
    async (signal) => {
      const child = spawn(process.execPath, watcherArgs, {
        cwd: PROJECT_ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const out = lines(child);
      const done = exited(child);
      await out.line(/^ready/);
      child.kill(signal);
      expect(await out.line(/^stopping/)).toBe(`stopping: ${signal}`);
      child.kill(signal);
      expect(await done).toEqual({ code: 7, signal: null });
      expect(out.seen).toContain(`again: ${signal}`);
    },
  );

  it('the end of a parent holding an IPC channel, killed with SIGKILL, stops the child', async () => {
    // The parent starts the watcher as `hyperagents experiment` starts a run: its own process group, an IPC
    // channel, stdout passed through. Then the parent is killed with SIGKILL.
    const parentScript = `
      const { spawn } = require('node:child_process');
      const child = spawn(process.execPath, ${JSON.stringify(watcherArgs)}, {
        cwd: ${JSON.stringify(PROJECT_ROOT)}, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], detached: true,
      });
      setInterval(() => undefined, 1000);
    `;
    const parent = spawn(process.execPath, ['-e', parentScript], { stdio: ['ignore', 'pipe', 'inherit'] });
    const out = lines(parent);
    started.push(parent.pid!);
    const pid = Number((await out.line(/^ready/)).split(' ')[1]);
    started.push(pid);
    parent.kill('SIGKILL');
    expect(await out.line(/^stopping/)).toBe('stopping: the experiment that started this process ended');
    // The watcher is still alive (it stops cleanly, its own way); the test ends it.
    process.kill(pid, 'SIGTERM');
    await out.closed;
    expect(out.seen.at(-1)).toBe('again: SIGTERM');
  });

  it('a parent that ended before the child started watching stops it too', async () => {
    // The parent is gone before the child has loaded its code (tsx alone takes longer than this).
    const parentScript = `
      const { spawn } = require('node:child_process');
      spawn(process.execPath, ${JSON.stringify(watcherArgs)}, {
        cwd: ${JSON.stringify(PROJECT_ROOT)}, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], detached: true,
      });
      process.exit(0);
    `;
    const parent = spawn(process.execPath, ['-e', parentScript], { stdio: ['ignore', 'pipe', 'inherit'] });
    const out = lines(parent);
    const pid = Number((await out.line(/^ready/)).split(' ')[1]);
    started.push(pid);
    expect(await out.line(/^stopping/)).toBe('stopping: the experiment that started this process ended');
  });
});
