import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from './run-cli.ts';

/**
 * The Polyglot experiment on a small folder of real exercises in its six languages (test/fixtures/exercism:
 * C++, Go, Java, JavaScript, Python, Rust, in the polyglot-benchmark layout), graded by Debian's
 * toolchains in the sandbox: `domains test` with the references and with the untouched stubs, then a
 * simulated run whose TaskAgent works in each exercise's folder with tools.
 */

const EXERCISES = path.join(PROJECT_ROOT, 'test', 'fixtures', 'exercism');
const LANGUAGES = ['cpp', 'go', 'java', 'javascript', 'python', 'rust'];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'polyglot-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface DomainTestReport {
  tasks: number;
  results: { id: string; score: number; detail: string | null }[];
  groups: { group: string; passed: number; failed: number; skipped: number }[];
}

describe('exercism: over the six Polyglot languages', () => {
  it('scores every reference 1 and every untouched stub 0, with a line per language', async () => {
    const gold = await runCli('hyperagents', ['domains', 'test', `exercism:${EXERCISES}`, '--json'], {}, dir);
    expect(gold.stderr).toBe('');
    const report = JSON.parse(gold.stdout) as DomainTestReport;
    expect(report.groups.map((g) => g.group)).toEqual(LANGUAGES);
    for (const g of report.groups) expect(g, g.group).toMatchObject({ failed: 0, skipped: 0 });
    expect(report.results.every((r) => r.score === 1)).toBe(true);
    expect(gold.code).toBe(0);

    // An answer that writes no file leaves the stubs as they are: every exercise fails its tests.
    const answers = path.join(dir, 'stubs.jsonl');
    writeFileSync(
      answers,
      report.results.map((r) => `${JSON.stringify({ id: r.id, files: {} })}\n`).join(''),
    );
    const stubs = await runCli(
      'hyperagents',
      ['domains', 'test', `exercism:${EXERCISES}`, '--answers', answers, '--json'],
      {},
      dir,
    );
    const graded = JSON.parse(stubs.stdout) as DomainTestReport;
    expect(graded.results).toHaveLength(report.results.length);
    for (const r of graded.results) expect(r.score, r.id).toBe(0);
  }, 900_000);

  it('runs the loop offline: the TaskAgent edits its folders with tools, predictions are diffs, and the child MetaAgent reads them', async () => {
    const out = path.join(dir, 'runs');
    const runDir = path.join(out, 'polyglot');
    // The MetaAgent of generation 1 (the script's first list) reads its evals folder; the rest is the sim.
    const script = path.join(dir, 'script.json');
    writeFileSync(
      script,
      JSON.stringify({
        meta: [
          [
            {
              content: 'I read the train results of my lineage.',
              toolCalls: [
                {
                  name: 'bash',
                  // One line per train task; the lines are long (instructions, files), so only the fields.
                  input: {
                    command: `grep -o -e '"task_id":"[^"]*' -e '"diff":"--- a/[^"\\]*' -e '"test_output":"[^"]' ${runDir}/evals/variant-1/variant-0/exercism/train.jsonl`,
                  },
                },
              ],
            },
            {
              content: 'I ask the TaskAgent to run the tests before it answers.',
              toolCalls: [
                {
                  name: 'editor',
                  input: {
                    command: 'insert',
                    path: `${runDir}/worktrees/variant-1/agents/task/workspace-prompt.md`,
                    insert_line: 0,
                    new_str: 'Run the tests before you answer.',
                  },
                },
              ],
            },
            'Done.',
          ],
        ],
      }),
    );
    const run = await runCli(
      'generate-loop',
      [
        ...['--domains', `exercism:${EXERCISES}`, '--model', 'sim', '--sim-script', script],
        ...['--generations', '1', '--out', out, '--run-id', 'polyglot', '--json', '--quiet'],
      ],
      {},
      dir,
    );
    expect(run.stderr).not.toMatch(/failed:/);
    expect(run.code).toBe(0);

    const db = new Database(path.join(runDir, 'archive.sqlite'), { readonly: true });
    const rows = db
      .prepare(
        "SELECT task_id, outcome, prediction, log FROM task_results WHERE variant_id = 0 AND domain = 'exercism' AND split = 'train'",
      )
      .all() as { task_id: string; outcome: string; prediction: string; log: string | null }[];
    const taskCalls = db.prepare("SELECT count(*) AS n FROM llm_calls WHERE role = 'task'").get() as {
      n: number;
    };
    db.close();
    // Every language of the folder was worked on, each prediction is a diff of its starting files, and the
    // graders' output was kept.
    const languages = new Set(rows.map((r) => r.task_id.split('/')[0] ?? ''));
    expect([...languages].every((l) => LANGUAGES.includes(l))).toBe(true);
    expect(languages.size).toBeGreaterThanOrEqual(2);
    for (const r of rows) {
      expect(JSON.parse(r.prediction) as string, r.task_id).toMatch(/^--- a\/.*\n\+\+\+ b\//);
      expect(r.log, r.task_id).not.toBeNull();
    }
    expect(rows.some((r) => r.outcome === 'correct')).toBe(true);
    // Tools: several model calls per task (list, view, write, run, answer), not one reply each.
    expect(taskCalls.n).toBeGreaterThanOrEqual(4 * rows.length);

    // The child's MetaAgent found the diffs and the test output of its lineage's train tasks.
    const transcript = readFileSync(path.join(runDir, 'logs', 'variant-1', 'meta-transcript.json'), 'utf8');
    const seen = (JSON.parse(transcript) as { messages: { role: string; content: string }[] }).messages
      .filter((m) => m.role === 'tool')
      .map((m) => m.content)
      .join('\n');
    // Every train task of variant 0 is there, with its diff and the grader's output.
    for (const r of rows) expect(seen).toContain(`"task_id":"${r.task_id}`);
    expect(seen.match(/"diff":"--- a\//g)?.length).toBe(rows.length);
    expect(seen.match(/"test_output":"[^"]/g)?.length).toBe(rows.length);
  }, 900_000);
});
