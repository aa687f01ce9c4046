import { isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * The safety gate every tool call passes before it runs. This is advice inside the agent (it stops
 * obvious mistakes and tells the model why); the sandbox around the process is the real boundary.
 */

export type ToolCallRequest = { name: string; input: unknown };
export type SafetyContext = { root: string };
export type SafetyDecision = { allow: true } | { allow: false; reason: string };
export type BeforeToolCall = (call: ToolCallRequest, ctx: SafetyContext) => SafetyDecision;

/** A deny rule matched against a call's text (the command for `bash`, the JSON input otherwise). */
export type DenyPattern = { pattern: RegExp; reason: string; tool?: string };

export type SafetyPolicyOptions = {
  /** Checked after the built-in rules. */
  denyPatterns?: DenyPattern[];
  /** Runs first; a decision it returns is final, `undefined` falls through to the rules. */
  override?: (call: ToolCallRequest, ctx: SafetyContext) => SafetyDecision | undefined;
};

const NETWORK_COMMANDS = new Set([
  'curl',
  'wget',
  'nc',
  'ncat',
  'netcat',
  'ssh',
  'scp',
  'sftp',
  'telnet',
  'ftp',
]);
const POWER_COMMANDS = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);
const COMMAND_PREFIXES = new Set(['sudo', 'exec', 'nohup', 'time', 'env', 'command', 'xargs', 'nice']);
const DANGEROUS_TARGET = /^(\/|~|\$HOME|\$\{HOME\}|\.\.)(\/\.\.)*\/?\*?$/;

const COMMAND_PATTERNS: DenyPattern[] = [
  { pattern: /:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}/, reason: 'fork bomb' },
  { pattern: /\b(\w+)\(\)\s*\{[^}]*\b\1\s*\|\s*\1\s*&/, reason: 'fork bomb' },
  { pattern: /\bmkfs(\.\w+)?\b/, reason: 'formatting a file system (mkfs)' },
  { pattern: /\bdd\b[^\n;|&]*\bof=\/dev\//, reason: 'dd writing to a device' },
  { pattern: />\s*\/dev\/(sd|nvme|hd|vd|xvd)\w*/, reason: 'writing to a disk device' },
];

export function createSafetyPolicy(options: SafetyPolicyOptions = {}): BeforeToolCall {
  return (call, ctx) => {
    const overridden = options.override?.(call, ctx);
    if (overridden) return overridden;
    const text = callText(call);
    const reason =
      (call.name === 'bash' ? commandProblem(text) : undefined) ??
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

/** Why a shell command is denied, or undefined when it is allowed. */
export function commandProblem(command: string): string | undefined {
  const matched = COMMAND_PATTERNS.find((d) => d.pattern.test(command));
  if (matched) return matched.reason;
  for (const segment of command.split(/;|&&|\|\||\||&|\n|\$\(|`|\(|\)/)) {
    const words = segment.trim().split(/\s+/).filter(Boolean).map(unquote);
    while (words.length > 0 && (COMMAND_PREFIXES.has(words[0]!) || /^\w+=/.test(words[0]!))) words.shift();
    const [name = '', ...args] = words;
    const program = name.split('/').pop() ?? name;
    if (NETWORK_COMMANDS.has(program)) return `network tool (${program}); there is no network access`;
    if (POWER_COMMANDS.has(program)) return `${program} would stop the machine`;
    if (program === 'rm' && isRecursive(args) && args.some((a) => DANGEROUS_TARGET.test(a))) {
      return 'recursive rm of /, ~ or a parent directory';
    }
    if (program === 'chmod' && isRecursive(args) && args.some((a) => DANGEROUS_TARGET.test(a))) {
      return 'recursive chmod of /, ~ or a parent directory';
    }
    if (program === 'git' && gitSubcommand(args) === 'push') return 'git push (publishing is not allowed)';
  }
  return undefined;
}

function unquote(word: string): string {
  return word.replace(/^['"]|['"]$/g, '');
}

function isRecursive(args: string[]): boolean {
  return args.some((a) => /^-[a-zA-Z]*[rR]/.test(a) || a === '--recursive');
}

function gitSubcommand(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-C' || arg === '-c' || arg === '--git-dir' || arg === '--work-tree') i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

function pathProblem(input: unknown, root: string): string | undefined {
  const path = (input as { path?: unknown } | undefined)?.path;
  if (typeof path !== 'string') return undefined;
  const resolved = resolve(root, path);
  const rel = relative(resolve(root), resolved);
  if (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)) return undefined;
  return `path ${path} is outside the working root ${root}`;
}
