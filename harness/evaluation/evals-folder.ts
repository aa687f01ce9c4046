import { closeSync, mkdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import {
  type Acceptance,
  type Archive,
  type EvaluationRow,
  isFinalStep,
  type TaskResultRow,
  type VariantRow,
} from '../../archive/index.ts';
import type { TaskWorkspace } from '../../domains/index.ts';
import { openNoFollow } from '../process/index.ts';
import type { DomainTasks } from './evaluate.ts';
import { finishedVariants } from './finished-variants.ts';
import { changeUnder, type FolderStamps, stampEntry } from './folder-stamps.ts';
import { runNotesFile } from './run-notes.ts';
import { scoresBySplit } from './scoring.ts';

/** Writes a new file, never through a link: whatever an agent may have planted is refused, not followed. */
function writeNew(file: string, text: string): void {
  const fd = openNoFollow(file, 'create');
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** Ids from the root down to `id`. */
export function lineageOf(variants: readonly VariantRow[], id: number): number[] {
  const byId = new Map(variants.map((v) => [v.id, v]));
  const chain: number[] = [];
  for (let cur: number | null = id; cur !== null; cur = byId.get(cur)?.parentId ?? null) {
    if (chain.includes(cur)) break;
    chain.unshift(cur);
  }
  return chain;
}

/** The newest variants of the lineage that get a folder of task results; lineage.json lists them all. */
export const LINEAGE_FOLDERS = 10;

const SUMMARY_HEAD = [
  '# Evaluation results of your lineage (train split only)',
  '',
  `The newest ${LINEAGE_FOLDERS} variants of the lineage are listed here; lineage.json lists all of them.`,
  'Each `variant-<id>/` folder holds, per domain, `summary.json` and `train.jsonl` (one task per line:',
  'input, prediction, expected, correct, parse_error, error; for a task worked on in a folder of files:',
  'its starting files, the diff made to them and the test output the grader saw). The last variant listed is the one you',
  'are improving. Scores are fractions of tasks solved.',
  '',
];

/** A variant's entry in lineage.json, as JSON.stringify(lineage, null, 2) writes an array's element. */
function lineageRow(variant: VariantRow, evaluations: readonly EvaluationRow[]): string {
  // Train only: the selection score is a val score, and val results never reach the MetaAgent.
  const trainScores = scoresBySplit(evaluations.filter((e) => e.split === 'train'));
  const row = {
    id: variant.id,
    parent: variant.parentId,
    diffStat: variant.diffStat === null ? null : (JSON.parse(variant.diffStat) as unknown),
    train: Object.fromEntries(Object.entries(trainScores).map(([domain, s]) => [domain, s.train])),
  };
  return `  ${JSON.stringify(row, null, 2).replaceAll('\n', '\n  ')}`;
}

/** Characters of a workspace task's diff and test output shown per task. */
const WORKSPACE_SHOWN = 8000;

/**
 * A workspace task's line in train.jsonl: its starting files, the diff the TaskAgent made and the test output
 * the grader saw. Never the hidden tests or reference files (the task's answer).
 */
function workspaceLine(r: TaskResultRow, input: unknown, workspace: TaskWorkspace, prediction: unknown) {
  const cut = (text: string | null): string | null =>
    text === null || text.length <= WORKSPACE_SHOWN ? text : `${text.slice(0, WORKSPACE_SHOWN)}\n[cut]`;
  return {
    task_id: r.taskId,
    input,
    workspace_files: Object.keys(workspace.files).sort(),
    diff: cut(typeof prediction === 'string' ? prediction : null),
    test_output: cut(r.log),
    detail: r.detail,
    correct: r.outcome === 'correct',
    parse_error: r.outcome === 'parse_failure',
    error: r.error,
    output: r.rawOutput?.slice(0, 2000) ?? '',
  };
}

/**
 * How `--accept sequential` decided a variant against its parent, for summary.md: the decision and its evidence
 * (e-values over train and val together: one decision, never a task's validation result). None in full.
 */
function acceptanceLines(a: Acceptance | null): string[] {
  if (a === null) return [];
  const evidence = `evidence ${a.evidence.toPrecision(3)} for better, ${a.futility.toPrecision(3)} against a gain`;
  const used = `${a.tasks} of ${a.of} tasks`;
  switch (a.decision) {
    case 'better':
      return [
        `- decided better than its parent (variant ${a.parentId}) on ${used}: ${evidence}` +
          (a.tasks < a.of
            ? '; its validation score is over every task, its other scores from those used'
            : ''),
      ];
    case 'worse':
      return [
        `- stopped early as no real gain over its parent (variant ${a.parentId}) after ${used}: ${evidence}; ` +
          'its scores are from those tasks only',
      ];
    case 'undecided':
      return [
        `- neither shown better nor stopped against its parent (variant ${a.parentId}) on ${used}: ${evidence}`,
      ];
  }
}

/** What the evals folder shows of one of the newest variants of the lineage. */
interface Rendered {
  /** Its section of summary.md. */
  section: string[];
  /** Per domain: `train.jsonl` and `summary.json`. */
  files: { domain: string; train: string; summary: string }[];
}

function render(archive: Archive, domains: readonly DomainTasks[], variant: VariantRow): Rendered {
  const id = variant.id;
  const section = [
    `## variant ${id}${variant.parentId === null ? ' (initial agent)' : ` (parent ${variant.parentId})`}`,
  ];
  section.push(...acceptanceLines(archive.getAcceptance(id)));
  const files: Rendered['files'] = [];
  for (const { domain, splits } of domains) {
    const tasks = new Map((splits.train ?? []).map((t) => [t.id, t]));
    const results = archive.listTaskResults(id, { domain: domain.name, split: 'train' });
    const lines = results.map((r) => {
      const task = tasks.get(r.taskId);
      const prediction = r.prediction === null ? null : (JSON.parse(r.prediction) as unknown);
      if (task?.workspace !== undefined)
        return JSON.stringify(workspaceLine(r, task.input, task.workspace, prediction));
      return JSON.stringify({
        task_id: r.taskId,
        input: task?.input,
        prediction,
        expected: task?.answer,
        correct: r.outcome === 'correct',
        parse_error: r.outcome === 'parse_failure',
        error: r.error,
        output: r.rawOutput?.slice(0, 2000) ?? '',
      });
    });
    const count = (o: string): number => results.filter((r) => r.outcome === o).length;
    const unparseable = count('parse_failure');
    const domainSummary = {
      domain: domain.name,
      description: domain.description,
      tasks: results.length,
      correct: count('correct'),
      wrong: count('wrong'),
      parse_failures: unparseable,
      errors: count('error'),
      score: results.length === 0 ? null : results.reduce((s, r) => s + r.score, 0) / results.length,
    };
    files.push({
      domain: domain.name,
      train: lines.length === 0 ? '' : `${lines.join('\n')}\n`,
      summary: `${JSON.stringify(domainSummary, null, 2)}\n`,
    });
    section.push(
      `- ${domain.name}: ${domainSummary.correct}/${domainSummary.tasks} correct, ${domainSummary.wrong} wrong, ` +
        `${unparseable} unparseable, ${domainSummary.errors} errors`,
    );
  }
  section.push('');
  return { section, files };
}

/**
 * How `write` made a folder: afresh (no kept folder, or `reuse` off), by updating a kept folder, or afresh
 * because something had changed the kept folder since the harness wrote it (`change` says what).
 */
export type EvalsWrite = { kind: 'fresh' } | { kind: 'reused' } | { kind: 'refused'; change: string };

/**
 * The MetaAgent's evals folders of one run: what it may read about its parent's lineage (train-split
 * results per task: input, prediction, expected, correct, parse error, error; per-domain summaries; a
 * lineage summary). Validation and test results, their gold answers and the graders are never written
 * here. A folder is written without following links, and mounted read-only when the sandbox can.
 *
 * The harness's work per generation does not grow with the lineage's depth: a finished variant is rendered
 * once per process, and with `reuse` a folder a MetaAgent is done with is kept and updated for the next
 * one: only the variant folders that enter or leave the newest LINEAGE_FOLDERS are written or removed. A
 * kept folder is reused only if nothing in it changed since the harness wrote it, in any sandbox (see
 * folder-stamps.ts: an lstat per entry, far less than writing the folder); otherwise it is removed and the
 * folder written afresh, so the MetaAgent reads exactly what the archive holds either way.
 */
export interface EvalsFolders {
  write(dir: string, parentId: number): EvalsWrite;
  /** The MetaAgent is done with `dir`: removed, or kept for the next `write` to update. */
  release(dir: string): void;
  /** Removes every folder kept for reuse. */
  dispose(): void;
}

/** A folder the harness wrote: the variant folders it holds and the stamps of all it holds. */
interface Written {
  variants: Set<number>;
  stamps: FolderStamps;
}

/** The state of one run's evals folders, which the functions below share. */
interface Folders {
  archive: Archive;
  domains: readonly DomainTasks[];
  reuse: boolean;
  finished: ReturnType<typeof finishedVariants>;
  /** Each finished variant's lineage.json entry, made once: a finished variant never changes. */
  rows: Map<number, string>;
  /** What is shown of each finished variant, made once. */
  memo: Map<number, Rendered>;
  /** The folders the harness wrote and has not removed (in use or kept). */
  written: Map<string, Written>;
  /** Folders kept for reuse, no MetaAgent using them. */
  spares: string[];
}

export function createEvalsFolders(
  archive: Archive,
  domains: readonly DomainTasks[],
  options: { reuse: boolean },
): EvalsFolders {
  const folders: Folders = {
    archive,
    domains,
    reuse: options.reuse,
    finished: finishedVariants(archive),
    rows: new Map(),
    memo: new Map(),
    written: new Map(),
    spares: [],
  };
  return {
    write: (dir, parentId) => writeFolder(folders, dir, parentId),
    release(dir) {
      if (options.reuse && folders.written.has(dir)) folders.spares.push(dir);
      else {
        folders.written.delete(dir);
        rmSync(dir, { recursive: true, force: true });
      }
    },
    dispose() {
      for (const dir of folders.spares.splice(0)) {
        folders.written.delete(dir);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

function rowOf(folders: Folders, variant: VariantRow): string {
  const known = folders.rows.get(variant.id);
  if (known !== undefined) return known;
  const made = lineageRow(variant, folders.finished.evaluations(variant.id));
  if (isFinalStep(variant.step)) folders.rows.set(variant.id, made);
  return made;
}

function rendered(folders: Folders, variant: VariantRow): Rendered {
  const known = folders.memo.get(variant.id);
  if (known !== undefined) return known;
  const made = render(folders.archive, folders.domains, variant);
  if (isFinalStep(variant.step)) folders.memo.set(variant.id, made);
  return made;
}

/** Writes `rel` under `dir` (a file, or with `text` null a folder), stamped if the folder may be kept. */
function put(folders: Folders, dir: string, stamps: FolderStamps, rel: string, text: string | null): void {
  if (text === null) mkdirSync(path.join(dir, rel));
  else writeNew(path.join(dir, rel), text);
  if (folders.reuse) stampEntry(stamps, dir, rel, text);
}

/** Stamps a folder once all in it is written: its ctime changes with every entry added. */
function seal(folders: Folders, dir: string, stamps: FolderStamps, rel: string): void {
  if (folders.reuse) stampEntry(stamps, dir, rel, null);
}

function writeVariant(
  folders: Folders,
  dir: string,
  stamps: FolderStamps,
  id: number,
  variant: Rendered,
): void {
  const top = `variant-${id}`;
  put(folders, dir, stamps, top, null);
  for (const file of variant.files) {
    const folder = path.join(top, file.domain);
    put(folders, dir, stamps, folder, null);
    put(folders, dir, stamps, path.join(folder, 'train.jsonl'), file.train);
    put(folders, dir, stamps, path.join(folder, 'summary.json'), file.summary);
    seal(folders, dir, stamps, folder);
  }
  seal(folders, dir, stamps, top);
}

/** Moves a kept folder to `dir` if nothing changed in it; otherwise removes it and says what changed. */
function takeKept(folders: Folders, dir: string): { kept: Written | null; outcome: EvalsWrite } {
  const spare = folders.reuse ? folders.spares.pop() : undefined;
  if (spare === undefined) return { kept: null, outcome: { kind: 'fresh' } };
  const kept = folders.written.get(spare)!;
  folders.written.delete(spare);
  const change = changeUnder(spare, kept.stamps);
  // rmSync and renameSync remove or move links, never follow them.
  if (change !== null) {
    rmSync(spare, { recursive: true, force: true });
    return { kept: null, outcome: { kind: 'refused', change } };
  }
  renameSync(spare, dir);
  return { kept, outcome: { kind: 'reused' } };
}

/** Removes from a kept folder the variant folders no longer among the `recent`, and the files written anew. */
function pruneKept(dir: string, kept: Written, recent: ReadonlySet<number>): void {
  for (const id of kept.variants) {
    if (recent.has(id)) continue;
    rmSync(path.join(dir, `variant-${id}`), { recursive: true, force: true });
    for (const rel of kept.stamps.keys()) {
      if (rel === `variant-${id}` || rel.startsWith(`variant-${id}/`)) kept.stamps.delete(rel);
    }
  }
  for (const file of ['lineage.json', 'summary.md', 'notes.md'])
    rmSync(path.join(dir, file), { force: true });
}

/** Writes the folder for `parentId`'s lineage at `dir`, updating a kept one when it can. */
function writeFolder(folders: Folders, dir: string, parentId: number): EvalsWrite {
  const variants = folders.finished.variants();
  const byId = new Map(variants.map((v) => [v.id, v]));
  const lineage = lineageOf(variants, parentId).filter((id) => byId.has(id));
  const recent = new Set(lineage.slice(-LINEAGE_FOLDERS));
  rmSync(dir, { recursive: true, force: true });
  const { kept, outcome } = takeKept(folders, dir);
  const stamps: FolderStamps = kept?.stamps ?? new Map();
  const present = kept?.variants ?? new Set<number>();
  if (kept === null) mkdirSync(dir, { recursive: true });
  else pruneKept(dir, kept, recent);
  const summary = [...SUMMARY_HEAD];
  const listed: string[] = [];
  for (const id of lineage) {
    const row = byId.get(id)!;
    listed.push(rowOf(folders, row));
    // Older ancestors are listed in lineage.json only.
    if (!recent.has(id)) continue;
    const variant = rendered(folders, row);
    summary.push(...variant.section);
    if (!present.has(id)) writeVariant(folders, dir, stamps, id, variant);
  }
  put(folders, dir, stamps, 'lineage.json', listed.length === 0 ? '[]\n' : `[\n${listed.join(',\n')}\n]\n`);
  put(folders, dir, stamps, 'summary.md', `${summary.join('\n')}\n`);
  const notes = runNotesFile(folders.archive);
  if (notes !== null) put(folders, dir, stamps, 'notes.md', notes);
  seal(folders, dir, stamps, '');
  folders.written.set(dir, { variants: recent, stamps });
  return outcome;
}

/** Writes one evals folder afresh (see EvalsFolders). */
export function writeEvalsFolder(
  dir: string,
  archive: Archive,
  parentId: number,
  domains: readonly DomainTasks[],
): void {
  createEvalsFolders(archive, domains, { reuse: false }).write(dir, parentId);
}
