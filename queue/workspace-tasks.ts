import { z } from 'zod';
import type { Domain, DomainRef, ExerciseAnswer, ExerciseInput, Task } from '../domains/index.ts';
import { exercismDomain, LANGUAGE_NAMES } from '../domains/index.ts';
import type { CollectedWorkspace, DomainTasks } from '../harness/evaluation/index.ts';

/**
 * A workspace task as it travels to a queue worker. The starting files go in the job's request (what the
 * TaskAgent may see); what grading needs (an exercise's hidden tests, support files and references) goes in
 * `TaskJob.workspaceGrader`, which only the worker's grading code reads, in its grading sandbox. A domain whose
 * grader cannot travel this way (a `module:` file's code) keeps its workspace tasks off the queue.
 */

const Files = z.record(z.string(), z.string());

/** The starting files of a workspace task, as `request.workspace` carries them. */
export const TaskWorkspaceSchema = z.object({
  files: Files,
  language: z.string().optional(),
  testCommand: z.string().optional(),
});

/** An exercise's answer (domains/exercism/read.ts, `ExerciseAnswer`) as it crosses Redis. */
const ExerciseAnswerSchema = z.object({
  language: z.enum(LANGUAGE_NAMES),
  layout: z.object({
    name: z.string(),
    solution: z.array(z.string()),
    test: z.array(z.string()),
    example: z.array(z.string()),
  }),
  tests: Files,
  reference: Files,
  support: Files,
  testsVisible: z.literal(true).optional(),
  configuration: Files.optional(),
});

/** What a worker grades a workspace task with: for an `exercism:` domain, the exercise's answer. */
export const WorkspaceGraderSchema = z.object({
  kind: z.literal('exercism'),
  /** The domain's name, as the archive stores it. */
  domain: z.string(),
  testsVisible: z.boolean(),
  answer: ExerciseAnswerSchema,
});
export type WorkspaceGrader = z.infer<typeof WorkspaceGraderSchema>;

/**
 * A workspace's final files as they cross Redis (in a result, and in a job that grades them again): only what
 * differs from the starting files, which both ends have from the job (`request.workspace.files`), and the
 * starting files removed. An exercise's unchanged files (C++'s 650 KB `catch.hpp`) never travel back.
 */
export const SentWorkspaceSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('changes'),
    /** Files added or changed, by relative path. */
    files: Files,
    /** Starting files no longer there. */
    removed: z.array(z.string()),
    skipped: z.array(z.string()),
  }),
  z.object({ kind: z.literal('refused'), reason: z.string() }),
]);
export type SentWorkspace = z.infer<typeof SentWorkspaceSchema>;

/** A collected workspace (harness/evaluation `CollectedWorkspace`) as sent: its changes to `start`. */
export function sentWorkspace(start: Record<string, string>, collected: CollectedWorkspace): SentWorkspace {
  if (collected.kind === 'refused') return collected;
  const files = Object.fromEntries(
    Object.entries(collected.files).filter(([rel, text]) => start[rel] !== text),
  );
  const removed = Object.keys(start).filter((rel) => !Object.hasOwn(collected.files, rel));
  return { kind: 'changes', files, removed, skipped: collected.skipped };
}

/** The collected workspace a sent one stands for, as the harness collects it (its paths in order). */
export function receivedWorkspace(start: Record<string, string>, sent: SentWorkspace): CollectedWorkspace {
  if (sent.kind === 'refused') return sent;
  const whole = { ...start, ...sent.files };
  for (const rel of sent.removed) delete whole[rel];
  const files: Record<string, string> = {};
  for (const rel of Object.keys(whole).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) files[rel] = whole[rel]!;
  return { kind: 'files', files, skipped: sent.skipped };
}

/** The starting files of a task job's workspace (none for a plain task), read from the job as it was added. */
export function startingFiles(job: unknown): Record<string, string> {
  const parsed = z.object({ request: z.object({ workspace: TaskWorkspaceSchema }) }).safeParse(job);
  return parsed.success ? parsed.data.request.workspace.files : {};
}

/**
 * The most of a workspace task's final files a queue worker sends back through Redis, KiB on disk: what
 * differs from the starting files, whose size `--workspace-max-kb` bounds. (Their JSON in Redis is that size
 * for text, and up to six times it for bytes JSON escapes.)
 */
export const QUEUE_WORKSPACE_MAX_KB = 16 * 1024;

/**
 * Why a domain's workspace tasks cannot go to queue workers, or null when they can (or it has none): a
 * grader that cannot travel with the job, or a `--workspace-max-kb` (`maxKb`) over what a worker sends back.
 */
export function workspaceRefusal(ref: DomainRef, tasks: DomainTasks, maxKb: number): string | null {
  const hasWorkspaces = Object.values(tasks.splits).some((list) =>
    list?.some((t) => t.workspace !== undefined),
  );
  if (!hasWorkspaces) return null;
  if (ref.kind === 'exercism')
    return maxKb <= QUEUE_WORKSPACE_MAX_KB
      ? null
      : `--workspace-max-kb ${maxKb} lets a workspace task of ${tasks.domain.name} end with more files than a ` +
          `queue worker sends back through Redis (at most ${QUEUE_WORKSPACE_MAX_KB} KiB of what differs from ` +
          `the starting files). Lower --workspace-max-kb to ${QUEUE_WORKSPACE_MAX_KB} or less, or run without --queue.`;
  return (
    `--queue runs the workspace tasks of exercism: domains only, and domain ${tasks.domain.name} ` +
    `(${ref.kind === 'named' ? 'a domain of this project' : `${ref.kind}:`}) has workspace tasks whose grader ` +
    'cannot travel to a worker with its job. Run it without --queue.'
  );
}

/**
 * The coordinator's side: for each `exercism:` domain of the run, its workspace tasks' graders by task id,
 * looked up when a task is sent.
 */
export function workspaceGraders(
  refs: readonly DomainRef[],
  domains: readonly DomainTasks[],
): (domain: string, taskId: string) => WorkspaceGrader | undefined {
  const byDomain = new Map<string, Map<string, WorkspaceGrader>>();
  for (const ref of refs) {
    if (ref.kind !== 'exercism') continue;
    const loaded = domains.find((d) => d.domain.name === ref.name);
    if (loaded === undefined) continue;
    const graders = new Map<string, WorkspaceGrader>();
    for (const list of Object.values(loaded.splits))
      for (const task of list ?? [])
        graders.set(task.id, {
          kind: 'exercism',
          domain: ref.name,
          testsVisible: ref.tests === 'visible',
          answer: task.answer as ExerciseAnswer,
        });
    byDomain.set(ref.name, graders);
  }
  return (domain, taskId) => byDomain.get(domain)?.get(taskId);
}

/**
 * The worker's side: the domain and task that grade a travelled workspace task, made from its job alone
 * (the worker has no copy of the user's exercises): a domain of this one exercise, graded as on the
 * coordinator's machine.
 */
export function travelledTask(
  grader: WorkspaceGrader,
  request: { id: string; input: unknown; workspace: z.infer<typeof TaskWorkspaceSchema> },
): { domain: Domain; task: Task } {
  const task = {
    id: request.id,
    input: request.input as ExerciseInput,
    answer: grader.answer as ExerciseAnswer,
    workspace: request.workspace,
  };
  const domain = exercismDomain(
    { tasks: [task], skipped: [] },
    { name: grader.domain, testsVisible: grader.testsVisible, splitOf: () => 'train' },
  );
  return { domain: domain as unknown as Domain, task };
}
