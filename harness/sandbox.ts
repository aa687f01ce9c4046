import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const SANDBOX_MODES = ['auto', 'bwrap', 'none'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** What an agent process may touch. Paths are absolute. */
export interface SandboxPolicy {
  /** Working directory, writable for the MetaAgent, read-only for task evaluation. */
  workdir: string;
  writable: boolean;
  /** Extra read-only paths (the project's node_modules, the evals folder). */
  readOnly: string[];
  /** Extra writable paths (the generation's log folder). */
  readWrite?: string[];
  /** Unix socket of the gateway: the only way out. */
  gatewaySocket?: string;
}

export function bwrapAvailable(): boolean {
  try {
    execFileSync('bwrap', ['--ro-bind', '/', '/', '--unshare-net', 'true'], {
      stdio: 'ignore',
      timeout: 10_000,
    });
    return true;
  } catch {
    return false;
  }
}

export type ResolvedSandbox = { kind: 'bwrap' } | { kind: 'none'; why: string };

/** `auto` uses bubblewrap when it works on this machine. `bwrap` without it is the caller's usage error. */
export function resolveSandbox(mode: SandboxMode): ResolvedSandbox | { kind: 'missing' } {
  if (mode === 'none') return { kind: 'none', why: 'disabled with --sandbox none' };
  if (bwrapAvailable()) return { kind: 'bwrap' };
  return mode === 'bwrap'
    ? { kind: 'missing' }
    : { kind: 'none', why: 'bubblewrap (bwrap) is not installed' };
}

const SYSTEM_DIRS = ['/usr', '/bin', '/lib', '/lib64', '/lib32', '/sbin', '/etc/alternatives', '/etc/ssl'];
const SYSTEM_FILES = ['/etc/passwd', '/etc/group', '/etc/hosts', '/etc/resolv.conf', '/etc/nsswitch.conf'];

/**
 * Wraps a command in bubblewrap: read-only system folders, a private /tmp and /proc, no network
 * namespace, a clean environment, and only the listed project paths visible.
 */
export function wrapCommand(
  sandbox: ResolvedSandbox,
  policy: SandboxPolicy,
  file: string,
  args: string[],
  env: Record<string, string>,
): { file: string; args: string[]; env: Record<string, string> } {
  if (sandbox.kind === 'none') return { file, args, env };
  const bw: string[] = ['--die-with-parent', '--unshare-all', '--new-session', '--clearenv'];
  for (const dir of SYSTEM_DIRS) if (existsSync(dir)) bw.push('--ro-bind', dir, dir);
  for (const f of SYSTEM_FILES) if (existsSync(f)) bw.push('--ro-bind', f, f);
  bw.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  const nodeDir = path.dirname(process.execPath);
  if (!SYSTEM_DIRS.some((d) => nodeDir.startsWith(`${d}/`))) bw.push('--ro-bind', nodeDir, nodeDir);
  for (const p of policy.readOnly) bw.push('--ro-bind', p, p);
  for (const p of policy.readWrite ?? []) bw.push('--bind', p, p);
  bw.push(policy.writable ? '--bind' : '--ro-bind', policy.workdir, policy.workdir);
  if (policy.gatewaySocket !== undefined) bw.push('--bind', policy.gatewaySocket, policy.gatewaySocket);
  for (const [key, value] of Object.entries(env)) bw.push('--setenv', key, value);
  bw.push('--chdir', policy.workdir, '--', file, ...args);
  return { file: 'bwrap', args: bw, env: {} };
}
