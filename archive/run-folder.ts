import { lstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { readNoFollow } from '../system/read-no-follow.ts';

/*
 * A run folder, <runs>/<run-id>/: every file and folder in it is named here, and only here.
 */

/** The name of a run's archive, in its folder and in its bundle. */
export const ARCHIVE_NAME = 'archive.sqlite';
/** The name of a run's variant repository, in its folder and in its bundle. */
export const VARIANT_REPO_NAME = 'variants.git';
/**
 * A variant's own folder inside each folder of the run that holds one per variant: logs, worktrees, builds,
 * workspaces, agent output, evals.
 */
export const variantFolder = (id: number): string => `variant-${id}`;

/** The run's archive: its configuration, variants, evaluations, task results, model calls and events. */
export const archiveFile = (runDir: string): string => path.join(runDir, ARCHIVE_NAME);
/** The bare git repository that holds the code of every variant, one commit each. */
export const variantRepoDir = (runDir: string): string => path.join(runDir, VARIANT_REPO_NAME);
/** `run.lock` in a run folder holds the pid of the process running it; it is removed when the run ends. */
export const runLockFile = (runDir: string): string => path.join(runDir, 'run.lock');
/** The run's control secret (see control-secret.ts), mode 0600. */
export const controlSecretFile = (runDir: string): string => path.join(runDir, 'control-secret');
/** The socket of the run's LLM gateway while it runs. */
export const gatewaySocketFile = (runDir: string): string => path.join(runDir, 'gateway.sock');
/** The logs of every variant, one folder each (see variantLogDir). */
export const logsDir = (runDir: string): string => path.join(runDir, 'logs');
/** A variant's logs, relative to the run folder: its MetaAgent's log and transcript, its TaskAgent's log. */
export const variantLogParts = (id: number): string[] => ['logs', variantFolder(id)];
export const variantLogDir = (runDir: string, id: number): string =>
  path.join(runDir, ...variantLogParts(id));
/** The MetaAgent's transcript in a variant's log folder (and where the agent writes it). */
export const META_TRANSCRIPT = 'meta-transcript.json';
/** The TaskAgent processes' log in a variant's log folder. */
export const TASK_AGENT_LOG = 'task-agent.log';
/** The MetaAgent process's output (every step it took), in a variant's log folder. */
export const META_AGENT_LOG = 'meta-agent.log';
/** The gate's output (the whole typecheck, the entry points' `--check`), in a variant's log folder. */
export const GATE_LOG = 'gate.log';
/** Every log a variant's folder can hold, in the order a reader goes through them. */
export const VARIANT_LOGS = [META_AGENT_LOG, GATE_LOG, TASK_AGENT_LOG] as const;
export type VariantLogName = (typeof VARIANT_LOGS)[number];
/** The git worktrees checked out while the run goes (variants, parent choices, evaluations). */
export const worktreesDir = (runDir: string): string => path.join(runDir, 'worktrees');
/** The evals folders shown to MetaAgents. */
export const evalsDir = (runDir: string): string => path.join(runDir, 'evals');
/** The build folders of the agents' code, one per worktree, and the build cache. */
export const buildsDir = (runDir: string): string => path.join(runDir, 'builds');
/**
 * The folders TaskAgent processes work on workspace tasks in, one per worktree: each process's writable
 * folder and the harness's own beside it (see harness/evaluation/workspace-folders.ts).
 */
export const workspacesDir = (runDir: string): string => path.join(runDir, 'workspaces');
/** What a MetaAgent process writes besides its worktree (its transcript), one folder per variant. */
export const agentOutputDir = (runDir: string): string => path.join(runDir, 'agent-output');
/**
 * The simulated model's batch endpoint (`--batch` with `--model sim`): one JSON file per batch it was given,
 * kept as a provider keeps its batches, so a run killed while one is pending finds it when resumed.
 */
export const simBatchesDir = (runDir: string): string => path.join(runDir, 'sim-batches');
/**
 * An experiment's best-of-k baseline runs variant 0 alone and keeps no archive: its folder holds this record
 * of its attempts instead.
 */
export const baselineRecordFile = (runDir: string): string => path.join(runDir, 'baseline.json');
/** The result cache shared by the runs of one folder of runs, beside them. */
export const evalCacheFile = (runsDir: string): string => path.join(runsDir, 'eval-cache.sqlite');
/** The result cache a run shares with the runs beside it. */
export const runEvalCacheFile = (runDir: string): string => evalCacheFile(path.dirname(runDir));

/**
 * The pid of the live process that holds the run (this one included), or null when nobody does: no lock,
 * or the lock of a process that died without removing it (SIGKILL, a reboot).
 */
export function runLockHolder(runDir: string): number | null {
  let text: string;
  try {
    text = readFileSync(runLockFile(runDir), 'utf8');
  } catch {
    return null;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 && processAlive(pid) ? pid : null;
}

/** Whether a process with this pid exists (one we may not signal counts). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A run id as it may appear in a URL or on a command line: one plain folder name, no path. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export type RunLookup =
  | { ok: true; dir: string; id: string }
  | { ok: false; reason: string; known: string[] };

const isPlainDir = (p: string): boolean => {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
};
const isPlainFile = (p: string): boolean => {
  try {
    return lstatSync(p).isFile();
  } catch {
    return false;
  }
};

/** The run folders directly under `runsDir` (real folders holding an archive.sqlite), sorted by name. */
export function listRunIds(runsDir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(runsDir);
  } catch {
    return [];
  }
  return entries
    .filter((name) => RUN_ID.test(name) && isPlainDir(path.join(runsDir, name)))
    .filter((name) => isPlainFile(archiveFile(path.join(runsDir, name))))
    .sort();
}

/**
 * A run named by id: a folder directly under `runsDir`. Rejects anything that could lead elsewhere
 * (separators, `..`, encoded forms already decoded into either, symbolic links), so a name taken from
 * a URL can only ever open a run inside `runsDir`.
 */
export function runById(runsDir: string, id: string): RunLookup {
  const known = listRunIds(runsDir);
  if (!RUN_ID.test(id) || id === '..' || !known.includes(id)) {
    return { ok: false, reason: `no run "${id}" in ${runsDir}`, known };
  }
  const root = realpathSync(runsDir);
  const dir = realpathSync(path.join(runsDir, id));
  if (path.dirname(dir) !== root) return { ok: false, reason: `no run "${id}" in ${runsDir}`, known };
  return { ok: true, dir, id };
}

/** A run named on the command line: an id under `runsDir`, or a run folder given by path. */
export function findRun(runsDir: string, ref: string): RunLookup {
  const byId = RUN_ID.test(ref) ? runById(runsDir, ref) : null;
  if (byId?.ok) return byId;
  if (isPlainFile(archiveFile(ref))) {
    const dir = realpathSync(ref);
    return { ok: true, dir, id: path.basename(dir) };
  }
  return {
    ok: false,
    reason: `no run "${ref}": it is neither a run id in ${runsDir} nor a folder holding archive.sqlite`,
    known: listRunIds(runsDir),
  };
}

/** `RUN:VARIANT` split at its last colon (a run folder path may hold colons); null when malformed. Pure. */
export function parseVariantRef(ref: string): { run: string; variant: number } | null {
  const at = ref.lastIndexOf(':');
  if (at <= 0) return null;
  const id = ref.slice(at + 1);
  if (!/^\d+$/.test(id)) return null;
  return { run: ref.slice(0, at), variant: Number(id) };
}

/**
 * Reads a file inside a run folder written by agents (logs/...): refuses symbolic links anywhere
 * below the run folder and files over `maxBytes`, since an agent could have planted either.
 * Returns null when the file is missing or refused.
 */
export function readAgentFile(
  runDir: string,
  relative: readonly string[],
  maxBytes = 8 * 1024 * 1024,
): string | null {
  let at = runDir;
  for (const part of relative.slice(0, -1)) {
    at = path.join(at, part);
    if (!isPlainDir(at)) return null;
  }
  const read = readNoFollow(path.join(at, relative.at(-1) ?? ''), maxBytes);
  return read === null || read.size > maxBytes ? null : read.bytes.toString('utf8');
}
