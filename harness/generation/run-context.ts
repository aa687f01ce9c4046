import path from 'node:path';
import type { Archive, EvalCache } from '../../archive/index.ts';
import { variantLogDir, worktreesDir } from '../../archive/index.ts';
import type { DomainRef, GradeContext } from '../../domains/index.ts';
import type { BudgetStop } from '../../llm/index.ts';
import type {
  AcceptPolicy,
  BatchRounds,
  DomainTasks,
  EvalsFolders,
  TaskLimit,
  TaskPool,
  TaskSettingsRecord,
  WorkspaceLimits,
} from '../evaluation/index.ts';
import type { ResolvedSandbox, ResourceLimits, VariantRepo } from '../process/index.ts';
import type { ParentSelection } from './selection.ts';

/**
 * What of a run's configuration its generations read. The run's `RunConfig` (harness/run/run-config.ts)
 * holds all of it and is what a run gives; this room names only what it reads, so that it never loads the
 * run room above it.
 */
export interface GenerationConfig {
  domains: DomainRef[];
  metaModel: string;
  taskModel: string;
  generations: number;
  parallel: number;
  tasksPerWorker: number;
  evalRepeats: number;
  skipStagedEval: boolean;
  evalTest: boolean;
  parentSelection: ParentSelection;
  editSelectParent: boolean;
  /** Limits on every agent process. */
  limits: ResourceLimits;
  /** Limits on the folder each workspace task leaves (what a TaskAgent runs under is in taskSettings). */
  workspace: WorkspaceLimits;
  seed: number;
  freezeMeta: boolean;
  taskTimeoutSec: number;
  metaTimeoutSec: number;
  /** How a child's full evaluation ends (`--accept`), and the error rates of its two decisions. */
  accept: AcceptPolicy;
  alpha: number;
  futilityAlpha: number;
  futilityMargin: number;
  /** Tasks evaluated at once: a sequential acceptance looks after each round of this many. */
  evalWorkers: number;
}

/** A variant's tasks done so far, as a generation reports them (the run's progress events include it). */
export interface TasksProgress {
  type: 'tasks';
  variant: number;
  done: number;
  total: number;
}

/** Issues gateway tokens; implemented by the LLM gateway. */
export interface TokenIssuer {
  url: string;
  socketPath: string | null;
  /** `http://HOST:PORT` when the gateway also listens on TCP (for queue workers). */
  tcpUrl?: string;
  issueToken(
    grant: {
      runId: string;
      variantId: number | null;
      role: 'meta' | 'task' | 'select';
      model: string;
      /** Which attempt at its tasks a task token's calls belong to (see `CallContext.attempt`). */
      attempt?: number;
    },
    token?: string,
  ): string;
  revokeToken(token: string): void;
  spentUsd(): number;
  /** True once the gateway refused a call for the budget: the run is stopping. */
  budgetReached(): boolean;
  /** Where the money stood when the gateway refused its first call for the budget; null while none was. */
  budgetStop(): BudgetStop | null;
  /** Calls that found no recorded response (with --replay). */
  replayMisses(): number;
}

/**
 * Everything one run's generations share. A run (harness/run/) holds it with its whole configuration,
 * `RunContext<RunConfig>`; a generation reads only the GenerationConfig in it.
 */
export interface RunContext<Config extends GenerationConfig = GenerationConfig> {
  config: Config;
  runId: string;
  runDir: string;
  nodeModules: string;
  archive: Archive;
  cache: EvalCache;
  repo: VariantRepo;
  rootCommit: string;
  domains: DomainTasks[];
  /** The MetaAgents' evals folders of this run (see evals-folder.ts). */
  evals: EvalsFolders;
  gateway: TokenIssuer;
  sandbox: ResolvedSandbox;
  /** Runs graders' commands (code answers) in the sandbox with limits. */
  grading: GradeContext;
  /** Whether task replies may be cached across variants (not for scripted replies). */
  cacheable: boolean;
  /** What every task runs under: the configuration's task settings, made once (sent whole with each task). */
  taskSettings: TaskSettingsRecord;
  progress(line: string): void;
  /** A transient status (tasks done), shown in place on a terminal. */
  status(text: string): void;
  /** Aborted when the user interrupts: steps under way stop and record nothing, so a resume redoes them. */
  signal: AbortSignal;
  /** The one bound, `--eval-workers`, on the tasks under way across all concurrent generations. */
  taskLimit: TaskLimit;
  /** Progress as data, for a live display (see run-events.ts). */
  onEvent(event: TasksProgress): void;
  /** With `--queue`: TaskAgent work goes to queue workers instead of local processes. */
  remoteTasks?: RemoteTasks;
  /** With `--remote-generations`: each MetaAgent run goes to a queue worker. */
  remoteEdits?: RemoteEdits;
  /** With `--batch`: the evaluations' rounds through the task model's batch endpoint (docs/batch.md). */
  batch?: BatchRounds;
}

/**
 * What of a run the tasks sent elsewhere need: its folder (variant repo), gateway and task limits, and its
 * tasks (a workspace task's grader travels with its job).
 */
export type RemoteTaskContext = Pick<
  RunContext,
  'runId' | 'runDir' | 'gateway' | 'signal' | 'taskSettings' | 'domains' | 'progress'
> & {
  config: Pick<GenerationConfig, 'taskModel' | 'tasksPerWorker' | 'domains'>;
  /** Where the run's events go (tasks waiting for a worker that can grade them). */
  archive?: Pick<Archive, 'recordEvent'>;
};

/** Where a variant's tasks run when they do not run in local TaskAgent processes (see queue/). */
export interface RemoteTasks {
  /**
   * A pool whose `run` hands each task of the variant's commit to a worker, as attempt `attempt` (default 0,
   * the first); `close` revokes its access.
   */
  pool(ctx: RemoteTaskContext, variant: { id: number; commit: string }, attempt?: number): Promise<TaskPool>;
}

/** What of a run a MetaAgent run sent elsewhere needs: its folder (variant repo), gateway and limits. */
export type RemoteEditContext = Pick<RunContext, 'runId' | 'runDir' | 'gateway' | 'signal'> & {
  config: Pick<GenerationConfig, 'metaModel' | 'metaTimeoutSec' | 'limits'>;
};

/** One MetaAgent run for a queue worker: on a copy of `parentCommit`, with `agents/meta/` of `metaCommit`. */
export interface RemoteEditRequest {
  variantId: number;
  parentCommit: string;
  /** The parent's commit, or with --freeze-meta the initial agent's. */
  metaCommit: string;
  /** The evals folder as written here (see evals-folder.ts); the worker gets a copy. */
  evalsDir: string;
  iterationsLeft: number;
}

/**
 * How a MetaAgent run on a worker ended: its process's end, its log and transcript (cut at the output limit,
 * not yet redacted), and its edit as a binary diff against the parent (see `trackTree`), or the reason the
 * worker refused the edited tree; or an infrastructure failure (the job's tries ran out, an interrupt).
 */
export type RemoteEditReply =
  | {
      kind: 'ran';
      worker: string;
      exitCode: number | null;
      timedOut: boolean;
      overLimit: string | null;
      tail: string;
      log: string;
      transcript: string | null;
      refused: string | null;
      patch: Buffer;
    }
  | { kind: 'infra'; reason: string };

/** Where MetaAgent runs go when they do not run on this machine (see queue/). */
export interface RemoteEdits {
  edit(ctx: RemoteEditContext, request: RemoteEditRequest): Promise<RemoteEditReply>;
}

export const worktreeDir = (ctx: RunContext, id: number): string =>
  path.join(worktreesDir(ctx.runDir), `variant-${id}`);
export const logDir = (ctx: RunContext, id: number): string => variantLogDir(ctx.runDir, id);
