import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What one agent process (with everything it starts) may use. Sizes in MiB or KiB as named. */
export interface ResourceLimits {
  /** Resident memory of the whole process tree (cgroup); not enforced without cgroups. */
  memoryMb: number;
  /** Processes and threads at once (cgroup pids.max, else RLIMIT_NPROC, which root ignores). */
  processes: number;
  /** Open files per process (RLIMIT_NOFILE). */
  openFiles: number;
  /** Largest file a process may write (RLIMIT_FSIZE). */
  fileSizeMb: number;
  /** The private /tmp's size (tmpfs) and the most a MetaAgent may add to its worktree. */
  diskMb: number;
  /** Each log, transcript and answer is cut here, with a note saying so. */
  outputKb: number;
}

export const DEFAULT_LIMITS: ResourceLimits = {
  memoryMb: 2048,
  processes: 256,
  openFiles: 1024,
  fileSizeMb: 64,
  diskMb: 512,
  outputKb: 1024,
};

export const MIB = 1024 * 1024;

/** The largest count of MiB whose count of bytes is still exact (and within the kernel's 64-bit limits). */
const MAX_MIB = Math.floor(Number.MAX_SAFE_INTEGER / MIB);

/**
 * Open files a TaskAgent process needs: about 32 for itself (Node, its loader, the gateway connection) and 2
 * for each task it runs at once. Measured with the simulated model: one task at a time ran at 24, eight at
 * once needed more than 24 and ran at 32, thirty-two needed more than 48 and ran at 56.
 */
export function openFilesNeeded(tasksAtOnce: number): number {
  return 32 + 2 * tasksAtOnce;
}

export interface LimitRange {
  min: number;
  /** null: bounded by the machine only (see limitsAboveMachine). */
  max: number | null;
  /** Said after "a whole number", e.g. " of MiB". */
  unit: string;
  /** Why the range is what it is, said after it ('' when it needs no reason). */
  why: string;
}

/**
 * What each limit may be. The floors were measured by running generations under each limit (bubblewrap,
 * cgroup v1): below them the harness's own steps fail, so every task or edit would fail for the limit and
 * not for the variant. A typecheck of a variant's code was killed at 256 MiB with the TypeScript compiler
 * (at 128 MiB with the native one) and ran at 288; a TaskAgent ran at 48. Node died at 12 processes (its
 * threads count) and ran at 16. The ceilings are where a number stops being exact in bytes, or what the
 * kernel takes (a cgroup's pids.max); open files and processes are also bounded by the machine.
 */
export const LIMIT_RANGES: Record<keyof ResourceLimits, LimitRange> = {
  memoryMb: {
    min: 384,
    max: MAX_MIB,
    unit: ' of MiB',
    why: " (the typecheck of a variant's code takes about 300 MiB)",
  },
  processes: {
    min: 32,
    max: 4_194_304,
    unit: '',
    why: ' (Node alone runs about a dozen threads, and each one counts)',
  },
  // The floor depends on the tasks a TaskAgent process runs at once: the run configuration checks it.
  openFiles: { min: 1, max: null, unit: '', why: '' },
  fileSizeMb: { min: 1, max: MAX_MIB, unit: ' of MiB', why: '' },
  diskMb: { min: 1, max: MAX_MIB, unit: ' of MiB', why: '' },
  outputKb: {
    min: 1,
    max: 256 * 1024,
    unit: ' of KiB',
    why: ' (256 MiB: a reply line of twice this must fit in memory as one string)',
  },
};

/**
 * The `prlimit` arguments (before `--`) that apply the per-process limits. RLIMIT_NPROC counts every process
 * of the user on the machine, so where a cgroup counts the agent's own processes (`processesCounted`) it is
 * left unset: otherwise agents running beside each other (or any other process of the same user) would use
 * up each other's processes.
 */
export function prlimitArgs(limits: ResourceLimits, processesCounted = false): string[] {
  return [
    `--nofile=${limits.openFiles}`,
    `--fsize=${limits.fileSizeMb * MIB}`,
    ...(processesCounted ? [] : [`--nproc=${limits.processes}`]),
    '--core=0',
  ];
}

/** A limit this machine cannot give an agent process, and the most it can. */
export interface LimitAboveMachine {
  field: 'openFiles' | 'processes';
  max: number;
  /** What bounds it, for the message. */
  why: string;
}

/** The hard limit of `name` in /proc/self/limits; null when unlimited or unknown. Never throws. */
function hardLimit(name: string): number | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(name));
    const hard = line?.slice(name.length).trim().split(/\s+/)[1];
    return hard === undefined || !/^\d+$/.test(hard) ? null : Number(hard);
  } catch {
    return null;
  }
}

/**
 * The limits above what `prlimit` can set here: a process may not raise its hard limit (without privileges
 * a container seldom has, root included), so every agent process would fail to start. Nothing when prlimit
 * is not installed (no rlimits are set then).
 */
export function limitsAboveMachine(
  limits: Pick<ResourceLimits, 'openFiles' | 'processes'>,
): LimitAboveMachine[] {
  if (prlimitBinary() === null) return [];
  const above: LimitAboveMachine[] = [];
  const files = hardLimit('Max open files');
  if (files !== null && limits.openFiles > files)
    above.push({ field: 'openFiles', max: files, why: 'the hard limit on open files, ulimit -Hn' });
  const processes = hardLimit('Max processes');
  if (processes !== null && limits.processes > processes)
    above.push({ field: 'processes', max: processes, why: 'the hard limit on processes, ulimit -Hu' });
  return above;
}

/** One cgroup controller the harness can place an agent process in. */
interface CgroupController {
  /** Folder that holds one cgroup per agent process (`p<pid>`). */
  base: string;
  /** Limit files and their values for these limits. */
  limits: (limits: ResourceLimits) => [file: string, value: string][];
}

export interface CgroupSupport {
  version: 'v1' | 'v2' | null;
  controllers: CgroupController[];
}

/** Whether these cgroups cap an agent's processes (pids.max), so RLIMIT_NPROC is not needed. */
export function cgroupsCountProcesses(support: CgroupSupport): boolean {
  return support.controllers.some((c) => c.limits(DEFAULT_LIMITS).some(([file]) => file === 'pids.max'));
}

const CGROUP_ROOT = '/sys/fs/cgroup';

/** This process's cgroup path per v1 controller (and `''` for v2), from `/proc/self/cgroup`. */
function ownCgroups(): Map<string, string> {
  const paths = new Map<string, string>();
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const [, names, where] = line.split(':');
    if (names === undefined || where === undefined) continue;
    for (const name of names.split(',')) paths.set(name, where);
  }
  return paths;
}

/** Creates, limits and removes a probe cgroup under `base`: true when agent processes can be placed there. */
function probe(controller: CgroupController): boolean {
  const dir = path.join(controller.base, `probe-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true });
    for (const [file, value] of controller.limits(DEFAULT_LIMITS)) writeFileSync(path.join(dir, file), value);
    return true;
  } catch {
    return false;
  } finally {
    try {
      rmdirSync(dir);
    } catch {}
  }
}

function detectCgroups(): CgroupSupport {
  try {
    const own = ownCgroups();
    const name = `hyperagents-${process.pid}`;
    if (existsSync(path.join(CGROUP_ROOT, 'cgroup.controllers'))) {
      const self = own.get('') ?? '/';
      const base = path.join(CGROUP_ROOT, self, name);
      mkdirSync(base, { recursive: true });
      writeFileSync(path.join(base, 'cgroup.subtree_control'), '+pids +memory');
      const controller: CgroupController = {
        base,
        limits: (l) => [
          ['pids.max', String(l.processes)],
          ['memory.max', String(l.memoryMb * MIB)],
        ],
      };
      return probe(controller) ? { version: 'v2', controllers: [controller] } : none();
    }
    const v1: CgroupController[] = [];
    const pids = own.get('pids');
    if (pids !== undefined && existsSync(path.join(CGROUP_ROOT, 'pids', 'cgroup.procs'))) {
      v1.push({
        base: path.join(CGROUP_ROOT, 'pids', pids, name),
        limits: (l) => [['pids.max', String(l.processes)]],
      });
    }
    const memory = own.get('memory');
    if (memory !== undefined && existsSync(path.join(CGROUP_ROOT, 'memory', 'cgroup.procs'))) {
      v1.push({
        base: path.join(CGROUP_ROOT, 'memory', memory, name),
        limits: (l) => [['memory.limit_in_bytes', String(l.memoryMb * MIB)]],
      });
    }
    const usable = v1.filter(probe);
    return usable.length === 0 ? none() : { version: 'v1', controllers: usable };
  } catch {
    return none();
  }
}

const none = (): CgroupSupport => ({ version: null, controllers: [] });

let detected: CgroupSupport | undefined;

/** What this machine lets the harness use, detected once per process. */
export function cgroupSupport(): CgroupSupport {
  if (detected === undefined) {
    const support = detectCgroups();
    for (const c of support.controllers) sweepStale(path.dirname(c.base));
    detected = support;
    // Every agent process has ended by now (their trees die with them), so their cgroups can go.
    process.once('exit', () => {
      for (const c of support.controllers) sweep(c.base);
    });
  }
  return detected;
}

let prlimitPath: string | null | undefined;

/** The `prlimit` binary (util-linux), or null when it is not installed. */
export function prlimitBinary(): string | null {
  if (prlimitPath === undefined) {
    try {
      prlimitPath =
        execFileSync('sh', ['-c', 'command -v prlimit'], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        }).trim() || null;
    } catch {
      prlimitPath = null;
    }
  }
  return prlimitPath;
}

/**
 * Wraps a command so that it moves itself into fresh per-process cgroups (limits written first) and then
 * execs the command: everything it starts is counted from its first instruction. Fails closed: if a
 * cgroup cannot be made, the command does not run.
 */
export function inCgroups(
  support: CgroupSupport,
  limits: ResourceLimits,
  command: { file: string; args: string[] },
): { file: string; args: string[] } {
  if (support.controllers.length === 0) return command;
  const steps = support.controllers.map((c, i) => {
    const writes = c.limits(limits).map(([file, value]) => `echo ${value} > "$d${i}/${file}"`);
    return `d${i}="${c.base}/p$$"; mkdir -p "$d${i}"; ${writes.join('; ')}; echo $$ > "$d${i}/cgroup.procs"`;
  });
  return {
    file: '/bin/sh',
    args: ['-ec', `${steps.join('\n')}\nexec "$@"`, 'sh', command.file, ...command.args],
  };
}

/** Removes an empty cgroup; true when it is gone. Never throws. */
function removeCgroup(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * Removes the cgroups of an agent process that has exited. Its tree may take a moment to finish dying
 * (a cgroup with processes cannot be removed), so this retries for a few seconds. Never throws.
 */
export function releaseCgroups(pid: number | undefined, attempt = 0): void {
  if (pid === undefined) return;
  const left = cgroupSupport().controllers.filter((c) => !removeCgroup(path.join(c.base, `p${pid}`)));
  if (left.length > 0 && attempt < 20) setTimeout(() => releaseCgroups(pid, attempt + 1), 250).unref();
}

/** Whether a process with this pid exists (one we may not signal counts). */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes the empty cgroups that harness processes which have since ended left behind. Never throws. */
function sweepStale(parent: string): void {
  try {
    for (const name of readdirSync(parent)) {
      const pid = /^hyperagents-(\d+)$/.exec(name)?.[1];
      if (pid === undefined || alive(Number(pid))) continue;
      sweep(path.join(parent, name));
    }
  } catch {}
}

/** Removes a harness process's cgroup folder and the empty cgroups of its agent processes. Never throws. */
function sweep(base: string): void {
  try {
    for (const child of readdirSync(base)) if (/^p\d+$/.test(child)) removeCgroup(path.join(base, child));
  } catch {}
  removeCgroup(base);
}

/** What the archive records about how a run's agent processes were confined. */
export interface Enforcement {
  limits: ResourceLimits;
  rlimits: boolean;
  cgroups: 'v1' | 'v2' | null;
  cgroupControllers: string[];
}

export function describeEnforcement(limits: ResourceLimits): Enforcement {
  const support = cgroupSupport();
  return {
    limits,
    rlimits: prlimitBinary() !== null,
    cgroups: support.version,
    cgroupControllers: support.controllers.flatMap((c) => c.limits(limits).map(([file]) => file)),
  };
}
