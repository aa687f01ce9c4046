import path from 'node:path';
import pLimit from 'p-limit';
import { gradeExercise, readExercises } from '../domains/index.ts';
import { createGradeContext } from '../harness/evaluation/index.ts';
import { resolveSandbox } from '../harness/process/index.ts';
import { PROJECT_ROOT } from '../harness/run/index.ts';

export interface LanguageGrading {
  language: string;
  exercises: number;
  passed: number;
  /** Median wall time of one exercise's grading (its reference solution, in the sandbox). */
  medianSeconds: number;
  maxSeconds: number;
}

export interface PolyglotGrading {
  graders: number;
  seconds: number;
  languages: LanguageGrading[];
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? 0 : s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * Grades the reference solution of every exercise under `dir` (default: the six-language fixtures; a
 * checkout of the polyglot-benchmark repository works too), with `graders` gradings at once, and reports
 * the time per exercise per language. The first pass also builds what grading prepares once (C++: Catch's
 * main), so each setting is run after a warm-up pass over one exercise per language.
 */
export async function benchPolyglotGrading(
  parallel: readonly number[],
  dir = path.join(PROJECT_ROOT, 'test', 'fixtures', 'exercism'),
): Promise<PolyglotGrading[]> {
  const resolved = resolveSandbox('auto');
  const sandbox = resolved.kind === 'bwrap' ? resolved : { kind: 'none' as const, why: 'no bubblewrap' };
  const ctx = createGradeContext({ sandbox, nodeModules: path.join(PROJECT_ROOT, 'node_modules') });
  const { tasks } = readExercises(dir);
  const grade = async (task: (typeof tasks)[number]) => {
    const files = { ...task.workspace?.files, ...task.answer.reference };
    const t0 = performance.now();
    const g = await gradeExercise({ files }, task.answer, ctx);
    return {
      task,
      seconds: (performance.now() - t0) / 1000,
      passed: (typeof g === 'number' ? g : g.score) === 1,
    };
  };
  const firsts = [...new Map(tasks.map((t) => [t.input.language, t])).values()];
  await Promise.all(firsts.map(grade));
  const runs: PolyglotGrading[] = [];
  for (const graders of parallel) {
    const limit = pLimit(graders);
    const started = performance.now();
    const graded = await Promise.all(tasks.map((task) => limit(() => grade(task))));
    const byLanguage = new Map<string, typeof graded>();
    for (const g of graded)
      byLanguage.set(g.task.input.language, [...(byLanguage.get(g.task.input.language) ?? []), g]);
    runs.push({
      graders,
      seconds: (performance.now() - started) / 1000,
      languages: [...byLanguage]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([language, gs]) => ({
          language,
          exercises: gs.length,
          passed: gs.filter((g) => g.passed).length,
          medianSeconds: median(gs.map((g) => g.seconds)),
          maxSeconds: Math.max(...gs.map((g) => g.seconds)),
        })),
    });
  }
  return runs;
}
