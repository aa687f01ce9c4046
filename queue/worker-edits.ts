import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { checkTree, META_ENTRY, metaAgentCommand } from '../harness/generation/index.ts';
import type { ResolvedSandbox } from '../harness/process/index.ts';
import {
  type CommandSpec,
  inspectTree,
  MIB,
  precompileAgent,
  readCapped,
  runToCompletion,
  trackTree,
  treeLimits,
} from '../harness/process/index.ts';
import { fetchTree, untar } from './code-transfer.ts';
import { type EditJob, type EditJobResult, EditJobSchema, encodeEditResult } from './protocol.ts';
import type { Relay } from './relay.ts';
import { type JobGateway, jobGateway, readJob, throwIfLostInTransit } from './worker-jobs.ts';

export interface EditWorkerDeps {
  /** This worker's name in the queue: recorded with each MetaAgent run it did. */
  name: string;
  version: string;
  client: Redis;
  relayFor(url: string): Promise<Relay>;
  sandbox: ResolvedSandbox;
  nodeModules: string;
  workDir: string;
  note(line: string): void;
}

/**
 * Runs the MetaAgent jobs of `--remote-generations`: the parent's tree (fetched as a task's code is) is
 * recorded in a throwaway repository, the MetaAgent of the job's commit edits it in this machine's sandbox
 * with the evals folder the coordinator wrote and the coordinator's gateway reached through the relay, and
 * the edit goes back as a binary diff with the process's end, log and transcript. Like a task job, a job
 * whose model calls could not reach the gateway fails and is tried again: a call lost in transit is not the
 * MetaAgent's doing. Everything of the job here is removed when it ends.
 */
export function editJobProcessor(deps: EditWorkerDeps): (job: Job) => Promise<EditJobResult> {
  let count = 0;
  return async (job) => {
    const edit = readJob(EditJobSchema, job.data, deps.version, 'a MetaAgent job');
    const gateway = await jobGateway(deps.client, deps.relayFor, edit.runKey);
    const dir = path.join(deps.workDir, `edit-${edit.runKey.slice(0, 12)}-${edit.variantId}-${++count}`);
    try {
      return await runEdit(deps, job, edit, gateway, dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** What a MetaAgent job works on, all under the job's folder. */
interface EditFolders {
  dir: string;
  /** The parent's tree, which the MetaAgent edits. */
  tree: string;
  /** The MetaAgent's own code: the parent's tree, or the job's frozen MetaAgent commit beside it. */
  metaRoot: string;
  evalsDir: string;
  agentOut: string;
  /** The parent's tree recorded before the MetaAgent ran: its `changes()` are the edit. */
  tracked: { changes(): Promise<Buffer> };
}

/** Fetches the job's trees, records the parent's in a throwaway repository and unpacks the evals folder. */
async function prepareEdit(deps: EditWorkerDeps, edit: EditJob, dir: string): Promise<EditFolders> {
  const tree = path.join(dir, 'tree');
  const evalsDir = path.join(dir, 'evals');
  const agentOut = path.join(dir, 'out');
  await fetchTree(deps.client, { runKey: edit.runKey, commit: edit.parentCommit }, tree, deps.nodeModules);
  const frozen = edit.metaCommit !== edit.parentCommit;
  const metaRoot = frozen ? path.join(dir, 'meta') : tree;
  if (frozen) {
    await fetchTree(
      deps.client,
      { runKey: edit.runKey, commit: edit.metaCommit },
      metaRoot,
      deps.nodeModules,
    );
  }
  const tracked = await trackTree(path.join(dir, 'tree.git'), tree);
  mkdirSync(evalsDir);
  mkdirSync(agentOut);
  await untar(Buffer.from(edit.evals, 'base64'), evalsDir);
  return { dir, tree, metaRoot, evalsDir, agentOut, tracked };
}

/** The MetaAgent's command in this machine's sandbox, its modules compiled first (as on the coordinator). */
async function metaCommand(
  deps: EditWorkerDeps,
  edit: EditJob,
  gateway: JobGateway,
  folders: EditFolders,
): Promise<CommandSpec> {
  // Its modules compiled before it runs, as on the coordinator: its process compiles nothing at start.
  const compiled = await precompileAgent({
    worktree: folders.metaRoot,
    entry: META_ENTRY,
    outDir: path.join(folders.dir, 'meta-agent'),
    nodeModules: deps.nodeModules,
    cacheDir: path.join(deps.workDir, 'build-cache'),
  });
  const { relay } = gateway;
  return metaAgentCommand(deps.sandbox, {
    worktree: folders.tree,
    metaRoot: folders.metaRoot,
    compiled,
    evalsDir: folders.evalsDir,
    agentOut: folders.agentOut,
    nodeModules: deps.nodeModules,
    gateway: { url: `unix:${relay.socketPath}`, token: edit.token, socket: relay.socketPath },
    limits: edit.limits,
    iterationsLeft: edit.iterationsLeft,
  });
}

/** Runs the MetaAgent on the job's tree and sends back its edit (refused edits as an empty patch). */
async function runEdit(
  deps: EditWorkerDeps,
  job: Job,
  edit: EditJob,
  gateway: JobGateway,
  dir: string,
): Promise<EditJobResult> {
  const folders = await prepareEdit(deps, edit, dir);
  deps.note(`variant ${edit.variantId} of run ${edit.runId}: MetaAgent started`);
  const command = await metaCommand(deps, edit, gateway, folders);
  const cap = edit.limits.outputKb * 1024;
  const logFile = path.join(dir, 'meta-agent.log');
  const failuresBefore = gateway.relay.failures();
  const finished = await runToCompletion(command, {
    logFile,
    outputCapBytes: cap,
    timeoutMs: edit.metaTimeoutMs,
    diskWatch: { dir: folders.tree, maxBytes: edit.limits.diskMb * MIB },
  });
  await throwIfLostInTransit(job, gateway, failuresBefore, finished.exitCode !== 0, deps.note);
  const checked = checkTree(inspectTree(folders.tree, treeLimits(edit.limits)));
  const patch = checked.ok ? await folders.tracked.changes() : Buffer.alloc(0);
  deps.note(`variant ${edit.variantId} of run ${edit.runId}: MetaAgent exited (${finished.exitCode})`);
  return encodeEditResult({
    kind: 'ran',
    worker: deps.name,
    exitCode: finished.exitCode,
    timedOut: finished.timedOut,
    overLimit: finished.overLimit,
    tail: finished.tail,
    log: readCapped(logFile, cap) ?? '',
    transcript: readCapped(path.join(folders.agentOut, 'meta-transcript.json'), cap),
    refused: checked.ok ? null : checked.reason,
    patch,
  });
}
