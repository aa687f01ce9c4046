import { existsSync } from 'node:fs';
import path from 'node:path';
import { execaSync } from 'execa';
import {
  cgroupSupport,
  cgroupsCountProcesses,
  DEFAULT_LIMITS,
  inCgroups,
  MIB,
  prlimitArgs,
  prlimitBinary,
  type ResourceLimits,
} from './resource-limits.ts';

import type { SandboxMode } from './sandbox-modes.ts';

export { SANDBOX_MODES, type SandboxMode } from './sandbox-modes.ts';

/** What an agent process may touch. Paths are absolute. */
export interface SandboxPolicy {
  /** Working directory, writable for the MetaAgent, read-only for task evaluation. */
  workdir: string;
  writable: boolean;
  /** Extra read-only paths (the project's node_modules, the evals folder). */
  readOnly: string[];
  /** Extra writable paths (the MetaAgent's transcript folder). Never a folder the harness writes. */
  readWrite?: string[];
  /** Unix socket of the gateway: the only way out. */
  gatewaySocket?: string;
  /** Defaults to DEFAULT_LIMITS. Applied with and without bubblewrap. */
  limits?: ResourceLimits;
}

/** Flags that bwrap on this machine accepts, found by trying them once. */
const BASE_FLAGS = ['--unshare-all', '--cap-drop', 'ALL'];
const NO_USERNS_FLAGS = ['--unshare-user', '--disable-userns'];

function bwrapWorks(extra: string[]): boolean {
  try {
    execaSync('bwrap', ['--ro-bind', '/', '/', ...BASE_FLAGS, ...extra, 'true'], {
      stdio: 'ignore',
      timeout: 10_000,
    });
    return true;
  } catch {
    return false;
  }
}

export function bwrapAvailable(): boolean {
  return bwrapWorks([]);
}

export type ResolvedSandbox =
  | {
      kind: 'bwrap';
      /** bubblewrap 0.8+: the sandbox cannot create user namespaces (no way to regain capabilities). */
      noUserns?: boolean;
    }
  | { kind: 'none'; why: string };

/** `auto` uses bubblewrap when it works on this machine. `bwrap` without it is the caller's usage error. */
export function resolveSandbox(mode: SandboxMode): ResolvedSandbox | { kind: 'missing' } {
  if (mode === 'none') return { kind: 'none', why: 'disabled with --sandbox none' };
  if (bwrapWorks(NO_USERNS_FLAGS)) return { kind: 'bwrap', noUserns: true };
  if (bwrapAvailable()) return { kind: 'bwrap' };
  return mode === 'bwrap'
    ? { kind: 'missing' }
    : { kind: 'none', why: 'bubblewrap (bwrap) is not installed' };
}

const SYSTEM_DIRS = ['/usr', '/bin', '/lib', '/lib64', '/lib32', '/sbin', '/etc/alternatives', '/etc/ssl'];
const SYSTEM_FILES = ['/etc/passwd', '/etc/group', '/etc/hosts', '/etc/resolv.conf', '/etc/nsswitch.conf'];

/** The command with the per-process rlimits applied (by `prlimit`, when installed). */
function limited(limits: ResourceLimits, file: string, args: string[]): { file: string; args: string[] } {
  const prlimit = prlimitBinary();
  return prlimit === null
    ? { file, args }
    : {
        file: prlimit,
        args: [...prlimitArgs(limits, cgroupsCountProcesses(cgroupSupport())), '--', file, ...args],
      };
}

/**
 * Wraps a command in bubblewrap: no capabilities (dropped, none to regain: no new privileges, no user
 * namespaces where bwrap supports it), read-only system folders, a private size-limited /tmp and /proc,
 * no network namespace, a clean environment, and only the listed project paths visible. With and without
 * bubblewrap the command runs under the policy's rlimits and, where the machine allows, in its own cgroups.
 */
export function wrapCommand(
  sandbox: ResolvedSandbox,
  policy: SandboxPolicy,
  file: string,
  args: string[],
  env: Record<string, string>,
): { file: string; args: string[]; env: Record<string, string> } {
  const limits = policy.limits ?? DEFAULT_LIMITS;
  const inner = limited(limits, file, args);
  if (sandbox.kind === 'none') return { ...inCgroups(cgroupSupport(), limits, inner), env };
  const bw: string[] = ['--die-with-parent', ...BASE_FLAGS, '--new-session', '--clearenv'];
  if (sandbox.noUserns === true) bw.push(...NO_USERNS_FLAGS);
  for (const dir of SYSTEM_DIRS) if (existsSync(dir)) bw.push('--ro-bind', dir, dir);
  for (const f of SYSTEM_FILES) if (existsSync(f)) bw.push('--ro-bind', f, f);
  bw.push('--proc', '/proc', '--dev', '/dev', '--size', String(limits.diskMb * MIB), '--tmpfs', '/tmp');
  const nodeDir = path.dirname(process.execPath);
  if (!SYSTEM_DIRS.some((d) => nodeDir.startsWith(`${d}/`))) bw.push('--ro-bind', nodeDir, nodeDir);
  for (const p of policy.readOnly) bw.push('--ro-bind', p, p);
  for (const p of policy.readWrite ?? []) bw.push('--bind', p, p);
  bw.push(policy.writable ? '--bind' : '--ro-bind', policy.workdir, policy.workdir);
  if (policy.gatewaySocket !== undefined) bw.push('--bind', policy.gatewaySocket, policy.gatewaySocket);
  for (const [key, value] of Object.entries(env)) bw.push('--setenv', key, value);
  bw.push('--chdir', policy.workdir, '--', inner.file, ...inner.args);
  return { ...inCgroups(cgroupSupport(), limits, { file: 'bwrap', args: bw }), env: {} };
}
