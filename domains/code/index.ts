import { type ExerciseTask, exercismDomain } from '../exercism/spec-domain.ts';
import type { CodeTask } from './task-spec.ts';
import { LIST_TASKS } from './tasks-lists.ts';
import { NUMBER_TASKS } from './tasks-numbers.ts';
import { STRING_TASKS } from './tasks-strings.ts';

export const CODE_TASKS: readonly CodeTask[] = [...STRING_TASKS, ...NUMBER_TASKS, ...LIST_TASKS];

const STUB_BODY = "throw new Error('Remove this line and implement the function');";

/** A code task as an exercise: a stub to fill in, one hidden test per case, and the reference solution. */
export function toExercise(task: CodeTask): ExerciseTask {
  const solutionFile = `${task.name}.${task.lang}`;
  const source = (body: string) => `export function ${task.fn}${task.signature} {\n  ${body}\n}\n`;
  const spec = [
    `import { ${task.fn} } from './${task.name}';`,
    '',
    `describe('${task.fn}', () => {`,
    ...task.cases.map(
      ([call, expected], i) =>
        `  test(${JSON.stringify(`case ${i + 1}: ${call}`)}, () => {\n    expect(${call}).toEqual(${expected});\n  });`,
    ),
    '});',
    '',
  ].join('\n');
  return {
    id: task.name,
    input: {
      exercise: task.name,
      instructions: `# ${task.name}\n\nExport a function \`${task.fn}\` from \`${solutionFile}\`. ${task.instructions}`,
      solutionFile,
      stub: source(STUB_BODY),
    },
    answer: {
      reference: source(task.solution),
      solutionFile,
      specFile: `${task.name}.spec.${task.lang}`,
      spec,
      support: {},
    },
  };
}

export default exercismDomain(
  { tasks: CODE_TASKS.map(toExercise), skipped: [] },
  {
    name: 'code',
    description: 'Small JavaScript and TypeScript functions, graded by hidden unit tests run in the sandbox.',
    stagedSamples: 5,
  },
);
