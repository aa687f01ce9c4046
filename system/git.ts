import path from 'node:path';
import type { SimpleGit } from 'simple-git';

/**
 * Where git runs: an explicit git dir (and work tree when given), never a repository found from the folder
 * it runs in, so nothing inside a worktree (its `.git` file included) can redirect or configure it.
 */
export interface GitLocation {
  gitDir: string;
  workTree?: string;
}

export interface GitOptions {
  /** Bytes written to git's stdin (`git apply -`). */
  input?: Buffer;
  /** The folder git runs in: the git dir's folder unless given (`git apply` needs the work tree). */
  cwd?: string;
  /** git is stopped and the call fails once its output passes this many bytes. Default 256 MiB. */
  maxBytes?: number;
}

const IDENTITY = ['user.name=hyperagents', 'user.email=hyperagents@localhost', 'commit.gpgsign=false'];

/**
 * Config that no repository can override (the command line wins over every config file): no fsmonitor
 * or hooks run, no external programs are started, and git reads no system or user config at all.
 */
export const SAFE_CONFIG: readonly string[] = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.untrackedCache=false',
  'core.sshCommand=false',
  'core.pager=cat',
  'protocol.allow=never',
  'diff.external=',
  'submodule.recurse=false',
  ...IDENTITY,
];

/** A clean environment: no keys, no HOME config, no GIT_* variables from the caller's own shell. */
const GIT_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: '/nonexistent',
  LANG: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
};

/**
 * simple-git refuses, by default, the settings that could make git run a program, `--git-dir` and the
 * `GIT_*` variables. Here they are exactly the ones that switch those programs off (`SAFE_CONFIG`,
 * `GIT_ENV`), so they are allowed; every other guard of simple-git stays on.
 */
const ALLOWED = {
  unsafe: {
    allowUnsafeConfigPaths: true,
    allowUnsafeFsMonitor: true,
    allowUnsafeHooksPath: true,
    allowUnsafeSshCommand: true,
    allowUnsafePager: true,
    allowUnsafeProtocolOverride: true,
    allowUnsafeDiffExternal: true,
  },
  allowEnvironment: ['GIT_CONFIG_NOSYSTEM', 'GIT_CONFIG_GLOBAL', 'GIT_TERMINAL_PROMPT'],
};

const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;

/** The one way this project runs git: hardened config and environment, output as bytes, capped. */
export async function gitBytes(
  where: GitLocation | null,
  args: string[],
  options: GitOptions = {},
): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const location =
    where === null
      ? []
      : ['--git-dir', where.gitDir, ...(where.workTree === undefined ? [] : ['--work-tree', where.workTree])];
  const cwd = options.cwd ?? (where === null ? process.cwd() : path.dirname(where.gitDir));
  const stop = new AbortController();
  const chunks: Buffer[] = [];
  let bytes = 0;
  let client: SimpleGit;
  // Loaded on the first git command, not when a command starts (most never run git).
  const { simpleGit } = await import('simple-git');
  try {
    client = simpleGit({
      baseDir: cwd,
      config: [...SAFE_CONFIG],
      trimmed: false,
      maxConcurrentProcesses: 1,
      abort: stop.signal,
      ...ALLOWED,
      // stdin is always closed, so a git that would read it (`apply -` given nothing) ends instead of waiting.
      input: () => options.input ?? Buffer.alloc(0),
    });
  } catch (error) {
    throw new Error(`git could not start in ${cwd}: ${(error as Error).message}`);
  }
  client.env({ ...GIT_ENV }).outputHandler((_command, stdout) => {
    stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) stop.abort();
      else chunks.push(chunk);
    });
  });
  try {
    await client.raw([...location, ...withoutDrivers(args)]);
  } catch (error) {
    if (bytes > maxBytes) throw new Error(`git ${args[0]}: its output passed ${maxBytes} bytes`);
    throw new Error(`git ${args[0]}: ${(error as Error).message.trim()}`, { cause: error });
  }
  return Buffer.concat(chunks);
}

/** Commands that can show a diff: a diff driver named by a tree's `.gitattributes` runs in none of them. */
const DIFFING = new Set(['diff', 'log', 'show']);

function withoutDrivers(args: string[]): string[] {
  const [command, ...rest] = args;
  return command !== undefined && DIFFING.has(command)
    ? [command, '--no-ext-diff', '--no-textconv', ...rest]
    : args;
}

/** `gitBytes` as text. */
export async function git(
  where: GitLocation | null,
  args: string[],
  options: GitOptions = {},
): Promise<string> {
  return (await gitBytes(where, args, options)).toString();
}

/** Whether git can be run on this machine. */
export async function gitInstalled(): Promise<boolean> {
  try {
    await git(null, ['--version']);
    return true;
  } catch {
    return false;
  }
}
