import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Archive, openArchive } from '../../archive/index.ts';
import { finishedVariants } from './finished-variants.ts';

let dir: string;
let archive: Archive;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'finished-variants-'));
  archive = openArchive(path.join(dir, 'archive.sqlite'));
});
afterEach(() => {
  archive.close();
  rmSync(dir, { recursive: true, force: true });
});

const evaluation = (id: number, score: number) => ({
  variantId: id,
  domain: 'arithmetic',
  split: 'train' as const,
  stage: 'full' as const,
  score,
  nTasks: 10,
  nTotal: 10,
  correct: score * 10,
  wrong: 10 - score * 10,
  parseFailures: 0,
  errors: 0,
});

describe('finishedVariants', () => {
  it('reads every variant as the archive holds it, an unfinished one afresh each time', () => {
    archive.insertVariant({ id: 0, parentId: null, step: 'full' });
    const memo = finishedVariants(archive);
    expect(memo.variants().map((v) => [v.id, v.step])).toEqual([[0, 'full']]);
    archive.transitionVariant(
      0,
      'full',
      'done',
      { status: 'evaluated', selectionScore: 0.5 },
      { status: 'evaluated', score: 0.5 },
    );
    archive.insertVariant({ id: 1, parentId: 0, step: 'selected' });
    expect(memo.variants().map((v) => [v.id, v.step, v.selectionScore])).toEqual([
      [0, 'done', 0.5],
      [1, 'selected', null],
    ]);
    archive.transitionVariant(1, 'selected', 'editing');
    expect(memo.variants()[1]?.step).toBe('editing');
  });

  it('is shared by every caller of the same archive', () => {
    expect(finishedVariants(archive)).toBe(finishedVariants(archive));
  });

  it("keeps a finished variant's evaluations, and reads an unfinished one's afresh", () => {
    archive.insertVariant({ id: 0, parentId: null, step: 'full' });
    archive.putEvaluation(evaluation(0, 0.3));
    const memo = finishedVariants(archive);
    memo.variants();
    expect(memo.evaluations(0).map((e) => e.score)).toEqual([0.3]);
    archive.putEvaluation(evaluation(0, 0.4));
    expect(memo.evaluations(0).map((e) => e.score)).toEqual([0.4]);
    archive.transitionVariant(
      0,
      'full',
      'done',
      { status: 'evaluated', selectionScore: 0.4 },
      { status: 'evaluated', score: 0.4 },
    );
    memo.variants();
    expect(memo.evaluations(0).map((e) => e.score)).toEqual([0.4]);
  });
});
