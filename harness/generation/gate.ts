import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DiffSummary, TreeReport } from '../process/index.ts';
import {
  type CommandSpec,
  lastLines,
  type ResolvedSandbox,
  type RunOptions,
  runToCompletion,
  type SandboxPolicy,
  wrapCommand,
} from '../process/index.ts';

const TSC = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));

/**
 * TypeScript's native compiler (7.x: the same checks, several times faster) where its package for this
 * platform is installed (an optional dependency); null elsewhere, where the project's tsc checks instead.
 */
function nativeTsc(): string | null {
  try {
    const manifest = import.meta.resolve(
      `@typescript/typescript-${process.platform}-${process.arch}/package.json`,
    );
    const exe = path.join(path.dirname(fileURLToPath(manifest)), 'lib', 'tsc');
    return existsSync(exe) ? exe : null;
  } catch {
    return null;
  }
}

const NATIVE_TSC = nativeTsc();

export type GateResult = { ok: true } | { ok: false; reason: string };

/** Where a gate step's output goes: a log in a folder no agent can write, capped and redacted. */
export type GateLog = Omit<RunOptions, 'timeoutMs' | 'diskWatch'>;

/**
 * The worktree as the MetaAgent left it, checked before git or any tool touches it: no links, no special
 * files, no nested repository, no file over the size limit. Pure.
 */
export function checkTree(report: TreeReport): GateResult {
  if (report.problems.length === 0) return { ok: true };
  const shown = report.problems.slice(0, 3).join('; ');
  const more = report.problems.length > 3 ? `; and ${report.problems.length - 3} more` : '';
  return { ok: false, reason: `the worktree holds what a variant may not: ${shown}${more}` };
}

/** The child must differ from its parent, touch only `agents/` and commit only regular files. Pure. */
export function checkDiff(diff: DiffSummary | null): GateResult {
  if (diff === null || diff.files.length === 0) return { ok: false, reason: 'the MetaAgent changed nothing' };
  if (diff.outside.length > 0) {
    return { ok: false, reason: `changed files outside agents/: ${diff.outside.slice(0, 5).join(', ')}` };
  }
  if (diff.notFiles.length > 0) {
    return { ok: false, reason: `committed links or submodules: ${diff.notFiles.slice(0, 5).join(', ')}` };
  }
  return { ok: true };
}

/** Files that can be part of the variant's TypeScript program (sources, declarations, JSON imports). */
const PROGRAM_FILE = /\.([cm]?[jt]sx?|json)$/i;

/**
 * Whether the child must be typechecked: not when every file it changed (all under `agents/`, checked
 * before) is one the compiler never reads, such as a prompt. Its program is then its parent's, which
 * passed this same check (or is variant 0, whose agents the project itself checks). Pure.
 */
export function typecheckNeeded(diff: Pick<DiffSummary, 'files'>): boolean {
  return diff.files.some((file) => PROGRAM_FILE.test(file));
}

/** The typecheck of a worktree, run like agent code: in the sandbox, the worktree read-only. */
export function typecheckCommand(sandbox: ResolvedSandbox, policy: SandboxPolicy): CommandSpec {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp', TMPDIR: '/tmp' };
  const args = ['--noEmit', '--pretty', 'false', '-p', policy.workdir];
  const wrapped =
    NATIVE_TSC === null
      ? wrapCommand(sandbox, policy, process.execPath, [TSC, ...args], env)
      : // One thread: on a busy machine it finishes sooner and spends half the CPU of its default four.
        wrapCommand(sandbox, policy, NATIVE_TSC, ['--singleThreaded', ...args], env);
  return { ...wrapped, cwd: policy.workdir };
}

export async function typecheck(command: CommandSpec, log: GateLog): Promise<GateResult> {
  const result = await runToCompletion(command, { ...log, timeoutMs: 180_000 });
  if (result.exitCode === 0) return { ok: true };
  return {
    ok: false,
    reason: result.timedOut ? 'typecheck timed out' : `typecheck failed: ${firstErrors(result.tail)}`,
  };
}

/** The first few compiler errors on one line; the whole output is in the gate log. */
function firstErrors(output: string): string {
  const errors = output.split('\n').filter((line) => line.includes('error TS'));
  const shown = errors.slice(0, 3).join('; ');
  return errors.length > 3 ? `${shown}; and ${errors.length - 3} more` : shown || lastLines(output, 3);
}

/** Loads an entry point (`entry` names it) with `--check`: it must import everything it needs and exit 0. */
export async function loadsEntryPoint(
  command: CommandSpec,
  entry: string,
  log: GateLog,
): Promise<GateResult> {
  const result = await runToCompletion(command, { ...log, timeoutMs: 60_000 });
  if (result.exitCode === 0) return { ok: true };
  return {
    ok: false,
    reason: `${path.basename(path.dirname(entry))}/${path.basename(entry)} --check ${result.timedOut ? 'timed out' : `exited ${result.exitCode}`}: ${lastLines(result.tail, 3)}`,
  };
}
