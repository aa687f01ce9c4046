import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { type Job, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import { checkTree, META_ENTRY, metaAgentCommand } from '../harness/generation/index.ts';
import type { ResolvedSandbox } from '../harness/process/index.ts';
import {
  inspectTree,
  MIB,
  precompileAgent,
  readCapped,
  runToCompletion,
  trackTree,
  treeLimits,
} from '../harness/process/index.ts';
import { fetchTree, untar } from './code-transfer.ts';
import { type EditJobResult, EditJobSchema, encodeEditResult, gatewayKey } from './protocol.ts';
import { type Relay, reachable } from './relay.ts';

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
    const parsed = EditJobSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError('a MetaAgent job this version cannot read');
    const edit = parsed.data;
    if (edit.version !== deps.version) {
      throw new UnrecoverableError(`job of version ${edit.version}, worker of version ${deps.version}`);
    }
    const url = await deps.client.get(gatewayKey(edit.runKey));
    if (url === null) throw new Error('the coordinator has not published its gateway');
    const relay = await deps.relayFor(url);
    const dir = path.join(deps.workDir, `edit-${edit.runKey.slice(0, 12)}-${edit.variantId}-${++count}`);
    const tree = path.join(dir, 'tree');
    const evalsDir = path.join(dir, 'evals');
    const agentOut = path.join(dir, 'out');
    try {
      await fetchTree(
        deps.client,
        { runKey: edit.runKey, commit: edit.parentCommit },
        tree,
        deps.nodeModules,
      );
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
      deps.note(`variant ${edit.variantId} of run ${edit.runId}: MetaAgent started`);
      // Its modules compiled before it runs, as on the coordinator: its process compiles nothing at start.
      const compiled = await precompileAgent({
        worktree: metaRoot,
        entry: META_ENTRY,
        outDir: path.join(dir, 'meta-agent'),
        nodeModules: deps.nodeModules,
        cacheDir: path.join(deps.workDir, 'build-cache'),
      });
      const command = metaAgentCommand(deps.sandbox, {
        worktree: tree,
        metaRoot,
        compiled,
        evalsDir,
        agentOut,
        nodeModules: deps.nodeModules,
        gateway: { url: `unix:${relay.socketPath}`, token: edit.token, socket: relay.socketPath },
        limits: edit.limits,
        iterationsLeft: edit.iterationsLeft,
      });
      const cap = edit.limits.outputKb * 1024;
      const logFile = path.join(dir, 'meta-agent.log');
      const failuresBefore = relay.failures();
      const finished = await runToCompletion(command, {
        logFile,
        outputCapBytes: cap,
        timeoutMs: edit.metaTimeoutMs,
        diskWatch: { dir: tree, maxBytes: edit.limits.diskMb * MIB },
      });
      if (
        relay.failures() > failuresBefore ||
        (finished.exitCode !== 0 && !(await reachable(new URL(url))))
      ) {
        const reason = `a model call through the coordinator's gateway at ${url} failed in transit (${relay.lastFailure() ?? 'no answer'}); the job will be tried again`;
        deps.note(`job ${job.id}: ${reason}`);
        throw new Error(reason);
      }
      const checked = checkTree(inspectTree(tree, treeLimits(edit.limits)));
      const patch = checked.ok ? await tracked.changes() : Buffer.alloc(0);
      deps.note(`variant ${edit.variantId} of run ${edit.runId}: MetaAgent exited (${finished.exitCode})`);
      return encodeEditResult({
        kind: 'ran',
        worker: deps.name,
        exitCode: finished.exitCode,
        timedOut: finished.timedOut,
        overLimit: finished.overLimit,
        tail: finished.tail,
        log: readCapped(logFile, cap) ?? '',
        transcript: readCapped(path.join(agentOut, 'meta-transcript.json'), cap),
        refused: checked.ok ? null : checked.reason,
        patch,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
