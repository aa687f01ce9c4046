import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../test/run-cli.ts';

/**
 * JavaScript grading from a project whose `node_modules` is not a folder of its own: a link to one
 * elsewhere, or none at all with the packages in a parent folder (hoisted, as a workspace has them). The
 * project's tracked files are copied, so the runner, tsx and typescript resolve to paths outside it, and
 * the real `domains test` grades the JavaScript fixtures' references in the grading sandbox.
 */
const scratch = mkdtempSync(path.join('/var/tmp', 'modules-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function copyProject(to: string): void {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: PROJECT_ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && !f.startsWith('test/fixtures/') && !f.startsWith('docs/'));
  for (const file of files) {
    mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    copyFileSync(path.join(PROJECT_ROOT, file), path.join(to, file));
  }
}

function gradeJavaScriptFixtures(project: string): {
  results: { id: string; score: number; detail?: string }[];
} {
  const fixtures = path.join(PROJECT_ROOT, 'test', 'fixtures', 'exercism', 'javascript');
  const out = execFileSync(
    process.execPath,
    [path.join(project, 'bin', 'hyperagents.mjs'), 'domains', 'test', `exercism:${fixtures}`, '--json'],
    { cwd: project, encoding: 'utf8', timeout: 300_000 },
  );
  return JSON.parse(out);
}

describe('JavaScript grading when node_modules is not the project folder of its own', () => {
  it('passes the references when node_modules is a link to a folder elsewhere', () => {
    const project = path.join(scratch, 'linked', 'project');
    copyProject(project);
    symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(project, 'node_modules'));
    const { results } = gradeJavaScriptFixtures(project);
    expect(results.length).toBeGreaterThan(1);
    for (const r of results)
      expect([r.id, r.score, r.detail]).toEqual([r.id, 1, expect.stringMatching(/passed$/)]);
  }, 600_000);

  it('passes the references when node_modules is hoisted to a parent folder', () => {
    const parent = path.join(scratch, 'hoisted');
    const project = path.join(parent, 'project');
    copyProject(project);
    symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(parent, 'node_modules'));
    const { results } = gradeJavaScriptFixtures(project);
    expect(results.length).toBeGreaterThan(1);
    for (const r of results)
      expect([r.id, r.score, r.detail]).toEqual([r.id, 1, expect.stringMatching(/passed$/)]);
  }, 600_000);
});
