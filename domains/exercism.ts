import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { type Domain, defineDomain, type SkippedRow, type Split, type Task } from './define-domain.ts';
import { groupBySplit, hashSplit } from './hash-split.ts';
import { DEFAULT_SPEC_LIMITS, gradeWithSpec, type SpecLimits, type SpecRun } from './spec-grader.ts';

/** What the TaskAgent sees of an exercise. */
export interface ExerciseInput {
  exercise: string;
  instructions: string;
  solutionFile: string;
  stub: string;
}

/** What grading needs; `reference` is the example solution, the gold answer. */
export interface ExerciseAnswer extends Omit<SpecRun, 'solution'> {
  reference: string;
}

export type ExerciseTask = Task<ExerciseInput, ExerciseAnswer>;

const Config = z.object({
  files: z.object({
    solution: z.array(z.string()).min(1),
    test: z.array(z.string()).min(1),
    example: z.array(z.string()).min(1),
  }),
});

const SOURCE = /\.(m?[jt]s|json)$/;
const MAX_DEPTH = 5;
const SKIP_DIRS = new Set(['node_modules', '.git', '.meta', '.docs']);

/** Folders under `dir` (itself included) that hold `.meta/config.json`, by depth-first search. */
function exerciseFolders(dir: string, depth = 0): string[] {
  if (existsSync(path.join(dir, '.meta', 'config.json'))) return [dir];
  if (depth >= MAX_DEPTH) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !SKIP_DIRS.has(e.name))
    .map((e) => e.name)
    .sort()
    .flatMap((name) => exerciseFolders(path.join(dir, name), depth + 1));
}

/** Text files of an exercise other than its metadata, docs, stub, spec and example. */
function supportFiles(folder: string, exclude: Set<string>, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(path.join(folder, rel), { withFileTypes: true })) {
    const name = path.posix.join(rel, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) Object.assign(out, supportFiles(folder, exclude, name));
    } else if (
      entry.isFile() &&
      SOURCE.test(entry.name) &&
      !exclude.has(name) &&
      entry.name !== 'package.json'
    ) {
      if (!/(^|\/)(babel|jest|eslint)\.config\.|tsconfig/.test(name))
        out[name] = readFileSync(path.join(folder, name), 'utf8');
    }
  }
  return out;
}

/** Reads one exercise folder into a task, or says why it cannot. */
export function readExercise(folder: string): ExerciseTask | { error: string } {
  const name = path.basename(folder);
  let config: z.infer<typeof Config>;
  try {
    const parsed = Config.safeParse(
      JSON.parse(readFileSync(path.join(folder, '.meta', 'config.json'), 'utf8')),
    );
    if (!parsed.success)
      return { error: '.meta/config.json lacks files.solution, files.test or files.example' };
    config = parsed.data;
  } catch (error) {
    return { error: `.meta/config.json: ${(error as Error).message}` };
  }
  const [solutionFile, specFile, exampleFile] = [
    config.files.solution[0]!,
    config.files.test[0]!,
    config.files.example[0]!,
  ];
  const read = (rel: string): string | null => {
    const file = path.join(folder, rel);
    return existsSync(file) && statSync(file).isFile() ? readFileSync(file, 'utf8') : null;
  };
  const docs = ['instructions.md', 'instructions.append.md'].map((f) => read(path.join('.docs', f)));
  const [stub, spec, reference] = [read(solutionFile), read(specFile), read(exampleFile)];
  if (docs[0] === null) return { error: '.docs/instructions.md is missing' };
  if (spec === null) return { error: `the spec ${specFile} is missing` };
  if (reference === null) return { error: `the example solution ${exampleFile} is missing` };
  return {
    id: name,
    input: {
      exercise: name,
      instructions: docs
        .filter((d) => d !== null)
        .join('\n\n')
        .trim(),
      solutionFile,
      stub: stub ?? '',
    },
    answer: {
      reference,
      solutionFile,
      specFile,
      spec,
      support: supportFiles(folder, new Set([solutionFile, specFile, exampleFile])),
    },
  };
}

export interface ExercismOptions {
  name: string;
  description?: string;
  limits?: SpecLimits;
  stagedSamples?: number;
  /** Assigns splits; default: a stable hash of the exercise name. */
  splitOf?: (task: ExerciseTask) => Split;
}

export interface ExerciseSet {
  tasks: ExerciseTask[];
  skipped: SkippedRow[];
}

/** Every exercise under `dir`; folders that cannot be read are skipped with a reason (line 0). */
export function readExercises(dir: string): ExerciseSet {
  const tasks: ExerciseTask[] = [];
  const skipped: SkippedRow[] = [];
  for (const folder of exerciseFolders(dir)) {
    const task = readExercise(folder);
    if ('error' in task)
      skipped.push({ line: 0, reason: `${path.relative(dir, folder) || '.'}: ${task.error}` });
    else if (tasks.some((t) => t.id === task.id))
      skipped.push({ line: 0, reason: `${task.id}: a second exercise with this name` });
    else tasks.push(task);
  }
  return { tasks, skipped };
}

export const EXERCISE_FORMAT_HINT =
  'The response is the complete content of the solution file named in the task, as one string.';

/** A domain over exercises in the Exercism practice layout (JavaScript or TypeScript), graded by their specs. */
export function exercismDomain(
  set: ExerciseSet,
  options: ExercismOptions,
): Domain<ExerciseInput, ExerciseAnswer, string> {
  const groups = groupBySplit(set.tasks, options.splitOf ?? ((t) => hashSplit(t.id)));
  const limits = options.limits ?? DEFAULT_SPEC_LIMITS;
  return defineDomain<ExerciseInput, ExerciseAnswer, string>({
    name: options.name,
    description:
      options.description ??
      `Exercises in ${options.name}, graded by running each spec with every test enabled.`,
    splits: (['train', 'val', 'test'] as const).filter((s) => groups.has(s)),
    load: (split) => groups.get(split) ?? [],
    answerSchema: z.string().min(1, 'the solution file is empty'),
    score: (solution, task, ctx) => gradeWithSpec(ctx, { ...task.answer, solution }, limits),
    goldResponse: (task) => task.answer.reference,
    graderVersion: 'spec-runner-1',
    metric: 'all tests pass',
    stagedSamples: options.stagedSamples ?? 5,
    formatHint: EXERCISE_FORMAT_HINT,
    skipped: set.skipped,
  });
}
