import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { Tool, ToolContext } from '../core/tool.ts';
import { truncateMiddle } from '../core/truncate.ts';

export type BashToolOptions = { cwd: string; timeoutMs?: number; maxOutputChars?: number };

const inputSchema = z.object({
  command: z.string().min(1).describe('The bash command to run (several lines and heredocs are fine).'),
});

export type BashTool = Tool<z.infer<typeof inputSchema>> & { close(): Promise<void> };

/**
 * One persistent bash per tool instance, in its own process group. Each call sources the command from a
 * temp file with stdin from /dev/null (so heredocs, a trailing `&` or a program reading stdin cannot eat
 * the end marker), then prints a random sentinel with `$?` on stdout and a sentinel on stderr.
 */
export function createBashTool(options: BashToolOptions): BashTool {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const maxOutputChars = options.maxOutputChars ?? 20_000;
  let shell: Shell | undefined;
  let workDir: Promise<string> | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const runOne = async (command: string): Promise<string> => {
    workDir ??= mkdtemp(join(tmpdir(), 'hyperagents-bash-'));
    const scriptPath = join(await workDir, 'command.sh');
    await writeFile(scriptPath, `${command}\n`);
    shell ??= startShell(options.cwd);
    const current = shell;
    const result = await current.run(scriptPath, timeoutMs, maxOutputChars);
    if (result.ended !== 'sentinel') {
      current.kill();
      shell = undefined;
    }
    return render(result, timeoutMs, options.cwd, maxOutputChars);
  };

  return {
    name: 'bash',
    description: readFileSync(new URL('./bash.md', import.meta.url), 'utf8'),
    inputSchema,
    run: ({ command }) => {
      const next = queue.then(() => runOne(command));
      queue = next.catch(() => undefined);
      return next;
    },
    close: async () => {
      shell?.kill();
      shell = undefined;
      if (workDir) await rm(await workDir, { recursive: true, force: true });
      workDir = undefined;
    },
  };
}

export default (ctx: ToolContext) => createBashTool({ cwd: ctx.root });

type RunResult = {
  stdout: string;
  stderr: string;
  exitCode?: number;
  ended: 'sentinel' | 'timeout' | 'exit';
};

type Shell = {
  run(scriptPath: string, timeoutMs: number, maxOutputChars: number): Promise<RunResult>;
  kill(): void;
};

function startShell(cwd: string): Shell {
  const child: ChildProcessWithoutNullStreams = spawn('bash', ['--noprofile', '--norc'], {
    cwd,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdin.on('error', () => undefined);
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  child.on('error', () => {
    exited = true;
  });

  const kill = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group is already gone.
    }
  };

  const run = (scriptPath: string, timeoutMs: number, maxOutputChars: number) =>
    new Promise<RunResult>((resolve) => {
      const sentinel = `__HYPERAGENTS_${randomBytes(8).toString('hex')}__`;
      const stdout = new StreamCapture(maxOutputChars, new RegExp(`\\n${sentinel} (\\d+)\\n`));
      const stderr = new StreamCapture(maxOutputChars, new RegExp(`\\n${sentinel}\\n`));
      const finish = (ended: RunResult['ended']) => {
        clearTimeout(timer);
        child.stdout.off('data', onStdout);
        child.stderr.off('data', onStderr);
        child.off('exit', onExit);
        const exitCode = stdout.match ? Number(stdout.match[1]) : undefined;
        resolve({
          stdout: stdout.text(),
          stderr: stderr.text(),
          ended,
          ...(exitCode === undefined ? {} : { exitCode }),
        });
      };
      const check = () => {
        if (stdout.match && stderr.match) finish('sentinel');
      };
      const onStdout = (chunk: string) => {
        stdout.push(chunk);
        check();
      };
      const onStderr = (chunk: string) => {
        stderr.push(chunk);
        check();
      };
      const onExit = () => setTimeout(() => finish('exit'), 20);
      const timer = setTimeout(() => finish('timeout'), timeoutMs);
      child.stdout.on('data', onStdout);
      child.stderr.on('data', onStderr);
      child.once('exit', onExit);
      if (exited) {
        finish('exit');
        return;
      }
      const quoted = `'${scriptPath.replaceAll("'", `'\\''`)}'`;
      child.stdin.write(
        `source ${quoted} < /dev/null\n__hyperagents_status=$?; printf '\\n%s %s\\n' ${sentinel} "$__hyperagents_status"; printf '\\n%s\\n' ${sentinel} >&2\n`,
      );
    });

  return { run, kill };
}

/** Keeps the head and a tail window of a stream, and finds the end marker in what arrives. */
class StreamCapture {
  private head = '';
  private tail = '';
  private total = 0;
  match: RegExpExecArray | undefined;
  private readonly half: number;
  private readonly window: number;

  constructor(
    maxChars: number,
    private readonly marker: RegExp,
  ) {
    this.half = Math.max(1, Math.floor(maxChars / 2));
    this.window = this.half + 256;
  }

  push(chunk: string): void {
    if (this.match) return;
    this.total += chunk.length;
    let rest = chunk;
    if (this.head.length < this.half) {
      const room = this.half - this.head.length;
      this.head += rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (rest) this.tail = (this.tail + rest).slice(-this.window);
    const searchable = this.dropped() === 0 ? this.head + this.tail : this.tail;
    const found = this.marker.exec(searchable.slice(-(this.window + 64)));
    if (found) this.match = found;
  }

  private dropped(): number {
    return this.total - this.head.length - this.tail.length;
  }

  /** Everything before the marker, with the middle left out when it was too long. */
  text(): string {
    const dropped = this.dropped();
    const all = dropped === 0 ? this.head + this.tail : this.tail;
    const cut = this.match ? all.lastIndexOf(this.match[0]) : all.length;
    const before = all.slice(0, cut);
    if (dropped === 0) return before;
    return `${this.head}\n[... ${dropped} characters omitted ...]\n${before}`;
  }
}

function render(result: RunResult, timeoutMs: number, cwd: string, maxOutputChars: number): string {
  const parts = [result.stdout, result.stderr].filter((p) => p.length > 0).map((p) => p.replace(/\n$/, ''));
  if (result.ended === 'timeout') {
    parts.push(
      `[command timed out after ${timeoutMs / 1000} s; it was killed and the shell was restarted: the directory is reset to ${cwd} and environment changes are lost]`,
    );
  } else if (result.ended === 'exit') {
    parts.push(`[the shell exited; a new shell will start in ${cwd} on the next call]`);
  } else if (result.exitCode !== undefined && result.exitCode !== 0) {
    parts.push(`[exit code ${result.exitCode}]`);
  }
  return truncateMiddle(parts.join('\n'), maxOutputChars + 400) || '(no output)';
}
