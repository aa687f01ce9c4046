import path from 'node:path';
import pLimit from 'p-limit';
import code from '../domains/code/index.ts';
import { createGradeContext } from '../harness/evaluation/index.ts';
import { resolveSandbox } from '../harness/process/index.ts';
import { PROJECT_ROOT } from '../harness/run/index.ts';

export interface GradingRun {
  graders: number;
  exercises: number;
  seconds: number;
  /** Mean wall time of one exercise's grading (spec run in the sandbox). */
  perExerciseSeconds: number;
  allPassed: boolean;
}

/**
 * Grades the reference solutions of the first `count` code exercises with 1, then N graders at once,
 * each exercise a separate sandboxed Node process running its spec.
 */
export async function benchGrading(parallel: readonly number[], count: number): Promise<GradingRun[]> {
  const resolved = resolveSandbox('auto');
  const sandbox = resolved.kind === 'bwrap' ? resolved : { kind: 'none' as const, why: 'no bubblewrap' };
  const ctx = createGradeContext({ sandbox, nodeModules: path.join(PROJECT_ROOT, 'node_modules') });
  const tasks = [...(await code.load('train')), ...(await code.load('val'))].slice(0, count);
  const runs: GradingRun[] = [];
  for (const graders of parallel) {
    const limit = pLimit(graders);
    const started = performance.now();
    let busy = 0;
    const grades = await Promise.all(
      tasks.map((task) =>
        limit(async () => {
          const t0 = performance.now();
          const grade = await code.score(code.goldResponse(task), task, ctx);
          busy += performance.now() - t0;
          return typeof grade === 'number' ? grade : grade.score;
        }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    runs.push({
      graders,
      exercises: tasks.length,
      seconds,
      perExerciseSeconds: busy / 1000 / tasks.length,
      allPassed: grades.every((g) => g === 1),
    });
  }
  return runs;
}
