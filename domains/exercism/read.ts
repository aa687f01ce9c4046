import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { SkippedRow, Task } from '../define-domain.ts';
import type { ExerciseLayout, ExercismLanguage, LanguageName } from './language.ts';
import { LANGUAGES, languageOf, refusal } from './languages.ts';

/** What the TaskAgent is told of an exercise; the files themselves are its workspace. */
export interface ExerciseInput {
  exercise: string;
  language: LanguageName;
  instructions: string;
  /** The workspace's files, relative paths. */
  files: string[];
}

/** What grading needs: never in the workspace unless the tests are visible. */
export interface ExerciseAnswer {
  language: LanguageName;
  layout: ExerciseLayout;
  /** The test files, every test enabled, written over the final workspace before the tests run. */
  tests: Record<string, string>;
  /** The reference solution, on the workspace paths it belongs at (the gold answer). */
  reference: Record<string, string>;
  /**
   * The exercise's own support files (build files, test harness headers), as its folder holds them: written
   * over the final workspace too, so a TaskAgent cannot pass by editing the test harness.
   */
  support: Record<string, string>;
  /** The tests were in the workspace: a changed test file is then tampering, not a file of its own. */
  testsVisible?: true;
  /**
   * The exercise's own text of solution files the runner also reads as configuration (Rust's
   * `Cargo.toml`), for `solutionText` to keep what an answer may not change.
   */
  configuration?: Record<string, string>;
}

export type ExerciseTask = Task<ExerciseInput, ExerciseAnswer>;

export interface ExerciseSet {
  tasks: ExerciseTask[];
  skipped: SkippedRow[];
}

export interface ReadOptions {
  /** Put the tests (every test enabled) in the workspace, with the command that runs them. */
  testsVisible?: boolean;
  /** The languages graded; default: every language this version grades. */
  languages?: Partial<Record<LanguageName, ExercismLanguage>>;
  /**
   * The exercises are graded on other machines (queue workers, each checking its own toolchains): one whose
   * toolchain is missing here is read all the same.
   */
  gradedElsewhere?: boolean;
}

const Config = z.object({
  files: z.object({
    solution: z.array(z.string()).min(1),
    test: z.array(z.string()).min(1),
    // Practice exercises have an example solution; concept exercises an exemplar.
    example: z.array(z.string()).min(1).optional(),
    exemplar: z.array(z.string()).min(1).optional(),
    editor: z.array(z.string()).optional(),
  }),
});

const MAX_DEPTH = 6;
/** Larger files are left out of workspaces (C++'s catch.hpp, the largest support file, is about 650 KB). */
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const SKIP_DIRS = new Set(['node_modules', '.git', '.meta', '.docs', '.exercism', 'target', 'build', 'bin']);

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

/** Relative paths (forward slashes) of the text files of an exercise outside .meta/ and .docs/. */
function listFiles(folder: string, rel = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(folder, rel), { withFileTypes: true })) {
    const name = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory() && !SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.'))
      out.push(...listFiles(folder, name));
    else if (entry.isFile() && !entry.name.startsWith('.')) out.push(name);
  }
  return out.sort();
}

function readText(folder: string, rel: string): string | null {
  const file = path.join(folder, rel);
  if (!existsSync(file) || !statSync(file).isFile() || statSync(file).size > MAX_FILE_BYTES) return null;
  const bytes = readFileSync(file);
  return bytes.includes(0) ? null : bytes.toString('utf8');
}

function readFiles(folder: string, rels: readonly string[]): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const rel of rels) {
    const text = readText(folder, rel);
    if (text === null) return rel;
    out[rel] = text;
  }
  return out;
}

type Read = { task: ExerciseTask } | { error: string; id?: string };

/** The exercise's layout as its `.meta/config.json` lists it, and the files its editor shows, or why not. */
function readLayout(folder: string): { layout: ExerciseLayout; editor: string[] } | { error: string } {
  let config: z.infer<typeof Config>;
  try {
    const parsed = Config.safeParse(
      JSON.parse(readFileSync(path.join(folder, '.meta', 'config.json'), 'utf8')),
    );
    if (!parsed.success) return { error: '.meta/config.json lacks files.solution or files.test' };
    config = parsed.data;
  } catch (error) {
    return { error: `.meta/config.json: ${(error as Error).message}` };
  }
  const { solution, test, editor = [] } = config.files;
  const listed = config.files.example ?? config.files.exemplar;
  if (listed === undefined)
    return { error: '.meta/config.json lists neither files.example nor files.exemplar' };
  // Rust references that need crates say so in `.meta/Cargo-example.toml`, which config.json does not list.
  const example = existsSync(path.join(folder, '.meta', 'Cargo-example.toml'))
    ? [...new Set([...listed, '.meta/Cargo-example.toml'])]
    : listed;
  return { layout: { name: path.basename(folder), solution, test, example }, editor };
}

/**
 * The test files: the listed tests, the editor's files that are not support files, and beside them files in
 * their language that the learner does not get, which are test data (Go's cases_test.go is not always
 * listed in files.editor).
 */
function testFilesOf(
  all: readonly string[],
  layout: ExerciseLayout,
  editor: readonly string[],
  grader: ExercismLanguage,
): string[] {
  const { solution, test, example } = layout;
  const testExtensions = new Set(test.map((f) => path.posix.extname(f)));
  const unlisted = all.filter(
    (f) =>
      testExtensions.has(path.posix.extname(f)) &&
      /test|spec/i.test(path.posix.basename(f)) &&
      !solution.includes(f) &&
      !example.includes(f) &&
      !grader.isSupportFile(f),
  );
  return [...new Set([...test, ...editor.filter((f) => !grader.isSupportFile(f)), ...unlisted])];
}

/** The files the TaskAgent starts with: the solution's (empty where missing), the editor's, support files. */
function startingFiles(
  folder: string,
  all: readonly string[],
  hidden: ReadonlySet<string>,
  shown: { solution: readonly string[]; editor: readonly string[] },
  grader: ExercismLanguage,
): Record<string, string> {
  const files: Record<string, string> = {};
  for (const rel of all) {
    if (hidden.has(rel)) continue;
    if (!(shown.solution.includes(rel) || shown.editor.includes(rel) || grader.isSupportFile(rel))) continue;
    const text = readText(folder, rel);
    if (text !== null) files[rel] = text;
  }
  for (const rel of shown.solution) files[rel] ??= '';
  return files;
}

/** Reads one exercise folder into a workspace task, or says why it cannot. */
export function readExercise(folder: string, options: ReadOptions = {}): Read {
  const read = readLayout(folder);
  if ('error' in read) return read;
  const { layout, editor } = read;
  const { name, solution, example } = layout;
  const language = languageOf(folder, solution);
  if (language === null)
    return {
      error: `no language: neither a <language>/exercises/ folder nor a known extension in ${solution.join(', ')}`,
    };
  const id = `${language}/${name}`;
  const grader = (options.languages ?? LANGUAGES)[language];
  if (grader === undefined) return { id, error: `${language} exercises are not graded by this version` };
  const toolchain = options.gradedElsewhere === true ? { ok: true as const } : grader.toolchain();
  if (!toolchain.ok) return { id, error: refusal(grader, toolchain) };

  const docs = ['introduction.md', 'instructions.md', 'instructions.append.md'].map((f) =>
    readText(folder, `.docs/${f}`),
  );
  if (docs[1] === null) return { id, error: '.docs/instructions.md is missing' };
  const all = listFiles(folder);
  const testFiles = testFilesOf(all, layout, editor, grader);
  const tests = readFiles(folder, testFiles);
  if (typeof tests === 'string') return { id, error: `the test file ${tests} is missing` };
  const examples = readFiles(folder, example);
  if (typeof examples === 'string') return { id, error: `the example solution ${examples} is missing` };
  const reference = Object.fromEntries(
    Object.entries(examples).map(([rel, text]) => [
      grader.referenceTarget(layout, rel),
      grader.referenceText?.(text) ?? text,
    ]),
  );
  const hidden = new Set([...testFiles, ...example]);
  const files = startingFiles(folder, all, hidden, { solution, editor }, grader);
  const support = Object.fromEntries(
    Object.entries(files).filter(
      ([rel]) => !solution.includes(rel) && !(rel in reference) && grader.isSupportFile(rel),
    ),
  );
  const configuration = Object.fromEntries(
    solution.filter((rel) => rel in files && grader.isRunnerInput(rel)).map((rel) => [rel, files[rel]!]),
  );
  const enabled = grader.enableAllTests(tests, layout);
  const unsupported = grader.unsupported?.({
    tests: enabled,
    reference,
    support,
    files: { ...files, ...reference },
  });
  if (unsupported) return { id, error: unsupported };
  if (options.testsVisible) Object.assign(files, enabled);
  const testCommand = options.testsVisible && grader.testCommand !== '' ? grader.testCommand : undefined;
  return {
    task: {
      id,
      input: {
        exercise: name,
        language,
        instructions: docs
          .filter((d) => d !== null)
          .map((d) => d.trim())
          .join('\n\n'),
        files: Object.keys(files).sort(),
      },
      answer: {
        language,
        layout,
        tests: enabled,
        reference,
        support,
        ...(options.testsVisible ? { testsVisible: true as const } : {}),
        ...(Object.keys(configuration).length > 0 ? { configuration } : {}),
      },
      workspace: { files, language, ...(testCommand === undefined ? {} : { testCommand }) },
    },
  };
}

/**
 * Every exercise under `dir` (one track's exercises, or a checkout of several tracks); a folder that
 * cannot be read, or whose language's toolchain is missing here, is skipped with the reason (line 0).
 */
export function readExercises(dir: string, options: ReadOptions = {}): ExerciseSet {
  const tasks: ExerciseTask[] = [];
  const skipped: SkippedRow[] = [];
  for (const folder of exerciseFolders(dir)) {
    const read = readExercise(folder, options);
    if ('error' in read) {
      const where = read.id ?? (path.relative(dir, folder) || '.');
      skipped.push({ line: 0, reason: `${where}: ${read.error}`, ...(read.id ? { id: read.id } : {}) });
    } else if (tasks.some((t) => t.id === read.task.id))
      skipped.push({
        line: 0,
        id: read.task.id,
        reason: `${read.task.id}: a second exercise with this name`,
      });
    else tasks.push(read.task);
  }
  return { tasks, skipped };
}
