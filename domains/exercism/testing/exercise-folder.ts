import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CommandResult, GradeContext } from '../../grade-context.ts';
import { newToken } from '../grade.ts';
import type { ExerciseLayout, ExercismLanguage } from '../language.ts';

/** One exercise folder read for a test: its layout and every text file but the docs. */
export interface ExerciseFolder {
  layout: ExerciseLayout;
  files: Record<string, string>;
}

function listFiles(dir: string, rel = ''): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((entry) => {
    const name = path.posix.join(rel, entry.name);
    if (entry.isDirectory()) return entry.name === '.docs' ? [] : listFiles(dir, name);
    return entry.isFile() && !name.endsWith('.jar') ? [name] : [];
  });
}

export function readExerciseFolder(dir: string): ExerciseFolder {
  const files = Object.fromEntries(
    listFiles(dir).map((rel) => [rel, readFileSync(path.join(dir, rel), 'utf8')]),
  );
  const config = JSON.parse(files['.meta/config.json'] ?? '{}') as { files: Omit<ExerciseLayout, 'name'> };
  const { solution, test, example } = config.files;
  return { layout: { name: path.basename(dir), solution, test, example }, files };
}

/** The support files of an exercise, as `prepare` takes them. */
export function supportFiles(language: ExercismLanguage, folder: ExerciseFolder): Record<string, string> {
  const { layout, files } = folder;
  const special = new Set([...layout.solution, ...layout.test]);
  return Object.fromEntries(
    Object.entries(files).filter(([rel]) => !special.has(rel) && language.isSupportFile(rel)),
  );
}

/**
 * The files grading gets, the way a grader builds them: support files, the solution (the stubs, the
 * reference written over them, or given files over them), and the tests with every test enabled.
 */
export function gradingFiles(
  language: ExercismLanguage,
  folder: ExerciseFolder,
  solution: 'stub' | 'reference' | Record<string, string>,
): Record<string, string> {
  const { layout, files } = folder;
  const pick = (rels: string[]) => Object.fromEntries(rels.map((rel) => [rel, files[rel] ?? '']));
  const workspace: Record<string, string> = { ...supportFiles(language, folder), ...pick(layout.solution) };
  if (solution === 'reference') {
    for (const example of layout.example)
      workspace[language.referenceTarget(layout, example)] = files[example] ?? '';
  } else if (typeof solution === 'object') {
    Object.assign(workspace, solution);
  }
  return { ...workspace, ...language.enableAllTests(pick(layout.test), layout) };
}

export interface FolderGrade {
  passed: boolean;
  count: { passed: number; total: number } | null;
  result: CommandResult;
}

/**
 * Runs a solution's tests: passed when the command exits 0 and its runner reported every test (at least
 * one) passed. `count` is what the report said, or null without one.
 */
export async function gradeFolder(
  ctx: GradeContext,
  language: ExercismLanguage,
  folder: ExerciseFolder,
  solution: 'stub' | 'reference' | Record<string, string>,
  limits = { timeoutMs: 300_000, memoryMb: 2048 },
): Promise<FolderGrade> {
  const token = newToken();
  const files = gradingFiles(language, folder, solution);
  const result =
    language.run !== undefined
      ? await language.run(ctx, files, folder.layout, limits, token)
      : await ctx.run({
          ...language.gradeCommand(folder.layout, token),
          files,
          timeoutMs: limits.timeoutMs,
          memoryMb: limits.memoryMb,
          maxOutputBytes: 1024 * 1024,
        });
  const report = language.readReport(result, token);
  const count =
    report === null
      ? null
      : { passed: report.tests.filter((t) => t.passed).length, total: report.tests.length };
  const passed = result.exitCode === 0 && count !== null && count.total > 0 && count.passed === count.total;
  return { passed, count, result };
}
