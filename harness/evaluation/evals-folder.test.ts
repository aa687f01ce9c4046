import {
  appendFileSync,
  chmodSync,
  cpSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Archive, openArchive, type TaskOutcome, type VariantRow } from '../../archive/index.ts';
import { defineDomain, type Split, type Task } from '../../domains/index.ts';
import { createEvalsFolders, lineageOf, writeEvalsFolder } from './evals-folder.ts';
import type { DomainTasks } from './evaluate.ts';

const row = (id: number, parent: number | null): VariantRow => ({
  id,
  parentId: parent,
  commitSha: null,
  step: 'done',
  status: 'evaluated',
  validParent: true,
  failureReason: null,
  diffStat: null,
  taskCodeHash: null,
  selectionReason: null,
  selectionScore: null,
  parentCommit: null,
  failureCause: null,
  createdAt: '2025-01-01T00:00:00.000Z',
  finishedAt: null,
});

describe('lineageOf', () => {
  // 0 ─┬─ 1 ── 2 ── 4
  //    └─ 3
  const tree = [row(0, null), row(1, 0), row(2, 1), row(3, 0), row(4, 2)];

  it.each([
    ['the root', tree, 0, [0]],
    ['a child of the root', tree, 3, [0, 3]],
    ['a grandchild', tree, 2, [0, 1, 2]],
    ['a deep descendant', tree, 4, [0, 1, 2, 4]],
    ['an unknown id', tree, 9, [9]],
    ['a parent missing from the list', [row(5, 4)], 5, [4, 5]],
    ['a cycle stops instead of looping', [row(0, 1), row(1, 0)], 1, [0, 1]],
  ])('%s', (_name, variants, id, expected) => {
    expect(lineageOf(variants, id)).toEqual(expected);
  });
});

/**
 * Every val and test string is unique and greppable, so a leak anywhere in the folder is found:
 * task ids, gold answers, predictions, raw outputs and the scores of val and test evaluations.
 */
const tasksOf = (split: Split, prefix: string): Task[] =>
  [1, 2, 3].map((i) => ({
    id: `${prefix}-TASK-${i}`,
    input: { riddle: `${split} riddle ${i}` },
    answer: `${prefix}-GOLD-${i}`,
  }));

const riddles = defineDomain({
  name: 'riddles',
  description: 'Riddles with one-word answers.',
  splits: ['train', 'val', 'test'],
  load: () => [],
  answerSchema: z.string(),
  score: (prediction, task) => (prediction === task.answer ? 1 : 0),
});
const domains: DomainTasks[] = [
  {
    domain: riddles,
    splits: {
      train: tasksOf('train', 'TRAIN'),
      val: tasksOf('val', 'VALSECRET'),
      test: tasksOf('test', 'TESTSECRET'),
    },
  },
];
const secretScores = { val: 0.31415926, test: 0.27182818 };

let dir: string;
let archive: Archive;

function record(variantId: number, split: Split, outcomes: TaskOutcome[]): void {
  const tasks = domains[0]!.splits[split]!;
  archive.putTaskResults(
    outcomes.map((outcome, i) => {
      const task = tasks[i]!;
      const prediction =
        outcome === 'correct' ? task.answer : `${split.toUpperCase()}-PREDICTION-${variantId}-${i}`;
      return {
        variantId,
        domain: 'riddles',
        split,
        taskId: task.id,
        outcome,
        prediction: outcome === 'parse_failure' ? undefined : prediction,
        rawOutput: `${split.toUpperCase()}-RAW-OUTPUT <json>{"response": "${prediction}"}</json>`,
        score: outcome === 'correct' ? 1 : 0,
        error: outcome === 'error' ? `${split} worker crashed` : null,
        latencyMs: 10,
        costUsd: 0,
        reused: false,
        codeHash: 'h',
        taskModel: 'sim',
      };
    }),
  );
  const correct = outcomes.filter((o) => o === 'correct').length;
  for (const stage of ['staged', 'full'] as const) {
    const staged = stage === 'staged';
    archive.putEvaluation({
      variantId,
      domain: 'riddles',
      split,
      stage,
      score: split === 'train' ? (staged ? 0.99 : correct / outcomes.length) : secretScores[split],
      nTasks: staged ? 1 : outcomes.length,
      nTotal: outcomes.length,
      correct,
      wrong: outcomes.length - correct,
      parseFailures: 0,
      errors: 0,
    });
  }
}

/** Relative path → contents of every file under `root`. */
function readTree(root: string): Map<string, string> {
  const files = readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  return new Map(
    files.map((e) => {
      const full = path.join(e.parentPath, e.name);
      return [path.relative(root, full), readFileSync(full, 'utf8')];
    }),
  );
}

/** Relative path → what is there: a file's mode and contents, a folder, a link and its target. */
function snapshot(root: string): Map<string, string> {
  const entries = readdirSync(root, { recursive: true, withFileTypes: true });
  return new Map(
    entries
      .map((e): [string, string] => {
        const full = path.join(e.parentPath, e.name);
        if (e.isSymbolicLink()) return [path.relative(root, full), `link to ${readlinkSync(full)}`];
        if (e.isDirectory()) return [path.relative(root, full), 'folder'];
        const mode = (lstatSync(full).mode & 0o7777).toString(8);
        return [path.relative(root, full), `file ${mode}: ${readFileSync(full, 'utf8')}`];
      })
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'evals-folder-'));
  archive = openArchive(path.join(dir, 'archive.sqlite'));
  // 0 ─┬─ 1 ── 2 ── 4      the MetaAgent of variant 4 improves variant 2
  //    └─ 3
  for (const [id, parent] of [
    [0, null],
    [1, 0],
    [2, 1],
    [3, 0],
  ] as const) {
    archive.insertVariant({ id, parentId: parent, step: 'done' });
    archive.updateVariant(id, { step: 'done', validParent: true, diffStat: JSON.stringify({ files: id }) });
    record(id, 'train', ['correct', 'wrong', 'parse_failure']);
    record(id, 'val', ['wrong', 'wrong', 'correct']);
    record(id, 'test', ['correct', 'wrong', 'error']);
  }
  record(2, 'train', ['correct', 'correct', 'error']);
  // --accept sequential decided variant 2 better than variant 1 and stopped variant 1 early.
  const decision = { evidence: 24.5, futility: 0.1, of: 6, paired: 6 } as const;
  archive.putAcceptance({ variantId: 2, parentId: 1, decision: 'better', tasks: 4, ...decision });
  archive.putAcceptance({ variantId: 1, parentId: 0, decision: 'worse', tasks: 5, ...decision });
  archive.insertVariant({ id: 4, parentId: 2, step: 'editing' });
  writeEvalsFolder(path.join(dir, 'evals'), archive, 2, domains);
});

afterEach(() => {
  archive.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('writeEvalsFolder', () => {
  it('never writes through links planted in the folder: they are removed, their targets untouched', () => {
    const evals = path.join(dir, 'evals');
    const outside = path.join(dir, 'outside');
    mkdirSync(outside);
    rmSync(evals, { recursive: true });
    mkdirSync(path.join(evals, 'variant-0'), { recursive: true });
    symlinkSync(path.join(outside, 'summary.md'), path.join(evals, 'summary.md'));
    symlinkSync(outside, path.join(evals, 'variant-0', 'riddles'));
    writeEvalsFolder(evals, archive, 2, domains);
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(path.join(evals, 'variant-0', 'riddles', 'train.jsonl'))).toBe(true);
    expect(readFileSync(path.join(evals, 'summary.md'), 'utf8')).toContain('variant 2');
  });

  it('holds a summary, the lineage and train results of the lineage only', () => {
    expect([...readTree(path.join(dir, 'evals')).keys()].sort()).toEqual([
      'lineage.json',
      'summary.md',
      'variant-0/riddles/summary.json',
      'variant-0/riddles/train.jsonl',
      'variant-1/riddles/summary.json',
      'variant-1/riddles/train.jsonl',
      'variant-2/riddles/summary.json',
      'variant-2/riddles/train.jsonl',
    ]);
  });

  it('never shows val or test results or gold answers', () => {
    const everything = [...readTree(path.join(dir, 'evals')).values()].join('\n');
    const secrets = [
      ...['val', 'test'].flatMap((split) =>
        domains[0]!.splits[split as Split]!.flatMap((t) => [t.id, String(t.answer), JSON.stringify(t.input)]),
      ),
      'VAL-PREDICTION',
      'TEST-PREDICTION',
      'VAL-RAW-OUTPUT',
      'TEST-RAW-OUTPUT',
      'val worker crashed',
      'test worker crashed',
      String(secretScores.val),
      String(secretScores.test),
      'SECRET',
    ];
    for (const secret of secrets) expect(everything, secret).not.toContain(secret);
  });

  it('lists the lineage from the root to the parent, with train scores of full evaluations', () => {
    const lineage = JSON.parse(readFileSync(path.join(dir, 'evals', 'lineage.json'), 'utf8')) as {
      id: number;
      parent: number | null;
      diffStat: unknown;
      train: Record<string, number>;
    }[];
    expect(lineage.map((v) => [v.id, v.parent, v.diffStat])).toEqual([
      [0, null, { files: 0 }],
      [1, 0, { files: 1 }],
      [2, 1, { files: 2 }],
    ]);
    expect(lineage.map((v) => v.train.riddles)).toEqual([1 / 3, 1 / 3, 2 / 3]);
  });

  it('writes one line per train task with input, prediction, expected answer and outcome', () => {
    const file = path.join(dir, 'evals', 'variant-0', 'riddles', 'train.jsonl');
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toMatchObject([
      {
        task_id: 'TRAIN-TASK-1',
        input: { riddle: 'train riddle 1' },
        prediction: 'TRAIN-GOLD-1',
        expected: 'TRAIN-GOLD-1',
        correct: true,
        parse_error: false,
        error: null,
      },
      {
        task_id: 'TRAIN-TASK-2',
        prediction: 'TRAIN-PREDICTION-0-1',
        expected: 'TRAIN-GOLD-2',
        correct: false,
        parse_error: false,
      },
      {
        task_id: 'TRAIN-TASK-3',
        prediction: null,
        expected: 'TRAIN-GOLD-3',
        correct: false,
        parse_error: true,
      },
    ]);
    expect(lines[1]!.output).toContain('TRAIN-RAW-OUTPUT');
  });

  it.each([
    [0, { tasks: 3, correct: 1, wrong: 1, parse_failures: 1, errors: 0, score: 1 / 3 }],
    [2, { tasks: 3, correct: 2, wrong: 0, parse_failures: 0, errors: 1, score: 2 / 3 }],
  ])('summarises the train results of variant %i per domain', (id, expected) => {
    const file = path.join(dir, 'evals', `variant-${id}`, 'riddles', 'summary.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      domain: 'riddles',
      description: 'Riddles with one-word answers.',
      ...expected,
    });
  });

  it('says in summary.md which variant descends from which', () => {
    const summary = readFileSync(path.join(dir, 'evals', 'summary.md'), 'utf8');
    expect(summary).toContain('## variant 0 (initial agent)');
    expect(summary).toContain('## variant 2 (parent 1)');
    expect(summary).toContain('- riddles: 2/3 correct, 0 wrong, 0 unparseable, 1 errors');
    expect(summary).not.toContain('variant 3');
  });

  it('shows in summary.md how --accept sequential decided the parent and its ancestors, with the evidence', () => {
    const summary = readFileSync(path.join(dir, 'evals', 'summary.md'), 'utf8');
    expect(summary).toContain(
      '## variant 2 (parent 1)\n- decided better than its parent (variant 1) on 4 of 6 tasks: evidence 24.5 for better',
    );
    expect(summary).toContain(
      '- stopped early as no real gain over its parent (variant 0) after 5 of 6 tasks',
    );
    expect(summary).not.toMatch(/## variant 0 \(initial agent\)\n- (decided|stopped|neither)/);
  });

  it('updates a kept folder for the next parent to hold what a fresh one would, and removes kept folders', () => {
    const evals = createEvalsFolders(archive, domains, { reuse: true });
    const first = path.join(dir, 'evals-a');
    const second = path.join(dir, 'evals-b');
    evals.write(first, 2);
    evals.release(first);
    expect(existsSync(first)).toBe(true);
    evals.write(second, 3);
    expect(existsSync(first)).toBe(false);
    writeEvalsFolder(path.join(dir, 'fresh'), archive, 3, domains);
    expect(readTree(second)).toEqual(readTree(path.join(dir, 'fresh')));
    evals.release(second);
    evals.dispose();
    expect(existsSync(second)).toBe(false);
  });

  it('removes a folder once its MetaAgent is done when it may not be kept', () => {
    const evals = createEvalsFolders(archive, domains, { reuse: false });
    const folder = path.join(dir, 'evals-a');
    evals.write(folder, 2);
    evals.release(folder);
    expect(existsSync(folder)).toBe(false);
  });

  describe('a kept folder changed after the harness wrote it (as without bubblewrap)', () => {
    const outside = (): string => path.join(dir, 'outside');
    const tampering: [string, (kept: string) => void, string][] = [
      [
        'a file rewritten to the same size',
        (kept) => {
          const file = path.join(kept, 'variant-0/riddles/train.jsonl');
          writeFileSync(file, readFileSync(file, 'utf8').replaceAll('TRAIN', 'FAKED'));
        },
        'variant-0/riddles/train.jsonl',
      ],
      [
        'a file appended to',
        (kept) => appendFileSync(path.join(kept, 'variant-1/riddles/summary.json'), ' '),
        'variant-1/riddles/summary.json',
      ],
      [
        'a file replaced by a link to a copy outside',
        (kept) => {
          const file = path.join(kept, 'variant-2/riddles/train.jsonl');
          cpSync(file, path.join(outside(), 'train.jsonl'));
          rmSync(file);
          symlinkSync(path.join(outside(), 'train.jsonl'), file);
        },
        'variant-2/riddles',
      ],
      [
        'a file planted in a variant folder',
        (kept) => writeFileSync(path.join(kept, 'variant-1/riddles/val.jsonl'), '{}\n'),
        'variant-1/riddles',
      ],
      ['a variant folder planted', (kept) => mkdirSync(path.join(kept, 'variant-4')), 'the folder'],
      [
        'a file removed',
        (kept) => rmSync(path.join(kept, 'variant-0/riddles/summary.json')),
        'variant-0/riddles',
      ],
      [
        'a variant folder removed',
        (kept) => rmSync(path.join(kept, 'variant-1'), { recursive: true }),
        'the folder',
      ],
      [
        'two variant folders swapped',
        (kept) => {
          renameSync(path.join(kept, 'variant-0'), path.join(kept, 'swap'));
          renameSync(path.join(kept, 'variant-1'), path.join(kept, 'variant-0'));
          renameSync(path.join(kept, 'swap'), path.join(kept, 'variant-1'));
        },
        'the folder',
      ],
      ['a file made unreadable', (kept) => chmodSync(path.join(kept, 'summary.md'), 0o200), 'summary.md'],
      [
        'a file linked to from outside',
        (kept) => linkSync(path.join(kept, 'lineage.json'), path.join(outside(), 'lineage.json')),
        'lineage.json',
      ],
      [
        'summary.md replaced by a folder',
        (kept) => {
          rmSync(path.join(kept, 'summary.md'));
          mkdirSync(path.join(kept, 'summary.md'));
        },
        'the folder',
      ],
      [
        'the folder replaced by a link to a copy outside',
        (kept) => {
          renameSync(kept, path.join(outside(), 'copy'));
          symlinkSync(path.join(outside(), 'copy'), kept);
        },
        'the folder',
      ],
      ['the folder removed', (kept) => rmSync(kept, { recursive: true }), 'the folder'],
    ];

    it.each(tampering)(
      '%s: the next folder is written afresh, as the archive holds it',
      (_name, tamper, what) => {
        mkdirSync(outside());
        const evals = createEvalsFolders(archive, domains, { reuse: true });
        const first = path.join(dir, 'evals-a');
        expect(evals.write(first, 2)).toEqual({ kind: 'fresh' });
        evals.release(first);
        tamper(first);
        const before = snapshot(outside());
        // The MetaAgent's child is done: the next MetaAgent improves it and sees its results as well.
        archive.updateVariant(4, {
          step: 'done',
          validParent: true,
          diffStat: JSON.stringify({ files: 4 }),
        });
        record(4, 'train', ['wrong', 'correct', 'correct']);

        const second = path.join(dir, 'evals-b');
        const outcome = evals.write(second, 4);
        expect(outcome.kind).toBe('refused');
        expect(outcome.kind === 'refused' && outcome.change.startsWith(`${what} `)).toBe(true);
        expect(existsSync(first)).toBe(false);
        writeEvalsFolder(path.join(dir, 'fresh'), archive, 4, domains);
        expect(snapshot(second)).toEqual(snapshot(path.join(dir, 'fresh')));
        expect(snapshot(outside())).toEqual(before);
        evals.release(second);
        evals.dispose();
      },
    );

    it('an unchanged kept folder is reused: the variant folders still shown are not written again', () => {
      const evals = createEvalsFolders(archive, domains, { reuse: true });
      const first = path.join(dir, 'evals-a');
      evals.write(first, 2);
      const inode = (folder: string): number =>
        lstatSync(path.join(folder, 'variant-0/riddles/train.jsonl')).ino;
      const before = inode(first);
      evals.release(first);
      archive.updateVariant(4, { step: 'done', validParent: true, diffStat: JSON.stringify({ files: 4 }) });
      record(4, 'train', ['wrong', 'correct', 'correct']);

      const second = path.join(dir, 'evals-b');
      expect(evals.write(second, 4)).toEqual({ kind: 'reused' });
      expect(inode(second)).toBe(before);
      writeEvalsFolder(path.join(dir, 'fresh'), archive, 4, domains);
      expect(snapshot(second)).toEqual(snapshot(path.join(dir, 'fresh')));
      evals.release(second);
      // And the folder it became is kept and checked in turn.
      expect(evals.write(path.join(dir, 'evals-c'), 2)).toEqual({ kind: 'reused' });
      expect(inode(path.join(dir, 'evals-c'))).toBe(before);
      evals.dispose();
    });
  });
});
