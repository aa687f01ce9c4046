import { homedir, tmpdir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { isInside } from './paths.ts';
import { parseShell, type ShellCommand } from './shell-parse.ts';

export { parseShell, type ShellCommand } from './shell-parse.ts';

/**
 * The safety gate every tool call passes before it runs. This is advice inside the agent (it stops
 * obvious mistakes and tells the model why); the sandbox around the process is the real boundary.
 * Rules for `bash` read the command the way a shell splits it (quotes, `;`, `&&`, pipes, `$(...)`,
 * `sh -c`, heredocs), so `echo "curl"` or `grep wget notes.txt` are not mistaken for network use.
 */

export type ToolCallRequest = { name: string; input: unknown };
export type SafetyContext = { root: string };
export type SafetyDecision = { allow: true } | { allow: false; reason: string };
/** Decides whether a call may run. Must not throw (the loop treats a throw as a denial). */
export type BeforeToolCall = (call: ToolCallRequest, ctx: SafetyContext) => SafetyDecision;

/** A deny rule matched against a call's text (the command for `bash`, the JSON input otherwise). */
export type DenyPattern = { pattern: RegExp; reason: string; tool?: string };

export type SafetyPolicyOptions = {
  /** Checked after the built-in rules. */
  denyPatterns?: DenyPattern[];
  /** Allow network tools (curl, ssh, ...), package installs and plain `git push`. Default false. */
  allowNetwork?: boolean;
  /** Places outside the working root that bash may write to (default: the temp dir); /dev/null always. */
  writablePaths?: string[];
  /** Runs first; a decision it returns is final, `undefined` falls through to the rules. */
  override?: (call: ToolCallRequest, ctx: SafetyContext) => SafetyDecision | undefined;
};

const NETWORK_COMMANDS = new Set([
  'curl',
  'wget',
  'nc',
  'ncat',
  'netcat',
  'socat',
  'ssh',
  'scp',
  'sftp',
  'telnet',
  'ftp',
  'aria2c',
]);
/** Package managers and the subcommands that download packages. */
const INSTALLERS: Record<string, Set<string>> = {
  pip: new Set(['install', 'download']),
  pip3: new Set(['install', 'download']),
  pipx: new Set(['install', 'run']),
  uv: new Set(['pip', 'add', 'sync']),
  npm: new Set(['install', 'i', 'ci', 'add', 'update', 'exec']),
  pnpm: new Set(['install', 'i', 'add', 'update', 'dlx']),
  yarn: new Set(['install', 'add', 'upgrade', 'dlx']),
  bun: new Set(['install', 'i', 'add', 'x']),
  'apt-get': new Set(['install', 'update', 'upgrade']),
  apt: new Set(['install', 'update', 'upgrade']),
  yum: new Set(['install']),
  dnf: new Set(['install']),
  apk: new Set(['add']),
  brew: new Set(['install']),
  gem: new Set(['install']),
  cargo: new Set(['install']),
  go: new Set(['get', 'install']),
};
const POWER_COMMANDS = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh']);
/** Words that run the command after them; the value lists options that take an argument. */
const COMMAND_PREFIXES = new Map<string, string[]>([
  ['sudo', ['-u', '-g', '-C', '-D', '-h', '-p']],
  ['doas', ['-u']],
  ['exec', ['-a']],
  ['nohup', []],
  ['time', ['-f', '-o']],
  ['env', ['-u', '-C', '-S']],
  ['command', []],
  ['builtin', []],
  ['nice', ['-n']],
  ['ionice', ['-c', '-n']],
  ['stdbuf', ['-i', '-o', '-e']],
  ['timeout', ['-s', '-k', '--signal', '--kill-after']],
  ['xargs', ['-I', '-n', '-P', '-L', '-d', '-s', '-a', '-E']],
  ['{', []],
  ['!', []],
  ['if', []],
  ['then', []],
  ['else', []],
  ['elif', []],
  ['do', []],
  ['while', []],
  ['until', []],
]);
/** `/`, `/*`, `~`, `$HOME`, `..` and the like: recursive rm/chmod/chown of these is never wanted. */
const SYSTEM_TARGET = /^(\/|~|\$HOME|\$\{HOME\}|\.\.)(\/\.\.)*\/?\*?$/;
/** The whole working directory. */
const WORKDIR_TARGET = /^(\.|\.\/|\*|\.\/\*|\.\*)$/;
const SAFE_DEVICES = /^\/dev\/(null|zero|u?random|stdout|stderr|stdin|tty|fd\/\d+)$/;
const DISK_DEVICE = /^\/dev\/(sd|nvme|hd|vd|xvd|mmcblk|disk|loop|md|dm-)/;

const RAW_PATTERNS: DenyPattern[] = [
  { pattern: /:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}/, reason: 'fork bomb' },
  { pattern: /\b(\w+)\(\)\s*\{[^}]*\b\1\s*\|\s*\1\s*&/, reason: 'fork bomb' },
];

/** What `commandProblem` checks a command against. */
export type CommandRules = { root: string; allowNetwork: boolean; writable: string[] };

/** The temp dir: scratch space outside the root that bash may write to by default. */
const defaultWritable = () => [...new Set([tmpdir(), '/tmp'])];

export function createSafetyPolicy(options: SafetyPolicyOptions = {}): BeforeToolCall {
  const writable = options.writablePaths ?? defaultWritable();
  return (call, ctx) => {
    const overridden = options.override?.(call, ctx);
    if (overridden) return overridden;
    const text = callText(call);
    const rules: CommandRules = { root: ctx.root, allowNetwork: options.allowNetwork ?? false, writable };
    const reason =
      (call.name === 'bash' ? commandProblem(text, rules) : undefined) ??
      (call.name === 'editor' ? pathProblem(call.input, ctx.root) : undefined) ??
      options.denyPatterns?.find(
        (d) => (d.tool === undefined || d.tool === call.name) && d.pattern.test(text),
      )?.reason;
    return reason === undefined ? { allow: true } : { allow: false, reason };
  };
}

export const defaultSafetyPolicy: BeforeToolCall = createSafetyPolicy();

function callText(call: ToolCallRequest): string {
  const input = call.input as { command?: unknown } | undefined;
  if (call.name === 'bash' && typeof input?.command === 'string') return input.command;
  return JSON.stringify(call.input) ?? '';
}

/**
 * Why a shell command is denied, or undefined when it is allowed. `root` is the working root (default:
 * the current directory); writes outside it are denied unless under `writable`.
 */
export function commandProblem(command: string, rules: Partial<CommandRules> = {}): string | undefined {
  const full: CommandRules = {
    root: rules.root ?? process.cwd(),
    allowNetwork: rules.allowNetwork ?? false,
    writable: rules.writable ?? defaultWritable(),
  };
  const raw = RAW_PATTERNS.find((d) => d.pattern.test(command));
  if (raw) return raw.reason;
  for (const parsed of parseShell(command)) {
    const problem = simpleCommandProblem(parsed, full);
    if (problem) return problem;
  }
  return undefined;
}

function simpleCommandProblem(parsed: ShellCommand, rules: CommandRules): string | undefined {
  for (const target of parsed.redirects) {
    const problem = writeProblem(target, rules);
    if (problem) return problem;
  }
  const [name = '', ...args] = stripPrefixes(parsed.words);
  const program = name.split('/').pop() ?? name;
  const operands = args.filter((a) => !a.startsWith('-'));
  if (SHELLS.has(program) || program === 'eval') {
    const flag = args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
    const script = program === 'eval' ? args.join(' ') : flag === -1 ? undefined : args[flag + 1];
    for (const text of [...(script === undefined ? [] : [script]), ...parsed.heredocs]) {
      const problem = commandProblem(text, rules);
      if (problem) return problem;
    }
  }
  if (!rules.allowNetwork) {
    if (NETWORK_COMMANDS.has(program)) return `network tool (${program}); there is no network access`;
    const installer = installProblem(program, args);
    if (installer) return installer;
  }
  if (POWER_COMMANDS.has(program)) return `${program} would stop the machine`;
  if (program === 'systemctl' && operands.some((a) => POWER_COMMANDS.has(a)))
    return 'systemctl would stop the machine';
  if (/^mkfs(\.\w+)?$|^mke2fs$|^mkswap$|^wipefs$/.test(program))
    return `formatting a file system (${program})`;
  if (program === 'dd') {
    const output = args.find((a) => a.startsWith('of='))?.slice(3);
    if (output?.startsWith('/dev/') && !SAFE_DEVICES.test(output)) return 'dd writing to a device';
  }
  if ((program === 'rm' || program === 'chmod' || program === 'chown') && isRecursive(args)) {
    if (operands.some((a) => SYSTEM_TARGET.test(a)))
      return `recursive ${program} of /, ~ or a parent directory`;
    if (program === 'rm' && operands.some((a) => WORKDIR_TARGET.test(a)))
      return 'recursive rm of the whole working directory; name what you want removed';
  }
  if (program === 'git') {
    const problem = gitProblem(args, rules.allowNetwork);
    if (problem) return problem;
  }
  for (const target of writeTargets(program, args)) {
    const problem = writeProblem(target, rules);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * The paths a shell command obviously writes to, as written: redirect targets and the file operands of
 * programs that create, change or delete files (`tee`, `cp`, `mv`, `rm`, `sed -i`, ...), also inside
 * `sh -c` scripts and heredocs given to a shell.
 */
export function commandWriteTargets(command: string): string[] {
  return parseShell(command).flatMap((parsed) => {
    const [name = '', ...args] = stripPrefixes(parsed.words);
    const program = name.split('/').pop() ?? name;
    const nested: string[] = [];
    if (SHELLS.has(program) || program === 'eval') {
      const flag = args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
      const script = program === 'eval' ? args.join(' ') : flag === -1 ? undefined : args[flag + 1];
      for (const text of [...(script === undefined ? [] : [script]), ...parsed.heredocs]) {
        nested.push(...commandWriteTargets(text));
      }
    }
    return [...parsed.redirects, ...writeTargets(program, args), ...nested];
  });
}

/** Drops `VAR=value`, `sudo`, `env`, `timeout 10` and the like in front of the real command. */
function stripPrefixes(words: string[]): string[] {
  let i = 0;
  while (i < words.length) {
    const word = words[i]!;
    if (/^[A-Za-z_]\w*=/.test(word)) {
      i++;
      continue;
    }
    const valued = COMMAND_PREFIXES.get(word);
    if (valued === undefined || (word === 'command' && /^-[vV]$/.test(words[i + 1] ?? ''))) break;
    i++;
    while (i < words.length && (words[i]!.startsWith('-') || /^[A-Za-z_]\w*=/.test(words[i]!)))
      i += valued.includes(words[i]!) ? 2 : 1;
    if (word === 'timeout' && i < words.length) i++;
  }
  return words.slice(i);
}

function installProblem(program: string, args: string[]): string | undefined {
  const operands = args.filter((a) => !a.startsWith('-'));
  if (/^python[\d.]*$/.test(program) && args[0] === '-m' && /^pip\d?$/.test(args[1] ?? '')) {
    return installProblem('pip', args.slice(2));
  }
  const subcommands = INSTALLERS[program];
  if (subcommands && operands[0] !== undefined && subcommands.has(operands[0])) {
    return `${program} ${operands[0]} needs the network, which is not available; use what is already installed`;
  }
  return undefined;
}

function gitProblem(args: string[], allowNetwork: boolean): string | undefined {
  const at = gitSubcommandIndex(args);
  const sub = at === undefined ? undefined : args[at];
  const rest = at === undefined ? [] : args.slice(at + 1);
  if (sub === 'push') {
    const force = rest.some(
      (a) => /^(-f|--force|--force-with-lease.*|--mirror|--delete|-d)$/.test(a) || a.startsWith('+'),
    );
    if (force) return 'git push --force rewrites published history';
    if (!allowNetwork) return 'git push (publishing is not allowed, and there is no network access)';
  }
  if (!allowNetwork && (sub === 'fetch' || sub === 'pull')) return `git ${sub} needs the network`;
  if (!allowNetwork && sub === 'clone' && rest.some((a) => /^[\w+]+:\/\/|^[\w.-]+@[\w.-]+:/.test(a)))
    return 'git clone of a remote repository needs the network';
  return undefined;
}

function gitSubcommandIndex(args: string[]): number | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-C' || arg === '-c' || arg === '--git-dir' || arg === '--work-tree') i++;
    else if (!arg.startsWith('-')) return i;
  }
  return undefined;
}

function isRecursive(args: string[]): boolean {
  return args.some((a) => /^-[a-zA-Z]*[rR]/.test(a) || a === '--recursive');
}

/** Paths a command obviously writes to (its operands are file names it creates, changes or deletes). */
function writeTargets(program: string, args: string[]): string[] {
  const operands = args.filter((a) => !a.startsWith('-'));
  switch (program) {
    case 'tee':
    case 'rm':
    case 'rmdir':
    case 'touch':
    case 'mkdir':
    case 'truncate':
    case 'shred':
    case 'unlink':
      return operands;
    case 'chmod':
    case 'chown':
      return operands.slice(1);
    case 'cp':
    case 'mv':
    case 'install':
    case 'ln':
    case 'rsync':
      return operands.slice(-1);
    case 'sed':
    case 'perl':
      return inPlaceFiles(args);
    case 'dd':
      return args.filter((a) => a.startsWith('of=')).map((a) => a.slice(3));
    default:
      return [];
  }
}

/** The files `sed -i` / `perl -pi` edit: operands that are not the script. */
function inPlaceFiles(args: string[]): string[] {
  if (!args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'))) return [];
  const scriptFlag = (a: string | undefined) => a === '-e' || a === '-f' || a === '--expression';
  const files = args.filter((a, i) => !a.startsWith('-') && !scriptFlag(args[i - 1]));
  return args.some((a) => scriptFlag(a)) ? files : files.slice(1);
}

/** Why writing to `target` is denied: a disk device, or a path outside the root and the writable places. */
function writeProblem(target: string, rules: CommandRules): string | undefined {
  if (DISK_DEVICE.test(target)) return `writing to a disk device (${target})`;
  if (SAFE_DEVICES.test(target) || target.startsWith('/proc/self/fd/')) return undefined;
  const home = /^(~|\$HOME|\$\{HOME\})(?=\/|$)/;
  if (!isAbsolute(target) && !home.test(target)) return undefined;
  const path = resolve(target.replace(home, homedir()));
  if (isInside(rules.root, path) || rules.writable.some((dir) => isInside(dir, path))) return undefined;
  return `writing to ${target}, outside the working root ${rules.root}`;
}

function pathProblem(input: unknown, root: string): string | undefined {
  const path = (input as { path?: unknown } | undefined)?.path;
  if (typeof path !== 'string') return undefined;
  if (isInside(root, resolve(root, path))) return undefined;
  return `path ${path} is outside the working root ${root}`;
}
