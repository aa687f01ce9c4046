import type { z } from 'zod';
import type { GradeContext } from './grade-context.ts';

export type Split = 'train' | 'val' | 'test';
export const ALL_SPLITS: readonly Split[] = ['train', 'val', 'test'];

/** One benchmark task. `answer` is the gold answer (or what grading needs) and never leaves the harness. */
export interface Task<Input = unknown, Answer = unknown> {
  id: string;
  input: Input;
  answer: Answer;
  /**
   * Contract v3: the task is worked on in a folder of files. The TaskAgent gets its own writable copy of
   * these files; its prediction is the folder as it left it (`WorkspaceFiles`), and the stored prediction
   * is the diff against these starting files. Hidden tests and references stay in `answer`: grading adds
   * them to a copy of the final files in a separate sandbox.
   */
  workspace?: TaskWorkspace;
  /**
   * A canary: a task with no correct answer, there to catch a grader being gamed. Its score never counts in
   * a variant's score, and a canary graded above 0 flags the variant (archive/flags.ts). Default false.
   */
  canary?: boolean;
}

/** The files a workspace task starts with, and what the TaskAgent's prompt may say about them. */
export interface TaskWorkspace {
  /** Relative path (forward slashes, no `..`) → text. Only files the TaskAgent may see. */
  files: Record<string, string>;
  /** The language the task is in, for the prompt ("python"). */
  language?: string;
  /** The command that runs the tests visible in the workspace, when the domain makes them visible. */
  testCommand?: string;
}

/**
 * A workspace task's prediction: every file of the final workspace (relative path → text). What the
 * grader is given. `goldResponse` of a workspace task returns the files to write over the starting ones
 * (the reference solution); the harness applies them the same way to answers given in a file.
 */
export interface WorkspaceFiles {
  files: Record<string, string>;
}

/**
 * What a grader returns: a score, or a score with a detail kept in the result (e.g. "3/4 tests passed")
 * and, for graders that run tests, the output they saw (`log`), shown to the MetaAgent for train tasks.
 */
export type Grade = number | { score: number; detail: string; log?: string };

/** A row of a source file that was not turned into a task, by 1-based line number. */
export interface SkippedRow {
  line: number;
  reason: string;
  /** The id the task would have had, when it is known (an exercise whose toolchain is missing). */
  id?: string;
}

export interface DomainSpec<Input = unknown, Answer = unknown, Prediction = unknown> {
  name: string;
  description: string;
  splits: readonly Split[];
  /** Tasks of one split, in a stable order (staged evaluation takes a prefix). */
  load(split: Split): Task<Input, Answer>[] | Promise<Task<Input, Answer>[]>;
  /** Validates the `response` field the TaskAgent produced; a response it rejects is a parse failure. */
  answerSchema: z.ZodType<Prediction>;
  /**
   * Score in [0, 1] of a prediction that passed `answerSchema`. `ctx` comes from the harness and runs
   * commands in the sandbox with limits. A grader that throws scores 0 with its message as the error.
   */
  score(prediction: Prediction, task: Task<Input, Answer>, ctx: GradeContext): Grade | Promise<Grade>;
  /**
   * A few responses that must score below 1 on a task, beside the ones `domains test` builds itself (the
   * next label, a perturbed number, a shuffled sentence): e.g. a dataset's listed incorrect answers.
   */
  wrongResponses?(task: Task<Input, Answer>): Prediction[];
  /** Mistakes in how the domain was configured against its source; `domains test` fails on each. */
  configProblems?: readonly string[];
  /** The `response` that scores 1 on a task (what the simulated model answers when it is right). Default: `task.answer`. */
  goldResponse?(task: Task<Input, Answer>): Prediction;
  /** Changes whenever scoring changes, so cached results of an older grader are never reused. Default '1'. */
  graderVersion?: string;
  /** How answers are compared, in a few words (`hyperagents domains` shows it). */
  metric?: string;
  /** Tasks per split evaluated before paying for the full evaluation. */
  stagedSamples?: number;
  /** A sentence sent to the TaskAgent with every task, about the expected answer's shape. */
  formatHint?: string;
  /** Rows of the source that were skipped (datasets), for the user to fix. */
  skipped?: readonly SkippedRow[];
  /**
   * Seconds one grading of the task takes, as measured (docs/measurements.md), for `--estimate`; left out
   * when grading takes next to nothing beside the model calls.
   */
  gradingSec?(task: Task<Input, Answer>): number;
}

export interface Domain<Input = unknown, Answer = unknown, Prediction = unknown>
  extends DomainSpec<Input, Answer, Prediction> {
  stagedSamples: number;
  graderVersion: string;
  metric: string;
  skipped: readonly SkippedRow[];
  goldResponse(task: Task<Input, Answer>): Prediction;
}

export const DEFAULT_STAGED_SAMPLES = 10;
export const DOMAIN_NAME = /^[a-z][a-z0-9-]*$/;

export function defineDomain<Input, Answer, Prediction>(
  spec: DomainSpec<Input, Answer, Prediction>,
): Domain<Input, Answer, Prediction> {
  if (!DOMAIN_NAME.test(spec.name)) {
    throw new Error(`domain name "${spec.name}" must be lower-case letters, digits and dashes`);
  }
  if (spec.splits.length === 0) throw new Error(`domain ${spec.name} declares no splits`);
  return {
    ...spec,
    stagedSamples: spec.stagedSamples ?? DEFAULT_STAGED_SAMPLES,
    graderVersion: spec.graderVersion ?? '1',
    metric: spec.metric ?? 'custom',
    skipped: spec.skipped ?? [],
    goldResponse: spec.goldResponse ?? ((task) => task.answer as unknown as Prediction),
  };
}

/** The split parent selection ranks on: val where the domain has it, else train. */
export function selectionSplit(domain: Pick<Domain, 'splits'>): Split {
  return domain.splits.includes('val') ? 'val' : 'train';
}
