import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CommandResult, GradeContext, SandboxedCommand } from '../../domains/index.ts';
import {
  DEFAULT_LIMITS,
  killGroup,
  type ResolvedSandbox,
  startTracked,
  wrapCommand,
} from '../process/index.ts';

export interface GradeContextOptions {
  sandbox: ResolvedSandbox;
  /** The project's node_modules, readable (never writable) by every graded command. */
  nodeModules: string;
  /**
   * Where working directories are made. Not under /tmp: inside the sandbox /tmp is a private scratch
   * space, and everything outside the working directory must be unwritable.
   */
  scratchDir?: string;
}

const MIB = 1024 * 1024;

export function defaultScratchDir(): string {
  return existsSync('/var/tmp') ? '/var/tmp/hyperagents-grading' : path.join(tmpdir(), 'hyperagents-grading');
}

/**
 * The grading context the harness hands to domains: each command gets a fresh working directory, runs
 * under bubblewrap (when the run has it) with the root read-only, no network, `prlimit` on its data
 * segment, a wall-clock timeout that kills its process group, and a cap on the output it may write.
 */
export function createGradeContext(options: GradeContextOptions): GradeContext {
  const scratch = options.scratchDir ?? defaultScratchDir();
  return {
    async run(command: SandboxedCommand): Promise<CommandResult> {
      mkdirSync(scratch, { recursive: true });
      const workdir = mkdtempSync(path.join(scratch, 'task-'));
      try {
        for (const [rel, text] of Object.entries(command.files)) {
          const file = path.resolve(workdir, rel);
          if (!file.startsWith(`${workdir}${path.sep}`)) {
            return failed(`file ${JSON.stringify(rel)} would be written outside the working directory`);
          }
          mkdirSync(path.dirname(file), { recursive: true });
          writeFileSync(file, text);
        }
        return await spawnLimited(options, command, workdir);
      } finally {
        rmSync(workdir, { recursive: true, force: true });
      }
    },
  };
}

function failed(message: string): CommandResult {
  return {
    exitCode: null,
    signal: null,
    stdout: '',
    stderr: message,
    timedOut: false,
    outputExceeded: false,
    memoryExceeded: false,
    durationMs: 0,
  };
}

/**
 * The sandboxed command line plus a read-only root (bwrap's `--remount-ro /`, placed before its `--chdir`),
 * so that only the working directory (and /tmp) take writes.
 */
function readOnlyRoot(args: string[]): string[] {
  const at = args.indexOf('--chdir');
  return at < 0 ? args : [...args.slice(0, at), '--remount-ro', '/', ...args.slice(at)];
}

/** SIGABRT, which bubblewrap passes on as exit 128 + 6 for the command it ran. */
const ABORT_EXIT = 128 + 6;

/**
 * Whether a command ended for lack of memory under its limits. No kernel event says so for a data-segment
 * limit (`prlimit --data` makes an allocation fail; it kills nothing), so it is read from how the process
 * ended: a program that cannot get memory it cannot do without aborts (SIGABRT), as Node does at its heap
 * limit and when the data limit fails one of its allocations. The harness kills with SIGKILL, never SIGABRT.
 */
function abortedForMemory(sandbox: ResolvedSandbox, exitCode: number | null, signal: string | null): boolean {
  return signal === 'SIGABRT' || (sandbox.kind === 'bwrap' && exitCode === ABORT_EXIT);
}

function spawnLimited(
  options: GradeContextOptions,
  command: SandboxedCommand,
  workdir: string,
): Promise<CommandResult> {
  const limited = [`--data=${command.memoryMb * MIB}`, '--core=0', '--', command.file, ...command.args];
  const wrapped = wrapCommand(
    options.sandbox,
    // A project whose node_modules is hoisted to a parent folder has none of its own: nothing to mount.
    {
      workdir,
      writable: true,
      readOnly: [options.nodeModules, ...(command.readOnly ?? [])].filter(existsSync),
      readWrite: (command.readWrite ?? []).filter(existsSync),
      ...(command.processes === undefined
        ? {}
        : { limits: { ...DEFAULT_LIMITS, processes: command.processes } }),
    },
    'prlimit',
    limited,
    { PATH: '/usr/bin:/bin', HOME: workdir, ...(command.env ?? {}) },
  );
  const args = options.sandbox.kind === 'bwrap' ? readOnlyRoot(wrapped.args) : wrapped.args;
  const env = options.sandbox.kind === 'none' ? wrapped.env : {};
  const started = performance.now();
  return new Promise((resolve) => {
    const stdout = { chunks: [] as Buffer[], size: 0 };
    const stderr = { chunks: [] as Buffer[], size: 0 };
    let timedOut = false;
    let outputExceeded = false;
    const child = startTracked({ file: wrapped.file, args, env, cwd: workdir }, 'pipe');
    child.stdin?.on('error', () => {});
    child.stdin?.end(command.stdin ?? '');
    const collect = (stream: typeof stdout) => (chunk: Buffer) => {
      const room = command.maxOutputBytes - stream.size;
      if (room > 0) stream.chunks.push(chunk.subarray(0, room));
      stream.size += chunk.length;
      if (stream.size > command.maxOutputBytes && !outputExceeded) {
        outputExceeded = true;
        killGroup(child);
      }
    };
    child.stdout?.on('data', collect(stdout));
    child.stderr?.on('data', collect(stderr));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, command.timeoutMs);
    let settled = false;
    const done = (exitCode: number | null, signal: string | null, extra = ''): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        exitCode,
        signal,
        stdout: Buffer.concat(stdout.chunks).toString('utf8'),
        stderr: Buffer.concat(stderr.chunks).toString('utf8') + extra,
        timedOut,
        outputExceeded,
        memoryExceeded: !timedOut && !outputExceeded && abortedForMemory(options.sandbox, exitCode, signal),
        durationMs: Math.round(performance.now() - started),
      });
    };
    child.on('error', (error) => done(null, null, error.message));
    child.on('close', (code, signal) => done(code, signal));
  });
}
