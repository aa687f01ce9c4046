import path from 'node:path';
import { createInterface } from 'node:readline';
import { createGo, createRust, gradeExercise, LANGUAGES, readExercises } from '../domains/index.ts';
import { createGradeContext } from '../harness/evaluation/index.ts';
import { resolveSandbox } from '../harness/process/index.ts';
import { PROJECT_ROOT } from '../harness/run/index.ts';

/**
 * One grading process of the Polyglot grading benchmark (polyglot-grading.ts): `tsx bench/grading-worker.ts
 * DIR on|off`. Reads the exercises of DIR, then, for each line of standard input: `prepare` builds what
 * grading builds once for every exercise and prints `ready`; an exercise id grades its reference (one at a
 * time) and prints `{"id", "seconds", "passed"}`. `off`: Go and
 * Rust without the grader's build caches, as grading was before them (C++ keeps its Catch main).
 */

const [dir = '', caches = 'on'] = process.argv.slice(2);
const resolved = resolveSandbox('auto');
const sandbox = resolved.kind === 'bwrap' ? resolved : { kind: 'none' as const, why: 'no bubblewrap' };
const ctx = createGradeContext({ sandbox, nodeModules: path.join(PROJECT_ROOT, 'node_modules') });
const languages =
  caches === 'off'
    ? { ...LANGUAGES, go: createGo({ buildCache: null }), rust: createRust({ buildCache: null }) }
    : LANGUAGES;
const tasks = new Map(readExercises(dir).tasks.map((t) => [t.id, t]));

for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'prepare') {
    for (const task of tasks.values())
      await languages[task.answer.language]?.prepare?.(ctx, {
        ...task.answer.support,
        ...task.answer.configuration,
      });
    console.log('ready');
    continue;
  }
  const task = tasks.get(line.trim());
  if (task === undefined) throw new Error(`${line.trim()} is not an exercise of ${dir}`);
  const files = { ...task.workspace?.files, ...task.answer.reference };
  const started = performance.now();
  const grade = await gradeExercise({ files }, task.answer, ctx, languages);
  const seconds = (performance.now() - started) / 1000;
  const passed = (typeof grade === 'number' ? grade : grade.score) === 1;
  console.log(JSON.stringify({ id: task.id, seconds, passed }));
}
