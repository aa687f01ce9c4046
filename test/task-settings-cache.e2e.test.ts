import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../harness/run/index.ts';
import { PROJECT_ROOT, runCli } from './run-cli.ts';

/**
 * The result cache under one --out folder keys the task settings a result was made under: a run with another
 * tool-call cap, task time or output limit asks its TaskAgent again; the same settings still reuse. The
 * domain is a Python exercise worked on with tools by the simulated TaskAgent, so the tool-call cap matters.
 */

const PYTHON = `exercism:${path.join(PROJECT_ROOT, 'test', 'fixtures', 'exercism', 'python')}`;

let out: string;
beforeAll(() => {
  out = mkdtempSync(path.join(tmpdir(), 'settings-cache-'));
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

async function run(id: string, ...options: string[]): Promise<{ calls: number; reused: number[] }> {
  const args = ['--domains', PYTHON, '--generations', '0', '--out', out, '--run-id', id, '--json', '--quiet'];
  const result = await runCli('generate-loop', [...args, ...options]);
  expect(result.code, result.stderr).toBe(0);
  const summary = JSON.parse(result.stdout) as RunSummary;
  const db = new Database(path.join(summary.runDir, 'archive.sqlite'), { readonly: true });
  const rows = db.prepare('SELECT reused FROM task_results ORDER BY task_id').all() as { reused: number }[];
  db.close();
  return { calls: summary.llmCalls, reused: rows.map((r) => r.reused) };
}

describe('the result cache and the task settings', () => {
  it('reuses a result only under the settings it was made under', async () => {
    const first = await run('first');
    expect(first.calls).toBeGreaterThan(1);
    expect(first.reused).toEqual([0]);
    // The same settings: every result reused, no model call.
    expect(await run('same')).toEqual({ calls: 0, reused: [1] });

    // One tool call: the TaskAgent is asked again, and stops after its one call.
    expect(await run('one-tool-call', '--max-tool-calls', '1')).toEqual({ calls: 1, reused: [0] });
    expect(await run('one-tool-call-again', '--max-tool-calls', '1')).toEqual({ calls: 0, reused: [1] });

    // Another task time, another output limit: asked again, each.
    for (const [id, option, value] of [
      ['task-timeout', '--task-timeout', '120'],
      ['output-limit', '--max-output-kb', '64'],
    ] as const) {
      const other = await run(id, option, value);
      expect(other.calls, option).toBe(first.calls);
      expect(other.reused, option).toEqual([0]);
    }
  }, 300_000);
});
