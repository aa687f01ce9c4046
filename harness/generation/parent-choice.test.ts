import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openArchive } from '../../archive/index.ts';
import { createVariantRepo, DEFAULT_LIMITS } from '../process/index.ts';
import { PROJECT_ROOT, type RunConfig } from '../run/index.ts';
import { chooseParent } from './parent-choice.ts';
import type { RunContext } from './run-context.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A run whose variants 0 and 1 are finished (scores 0.2 and 0.9) and whose code has `selectParent` as its
 * agents/select-parent.ts; a real variant repo, archive and child process, no sandbox.
 */
async function runWith(selectParent: string): Promise<RunContext> {
  const runDir = mkdtempSync(path.join(tmpdir(), 'parent-choice-'));
  dirs.push(runDir);
  const agents = path.join(runDir, 'source', 'agents');
  mkdirSync(agents, { recursive: true });
  writeFileSync(path.join(agents, 'select-parent.ts'), selectParent);
  const nodeModules = path.join(PROJECT_ROOT, 'node_modules');
  const { repo, rootCommit } = await createVariantRepo(
    path.join(runDir, 'variants.git'),
    agents,
    nodeModules,
  );
  const archive = openArchive(path.join(runDir, 'archive.sqlite'));
  for (const [id, score] of [
    [0, 0.2],
    [1, 0.9],
  ] as const) {
    archive.insertVariant({ id, parentId: id === 0 ? null : 0, step: 'selected' });
    archive.updateVariant(id, {
      step: 'done',
      status: 'evaluated',
      commitSha: rootCommit,
      selectionScore: score,
    });
  }
  const config = {
    parallel: 1,
    parentSelection: 'best',
    seed: 0,
    editSelectParent: true,
    limits: DEFAULT_LIMITS,
  } as RunConfig;
  return {
    config,
    runId: 'r',
    runDir,
    nodeModules,
    archive,
    repo,
    rootCommit,
    sandbox: { kind: 'none', why: 'test' },
    gateway: { socketPath: null },
  } as unknown as RunContext;
}

describe("--edit-select-parent: the newest candidate's select-parent.ts chooses", () => {
  it('uses the id it prints last, given the candidates on stdin', async () => {
    const ctx = await runWith(
      "import { readFileSync } from 'node:fs';\n" +
        "const s = JSON.parse(readFileSync(0, 'utf8'));\n" +
        "console.log('thinking');\nconsole.log(String(s.candidates[0].id));\n",
    );
    expect(await chooseParent(ctx, 2)).toEqual({ id: 0, reason: 'select-parent.ts of variant 1' });
    ctx.archive.close();
  });

  it.each([
    [
      'prints no candidate id',
      "console.log('banana');\n",
      /it printed "banana", which is not the id of a candidate/,
    ],
    [
      'exits with an error',
      "throw new Error('broken chooser');\n",
      /it exited with code 1: .*broken chooser/,
    ],
  ])('falls back to the configured strategy when it %s, and records why', async (_name, code, why) => {
    const ctx = await runWith(code);
    const chosen = await chooseParent(ctx, 2);
    expect(chosen.id).toBe(1);
    expect(chosen.reason).toMatch(/^best: highest score 0\.900 \(select-parent\.ts of variant 1 failed: /);
    expect(chosen.reason).toMatch(why);
    const event = ctx.archive.db
      .prepare("SELECT data FROM events WHERE type = 'select_parent_failed'")
      .get() as {
      data: string;
    };
    expect(JSON.parse(event.data)).toMatchObject({ chooser: 1, reason: expect.stringMatching(why) });
    ctx.archive.close();
  });
});
