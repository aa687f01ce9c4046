import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Tool, ToolContext } from '../core/tool.ts';

export type BashToolOptions = { cwd: string; timeoutMs?: number; maxOutputChars?: number };

const inputSchema = z.object({
  command: z.string().min(1).describe('The bash command to run (several lines and heredocs are fine).'),
});

export type BashTool = Tool<z.infer<typeof inputSchema>> & { close(): Promise<void> };

/**
 * One persistent bash per tool instance, in its own process group, with stderr merged into stdout so
 * the output reads as a terminal shows it. Each call sources the command from a quoted here-document
 * (read whole before it runs, so the command's stdin is at its end: programs reading stdin get nothing,
 * and neither heredocs nor a trailing `&` can eat what follows), then prints a fresh random sentinel with
 * `$?`; the call ends when that sentinel comes back. Calls run one at a time.
 */
export function createBashTool(options: BashToolOptions): BashTool {
  const { cwd } = options;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const maxOutputChars = options.maxOutputChars ?? 20_000;
  let shell: Shell | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const runOne = async (command: string): Promise<string> => {
    const before: string[] = [];
    if (shell?.exited) {
      before.push(`[the shell had ended since the last call; this call ran in a new shell in ${cwd}]`);
      shell = undefined;
    }
    shell ??= startShell(cwd, maxOutputChars);
    const result = await shell.run(command, timeoutMs);
    if (result.end.kind !== 'done') {
      await shell.kill();
      shell = undefined;
    }
    return render(result, before, { cwd, timeoutMs });
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
      await shell?.kill();
      shell = undefined;
    },
  };
}

export default (ctx: ToolContext) => createBashTool({ cwd: ctx.root });

type CallEnd =
  | { kind: 'done'; status: number }
  | { kind: 'timeout' }
  | { kind: 'exit'; code: number | null; signal: NodeJS.Signals | null }
  | { kind: 'failed'; message: string };

type CallResult = { output: string; notText: boolean; end: CallEnd };

type Shell = {
  run(command: string, timeoutMs: number): Promise<CallResult>;
  /** Kills the shell's whole process group and resolves once the shell is gone. */
  kill(): Promise<void>;
  readonly exited: boolean;
};

/** Process groups of live shells, killed when this process exits so no shell outlives its agent. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}

function startShell(cwd: string, maxOutputChars: number): Shell {
  const child: ChildProcessWithoutNullStreams = spawn('bash', ['--noprofile', '--norc'], {
    cwd,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid !== undefined) killOnExit(pid);
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let failure: Error | undefined;
  let stdoutEnded = false;
  /** Ends the call in progress, if any. */
  let endActive: ((end: CallEnd) => void) | undefined;
  const gone = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      if (pid !== undefined) liveGroups.delete(pid);
      resolve();
    });
    child.on('error', (error) => {
      failure = error;
      resolve();
    });
  });
  child.stdin.on('error', () => undefined);
  child.stdout.setEncoding('utf8');
  const ended = new Promise<void>((resolve) =>
    child.stdout.on('end', () => {
      stdoutEnded = true;
      resolve();
    }),
  );
  // Everything goes to stdout once the shell runs `exec 2>&1`; this only drains what bash says before.
  child.stderr.resume();
  child.stdin.write('exec 2>&1\n');

  // Output that background jobs print between calls lands in the next call's capture.
  let capture = new OutputCapture(newSentinel(), maxOutputChars);
  child.stdout.on('data', (chunk: string) => capture.push(chunk));
  void gone.then(async () => {
    if (failure) return endActive?.({ kind: 'failed', message: startFailure(failure, cwd) });
    // Let the last output arrive; a background job that keeps the pipe open must not hold us up.
    if (!stdoutEnded) await Promise.race([ended, delay(200)]);
    endActive?.({ kind: 'exit', code: exit?.code ?? null, signal: exit?.signal ?? null });
  });

  const run = (command: string, timeoutMs: number) =>
    new Promise<CallResult>((resolve) => {
      const current = capture;
      const finish = (end: CallEnd) => {
        if (endActive !== finish) return;
        endActive = undefined;
        clearTimeout(timer);
        current.onMarker = undefined;
        capture = new OutputCapture(newSentinel(), maxOutputChars);
        capture.push(current.afterMarker);
        resolve({ output: current.text(), notText: current.notText, end });
      };
      endActive = finish;
      const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
      current.onMarker = (status) => finish({ kind: 'done', status });
      child.stdin.write(sourced(command, current.sentinel));
    });

  const kill = async () => {
    if (pid === undefined || failure) return;
    killGroup(pid);
    await gone;
  };

  return {
    run,
    kill,
    get exited() {
      return exit !== undefined || failure !== undefined;
    },
  };
}

/** The process group `pid` leads is killed when this process exits, unless it ended first. */
function killOnExit(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const group of liveGroups) killGroup(group);
  });
}

/** The shell input that runs `command` as one script and then prints `sentinel` with its exit status. */
function sourced(command: string, sentinel: string): string {
  const end = `${sentinel}_END`;
  return (
    `source /dev/stdin <<'${end}'\n${command}\n${end}\n` +
    `{ __hyperagents_status=$?; set +eux; } 2>/dev/null; printf '\\n%s %s\\n' ${sentinel} "$__hyperagents_status"\n`
  );
}

function newSentinel(): string {
  return `__HYPERAGENTS_${randomBytes(12).toString('hex')}__`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function startFailure(error: Error, cwd: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' && !existsSync(cwd)) {
    return `could not start bash: the working directory ${cwd} does not exist. Create it, or give the tool an existing directory.`;
  }
  return `could not start bash in ${cwd}: ${error.message}. Check that bash is installed and on the PATH.`;
}

/**
 * The output of one call: the first and last `maxChars / 2` characters and a count of everything in
 * between (memory stays bounded whatever the command prints), up to the line `\n<sentinel> <status>\n`.
 */
class OutputCapture {
  private head = '';
  private tail = '';
  private total = 0;
  /** Text not yet known to be output: it may be the start of the end marker. */
  private pending = '';
  private readonly marker: string;
  private readonly headMax: number;
  private readonly tailMax: number;
  notText = false;
  afterMarker = '';
  onMarker: ((status: number) => void) | undefined;
  private found = false;

  constructor(
    readonly sentinel: string,
    maxChars: number,
  ) {
    this.marker = `\n${sentinel} `;
    this.headMax = Math.max(1, Math.floor(maxChars / 2));
    this.tailMax = Math.max(1, maxChars - this.headMax);
  }

  push(chunk: string): void {
    if (this.found) {
      this.afterMarker += chunk;
      return;
    }
    if (chunk.includes('\0')) chunk = chunk.replaceAll('\0', '\uFFFD');
    if (chunk.includes('\uFFFD')) this.notText = true;
    const text = this.pending + chunk;
    const at = text.indexOf(this.marker);
    const eol = at === -1 ? -1 : text.indexOf('\n', at + this.marker.length);
    if (at !== -1 && eol !== -1) {
      this.emit(text.slice(0, at));
      this.pending = '';
      this.found = true;
      this.afterMarker = text.slice(eol + 1);
      this.onMarker?.(Number(text.slice(at + this.marker.length, eol)));
      return;
    }
    const keep = at !== -1 ? text.length - at : Math.min(text.length, this.marker.length - 1);
    this.emit(text.slice(0, text.length - keep));
    this.pending = text.slice(text.length - keep);
  }

  private emit(text: string): void {
    if (text === '') return;
    this.total += text.length;
    let rest = text;
    if (this.head.length < this.headMax) {
      const room = this.headMax - this.head.length;
      this.head += rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (rest !== '') this.tail = (this.tail + rest).slice(-this.tailMax);
  }

  /** The output with the middle left out when it was too long; complete lines at the cut when possible. */
  text(): string {
    if (!this.found) this.emit(this.pending);
    this.pending = '';
    if (this.total === this.head.length + this.tail.length) return this.head + this.tail;
    const headEnd = this.head.lastIndexOf('\n');
    const head = headEnd >= this.head.length / 2 ? this.head.slice(0, headEnd + 1) : this.head;
    const tailStart = this.tail.indexOf('\n');
    const tail =
      tailStart !== -1 && tailStart < this.tail.length / 2 ? this.tail.slice(tailStart + 1) : this.tail;
    const omitted = this.total - head.length - tail.length;
    const lineBreak = head.endsWith('\n') ? '' : '\n';
    return `${head}${lineBreak}[... ${omitted} of ${this.total} characters left out ...]\n${tail}`;
  }
}

/** Notes about the shell come before the output (`before`) or after it, each in brackets on its own line. */
function render(result: CallResult, before: string[], ctx: { cwd: string; timeoutMs: number }): string {
  const output = result.output.replace(/\n+$/, '');
  const notes: string[] = [];
  const fresh = `the next call runs in a fresh shell in ${ctx.cwd}: the working directory, variables and background jobs from before are gone`;
  if (result.notText) {
    notes.push(
      '[the output is not all UTF-8 text; bytes that are not are shown as \uFFFD. Use `file`, `od -c` or `xxd | head` to look at binary data]',
    );
  }
  const { end } = result;
  switch (end.kind) {
    case 'done':
      if (end.status !== 0) notes.push(`[exit code ${end.status}]`);
      break;
    case 'timeout':
      notes.push(
        `[timed out after ${ctx.timeoutMs / 1000} s: the command and everything it started were killed and the shell was restarted; ${fresh}. Run long jobs in the background with their output in a file (cmd > log.txt 2>&1 &), or split the work]`,
      );
      break;
    case 'exit':
      notes.push(
        end.signal
          ? `[the shell was killed by ${end.signal}; ${fresh}]`
          : `[exit code ${end.code}; the shell itself exited (\`exit\`, or \`set -e\` after a failing command), so ${fresh}]`,
      );
      break;
    case 'failed':
      return `Error: ${end.message}`;
  }
  return [...before, output, ...notes].filter((part) => part !== '').join('\n') || '(no output)';
}
