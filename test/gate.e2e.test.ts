import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { runCli } from './run-cli.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'hyperagents-gate-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const edit = (input: Record<string, unknown>) => ({
  content: 'Editing.',
  toolCalls: [{ name: 'editor', input }],
});
const bash = (command: string) => ({
  content: 'Running.',
  toolCalls: [{ name: 'bash', input: { command } }],
});

/** One scripted MetaAgent per generation; the TaskAgent's replies come from the simulated model. */
const SCRIPT = {
  meta: [
    [
      bash(`printf '{"type":"module","dependencies":{"left-pad":"1.3.0"}}\\n' > package.json`),
      'Added a dependency.',
    ],
    ['I looked around and changed nothing.'],
    [
      edit({
        command: 'create',
        path: 'agents/task/helper.ts',
        file_text: "export const n: number = 'one';\n",
      }),
      'Added a helper.',
    ],
    [
      edit({
        command: 'str_replace',
        path: 'agents/task/prompt.md',
        old_str: 'Work out the answer the task asks for.',
        new_str: 'Work out the answer the task asks for. Think step by step and double-check the arithmetic.',
      }),
      'Asked for careful working.',
    ],
    [
      edit({ command: 'create', path: 'agents/task/main.ts', file_text: 'overwrite attempt' }),
      bash('exit 3'),
      'Done.',
    ],
  ],
};

describe('the gate, driven by a scripted MetaAgent', () => {
  let summary: RunSummary;

  beforeAll(async () => {
    const script = path.join(tmp, 'script.json');
    writeFileSync(script, JSON.stringify(SCRIPT));
    const result = await runCli('generate-loop', [
      ...['--domains', 'arithmetic', '--model', 'sim', '--sim-script', script, '--generations', '5'],
      ...['--parent-selection', 'best', '--out', tmp, '--run-id', 'gated', '--json', '--quiet'],
    ]);
    expect(result.code, result.stderr).toBe(0);
    summary = JSON.parse(result.stdout) as RunSummary;
  }, 300_000);

  const variant = (id: number) => summary.variants.find((v) => v.id === id)!;

  it('rejects a child that changes files outside agents/, and keeps its commit for inspection', () => {
    expect(variant(1)).toMatchObject({ status: 'rejected', validParent: false, score: null });
    expect(variant(1).failureReason).toMatch(/outside agents\/: package.json/);
    const files = execFileSync(
      'git',
      [
        '--git-dir',
        path.join(summary.runDir, 'variants.git'),
        'show',
        '--name-only',
        '--format=',
        'variant-1',
      ],
      {
        encoding: 'utf8',
      },
    );
    expect(files.trim()).toBe('package.json');
  });

  it('rejects a child whose MetaAgent changed nothing', () => {
    expect(variant(2)).toMatchObject({ status: 'rejected', commit: null });
    expect(variant(2).failureReason).toBe('the MetaAgent changed nothing');
  });

  it('rejects a child that does not typecheck, naming the error', () => {
    expect(variant(3)).toMatchObject({ status: 'rejected', validParent: false });
    expect(variant(3).failureReason).toMatch(/typecheck failed: agents\/task\/helper.ts/);
  });

  it('evaluates a child that passes the gate, and it scores above its parent', () => {
    expect(variant(4)).toMatchObject({ status: 'evaluated', parent: 0, validParent: true });
    expect(variant(4).score!).toBeGreaterThan(variant(0).score!);
    expect(summary.best?.id).toBe(4);
  });

  it('reports a refused tool call to the MetaAgent instead of overwriting a file', () => {
    // create refuses to overwrite; `exit 3` only ends the tool's shell: the MetaAgent finishes normally.
    expect(variant(5).parent).toBe(4);
    expect(variant(5)).toMatchObject({ status: 'rejected' });
    expect(variant(5).failureReason).toBe('the MetaAgent changed nothing');
    const db = new Database(path.join(summary.runDir, 'archive.sqlite'), { readonly: true });
    const events = db.prepare('SELECT type FROM events WHERE variant_id = 5 ORDER BY id').all() as {
      type: string;
    }[];
    db.close();
    // Each step the generation entered is an event too (`editing`), then how it ended.
    expect(events.map((e) => e.type)).toEqual([
      'selected',
      'editing',
      'meta_started',
      'meta_finished',
      'failed',
    ]);
  });
});
