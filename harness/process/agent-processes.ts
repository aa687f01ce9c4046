import { type ChildProcess, spawn } from 'node:child_process';
import { createRedactor, type Redactor } from '../../archive/index.ts';
import { type CappedLog, openCappedLog } from './capped-output.ts';
import { DEFAULT_LIMITS, MIB, releaseCgroups } from './resource-limits.ts';
import { type ResolvedSandbox, type SandboxPolicy, wrapCommand } from './sandbox.ts';
import { treeBytes } from './tree-check.ts';

/**
 * How the harness starts, watches and ends the processes that run agent code (and the tools it runs on
 * agent files): their environment and command line, their logs, their limits, and a kill switch.
 */

/** The tsx loader from the project's own node_modules: agent code runs as TypeScript, no build step. */
export const TSX_LOADER = import.meta.resolve('tsx');

export interface CommandSpec {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

export interface GatewayAccess {
  url: string;
  token: string;
}

/** The whole environment an agent gets: no provider keys, no user HOME. */
export function agentEnv(gateway: GatewayAccess, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: '/tmp',
    LANG: 'C.UTF-8',
    TMPDIR: '/tmp',
    HYPERAGENTS_LLM_URL: gateway.url,
    HYPERAGENTS_LLM_TOKEN: gateway.token,
    ...extra,
  };
}

/**
 * Command line that runs an agent entry point (relative to `policy.workdir`) with node and `loader`
 * registered: by default tsx, or nothing for a built `.mjs` entry (see agent-build.ts), which runs on node
 * alone with nothing to compile at start.
 */
export function agentCommand(
  sandbox: ResolvedSandbox,
  policy: SandboxPolicy,
  entry: string,
  args: string[],
  env: Record<string, string>,
  loader: string | null = entry.endsWith('.mjs') ? null : TSX_LOADER,
): CommandSpec {
  const wrapped = wrapCommand(
    sandbox,
    policy,
    process.execPath,
    [...(loader === null ? [] : ['--import', loader]), entry, ...args],
    env,
  );
  return { ...wrapped, cwd: policy.workdir };
}

/** Every agent process the harness has started and not yet seen exit, so an interrupt can end them all. */
const live = new Set<ChildProcess>();

/**
 * Starts a command in its own process group (so its whole tree can be killed), tracked until it exits.
 * When it exits, what it left running in its group is killed too (in the sandbox its namespace ends them
 * anyway; without one, a background process could otherwise write into what the harness reads next).
 */
export function startTracked(command: CommandSpec, stdin: 'ignore' | 'pipe'): ChildProcess {
  const child = spawn(command.file, command.args, {
    cwd: command.cwd,
    env: command.env,
    stdio: [stdin, 'pipe', 'pipe'],
    detached: true,
  });
  live.add(child);
  child.once('exit', () => {
    live.delete(child);
    killGroup(child);
    releaseCgroups(child.pid);
  });
  return child;
}

/** Kills the process group of a tracked child (so its own children die too). */
export function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

export function killAll(): number {
  const count = live.size;
  for (const child of live) killGroup(child);
  live.clear();
  return count;
}

export interface Finished {
  exitCode: number | null;
  timedOut: boolean;
  /** Set when the harness stopped the process for passing a limit it watches (disk written). */
  overLimit: string | null;
  /** The last lines of stderr and stdout, for failure reasons (redacted). */
  tail: string;
  /** The end of stdout alone (its last 4000 characters), for commands that answer there. */
  stdout: string;
}

export interface RunOptions {
  timeoutMs: number;
  /** Output is appended here, redacted and cut at `outputCapBytes`. Must be in a folder no agent can write. */
  logFile: string;
  outputCapBytes?: number;
  redact?: Redactor;
  /** Stops the process once the bytes under `dir` grew by more than `maxBytes` (polled). */
  diskWatch?: { dir: string; maxBytes: number };
  /** Written to the command's stdin, which is then closed; without it stdin is empty. */
  input?: string;
}

const DISK_POLL_MS = 2000;

/**
 * Runs a command to completion in its own process group, output appended to a capped log. On timeout, or
 * when a watched folder grows past its limit, the whole group is killed. Never rejects for the command's
 * own failures; a log that cannot be opened safely (a link planted there) ends the run before it starts. Rejects
 * when the log could not be written (a full disk): that is the harness's failure, not the command's.
 */
export function runToCompletion(command: CommandSpec, options: RunOptions): Promise<Finished> {
  const redact = options.redact ?? createRedactor();
  let log: CappedLog;
  try {
    log = openCappedLog(options.logFile, options.outputCapBytes ?? DEFAULT_LIMITS.outputKb * 1024, redact);
  } catch (error) {
    const reason = `the harness refused to open its log ${options.logFile}: ${(error as Error).message}`;
    return Promise.resolve({ exitCode: null, timedOut: false, overLimit: null, tail: reason, stdout: '' });
  }
  return new Promise((resolve, reject) => {
    let tail = '';
    let stdout = '';
    const child = startTracked(command, options.input === undefined ? 'ignore' : 'pipe');
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input);
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
    let overLimit: string | null = null;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, options.timeoutMs);
    const watch = options.diskWatch;
    const baseline = watch === undefined ? 0 : treeBytes(watch.dir);
    const poller =
      watch === undefined
        ? undefined
        : setInterval(() => {
            if (treeBytes(watch.dir) - baseline <= watch.maxBytes) return;
            overLimit = `wrote more than ${Math.round(watch.maxBytes / MIB)} MiB (--disk-mb)`;
            killGroup(child);
          }, DISK_POLL_MS);
    let settled = false;
    const done = (exitCode: number | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (poller !== undefined) clearInterval(poller);
      log.close();
      // The harness could not keep its record of the process (a full disk): a harness failure, whatever the
      // process did.
      const failure = log.failure();
      if (failure !== null) {
        reject(new Error(`could not write ${options.logFile}: ${failure.message}`, { cause: failure }));
        return;
      }
      resolve({ exitCode, timedOut, overLimit, tail: redact(lastLines(tail, 8)), stdout });
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
