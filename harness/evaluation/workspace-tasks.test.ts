import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Archive,
  archiveFile,
  type EvalCache,
  openArchive,
  openEvalCache,
} from '../../archive/index.ts';
import { writeSyntheticRun } from '../../archive/testing/synthetic-run.ts';
import type { Domain, Task } from '../../domains/index.ts';
import { addDomain, addTask, HIDDEN_TEST, startWorkspacePool } from '../../test/hostile/workspace-fixture.ts';
import { runCli } from '../../test/run-cli.ts';
import { resolveSandbox } from '../process/index.ts';
import { writeEvalsFolder } from './evals-folder.ts';
import { type DomainTasks, type EvaluationTarget, evaluateStage } from './evaluate.ts';
import { createGradeContext } from './grade-context.ts';
import { createTaskLimit } from './task-limit.ts';
import type { TaskPool } from './task-workers.ts';

/**
 * Workspace tasks end to end: a real TaskAgent process (a stand-in that edits its workspace) under
 * bubblewrap when the machine has it, the harness's collection, the diff, grading by node in the grading
 * sandbox, the archive, the cache, `hyperagents archive tasks` and the MetaAgent's evals folder.
 */

const sandbox = (() => {
  const resolved = resolveSandbox('auto');
  return resolved.kind === 'missing' ? { kind: 'none' as const, why: 'missing' } : resolved;
})();

let tmp: string;
let runsDir: string;
let runDir: string;
let archive: Archive;
let cache: EvalCache;
let pool: TaskPool;
const train: Task[] = [
  addTask('solve', { act: 'solve' }),
  addTask('wrong', { act: 'wrong' }),
  addTask('delete', { act: 'delete' }),
];
const val: Task[] = [addTask('val-solve', { act: 'solve' })];
let domain: Domain;
let domains: DomainTasks[];

function target(variantId: number, overrides: Partial<EvaluationTarget> = {}): EvaluationTarget {
  return {
    archive,
    cache,
    pool,
    variantId,
    codeHash: 'code-1',
    taskModel: 'sim',
    seed: 0,
    cacheable: true,
    limit: createTaskLimit(2),
    grading: createGradeContext({
      sandbox,
      nodeModules: path.resolve('node_modules'),
      scratchDir: path.join(tmp, 'grading'),
    }),
    settings: { maxToolCalls: 7, taskTimeoutSec: 30, sandbox: 'auto' },
    ...overrides,
  };
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'workspace-tasks-'));
  runsDir = path.join(tmp, 'runs');
  runDir = writeSyntheticRun(runsDir, { id: 'ws-run', variants: 1, domains: ['js-add'] });
  archive = openArchive(archiveFile(runDir));
  cache = openEvalCache(path.join(tmp, 'cache.sqlite'));
  pool = startWorkspacePool(path.join(tmp, 'pool'), sandbox, { maxFiles: 100, maxKb: 64 });
  domain = addDomain({ train, val }) as unknown as Domain;
  domains = [{ domain, splits: { train, val } }];
  archive.insertVariant({ id: 1, parentId: 0, step: 'done' });
  const outcome = await evaluateStage(target(1), domains, 'full', false);
  expect(outcome.kind).toBe('scored');
}, 120_000);

afterAll(async () => {
  await pool.close();
  cache.close();
  archive.close();
  rmSync(tmp, { recursive: true, force: true });
});

const result = (variantId: number, taskId: string) => {
  const row = archive.listTaskResults(variantId).find((r) => r.taskId === taskId);
  if (row === undefined) throw new Error(`no result for ${taskId}`);
  return { ...row, diff: row.prediction === null ? null : (JSON.parse(row.prediction) as unknown) };
};

describe('a workspace task', () => {
  it('is solved in the workspace, graded by the hidden test, and stored as the diff with the test output', () => {
    const solved = result(1, 'solve');
    expect(solved.outcome).toBe('correct');
    expect(solved.score).toBe(1);
    expect(solved.detail).toBe('1/1 passed');
    expect(solved.diff).toContain('--- /dev/null\n+++ b/request.json\n@@ -0,0 +1 @@\n');
    expect(solved.diff).toContain(
      '--- a/solution.js\n+++ b/solution.js\n@@ -1,3 +1 @@\n-module.exports = (a, b) => {\n-  throw new Error("not implemented");\n-};\n+module.exports = (a, b) => a + b;\n',
    );
    expect(solved.log).toContain('PASS add(2, 3) = 5');
    expect(solved.log).toContain('grading copy: only regular files');
  });

  it('sends the workspace path, its files, the test command and the task settings whole in the request', () => {
    const diff = result(1, 'solve').diff as string;
    const line = diff.split('\n').find((l) => l.startsWith('+{'));
    const seen = JSON.parse(line!.slice(1)) as {
      workspace: { path: string; files: string[]; language: string; testCommand: string };
      settings: Record<string, unknown>;
      limits: { maxToolCalls: number };
    };
    expect(seen.workspace.files).toEqual(['README.md', 'solution.js']);
    expect(seen.workspace.language).toBe('javascript');
    expect(seen.workspace.testCommand).toBe('node test.js');
    expect(seen.settings).toEqual({ maxToolCalls: 7, taskTimeoutSec: 30, sandbox: 'auto' });
    // The cap again where a TaskAgent written before the settings looks for it.
    expect(seen.limits).toEqual({ maxToolCalls: 7 });
    expect(path.isAbsolute(seen.workspace.path)).toBe(true);
    // A fresh folder under an unguessable name, removed once collected.
    expect(path.basename(seen.workspace.path)).toMatch(/^[0-9a-f]{32}$/);
    expect(existsSync(seen.workspace.path)).toBe(false);
  });

  it('is a wrong answer with the failing test output when the edit is wrong, and shows a deleted file', () => {
    const wrong = result(1, 'wrong');
    expect(wrong.outcome).toBe('wrong');
    expect(wrong.log).toContain('FAIL add(2, 3) = -1, expected 5');
    const deleted = result(1, 'delete');
    expect(deleted.outcome).toBe('wrong');
    expect(deleted.diff).toContain('--- a/solution.js\n+++ /dev/null\n');
  });

  it('never puts the hidden test where a TaskAgent works: not in the workspace, not in the diff', () => {
    for (const taskId of ['solve', 'wrong', 'delete']) {
      expect(result(1, taskId).diff).not.toContain('hidden.test.js');
      expect(result(1, taskId).diff).not.toContain('const odd = [];');
    }
    expect(HIDDEN_TEST).toContain('const odd = [];');
  });

  it('is reused from the cache by a variant with the same TaskAgent code, graded again from the kept files', async () => {
    archive.insertVariant({ id: 2, parentId: 1, step: 'done' });
    const outcome = await evaluateStage(target(2), domains, 'full', false);
    expect(outcome.kind).toBe('scored');
    const reused = result(2, 'solve');
    expect(reused.reused).toBe(true);
    expect(reused.outcome).toBe('correct');
    expect(reused.diff).toBe(result(1, 'solve').diff);
    expect(reused.log).toContain('PASS add(2, 3) = 5');
  });

  it('shows its diff and test output in `hyperagents archive tasks`', async () => {
    const shown = await runCli('hyperagents', ['archive', 'tasks', 'ws-run:1', '--runs', runsDir]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/diff: 2 files, \+2 -3/);
    expect(shown.stdout).toContain('js-add train wrong: wrong (0/1 passed)');
    expect(shown.stdout).toContain('+module.exports = (a, b) => a - b;');
    expect(shown.stdout).toContain(
      'test output:\ngrading copy: only regular files\nFAIL add(2, 3) = -1, expected 5',
    );
  }, 60_000);

  it("shows train tasks' diff and test output in the MetaAgent's evals folder, and nothing of val", () => {
    const evals = path.join(tmp, 'evals');
    writeEvalsFolder(evals, archive, 1, domains);
    const lines = readFileSync(path.join(evals, 'variant-1', 'js-add', 'train.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const wrong = lines.find((l) => l.task_id === 'wrong')!;
    expect(wrong.diff).toContain('+module.exports = (a, b) => a - b;');
    expect(wrong.test_output).toContain('FAIL add(2, 3) = -1, expected 5');
    expect(wrong.workspace_files).toEqual(['README.md', 'solution.js']);
    // The hidden test is the task's answer: never shown.
    expect(JSON.stringify(lines)).not.toContain('const odd = [];');
    const all = readdirSync(path.join(evals, 'variant-1', 'js-add'));
    expect(all.some((f) => f.includes('val'))).toBe(false);
    expect(readFileSync(path.join(evals, 'variant-1', 'js-add', 'train.jsonl'), 'utf8')).not.toContain(
      'val-solve',
    );
  });
});

describe('workspace limits', () => {
  it('makes a workspace over its size or file count a wrong answer that says which limit it passed', async () => {
    const tasks = [
      addTask('huge', { act: 'huge', bytes: 200 * 1024 }),
      addTask('many', { act: 'many', files: 500 }),
    ];
    const over: DomainTasks[] = [
      { domain: addDomain({ train: tasks }) as unknown as Domain, splits: { train: tasks } },
    ];
    archive.insertVariant({ id: 3, parentId: 0, step: 'done' });
    await evaluateStage(target(3, { codeHash: 'code-3' }), over, 'full', false);
    const huge = result(3, 'huge');
    expect(huge.outcome).toBe('wrong');
    expect(huge.detail).toBe(
      'the workspace is over its limits (100 files, 64 KiB): it has more than 65536 bytes of files',
    );
    expect(huge.error).toBeNull();
    const many = result(3, 'many');
    expect(many.outcome).toBe('wrong');
    expect(many.detail).toContain('it has more than 100 files and folders');
  }, 60_000);
});

describe('the workspace folders', () => {
  it('of a task past its timeout are removed, and the task fails with the time limit as its reason', async () => {
    const dir = path.join(tmp, 'timeout');
    mkdirSync(dir);
    const own = startWorkspacePool(dir, sandbox, { maxFiles: 10, maxKb: 10 }, { taskTimeoutMs: 1500 });
    const reply = await own.run({
      id: 't',
      domain: 'js-add',
      input: { act: 'hang' },
      workspace: { files: { 'solution.js': '' } },
    });
    expect(reply).toMatchObject({ kind: 'infra', reason: 'no reply within 1.5 s (after one retry)' });
    const left = readdirSync(path.join(dir, 'workspaces')).flatMap((w) =>
      ['mounted', 'collected', 'staging'].flatMap((f) => {
        const at = path.join(dir, 'workspaces', w, f);
        return existsSync(at) ? readdirSync(at) : [];
      }),
    );
    expect(left).toEqual([]);
    await own.close();
  }, 60_000);

  it('are removed when the pool closes', async () => {
    const dir = path.join(tmp, 'closing');
    mkdirSync(dir);
    const own = startWorkspacePool(dir, sandbox, {
      maxFiles: 10,
      maxKb: 10,
    });
    const reply = await own.run({
      id: 't',
      domain: 'js-add',
      input: { act: 'solve' },
      workspace: { files: { 'solution.js': '' } },
    });
    expect(reply.kind === 'reply' && reply.workspace?.kind).toBe('files');
    await own.close();
    writeFileSync(path.join(dir, 'marker'), '');
    expect(readdirSync(path.join(dir, 'workspaces'))).toEqual([]);
  }, 60_000);
});
