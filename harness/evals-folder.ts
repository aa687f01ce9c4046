import { closeSync, mkdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Archive, EvaluationRow, VariantRow } from '../archive/archive.ts';
import { openNoFollow } from './capped-output.ts';
import type { DomainTasks } from './evaluate.ts';
import { finishedVariants } from './finished-variants.ts';
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
  for (let cur: number | null = id; cur !== null; cur = byId.get(cur)?.parent_id ?? null) {
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
  'input, prediction, expected, correct, parse_error, error). The last variant listed is the one you',
  'are improving. Scores are fractions of tasks solved.',
  '',
];

/** A variant's entry in lineage.json, as JSON.stringify(lineage, null, 2) writes an array's element. */
function lineageRow(variant: VariantRow, evaluations: readonly EvaluationRow[]): string {
  // Train only: the selection score is a val score, and val results never reach the MetaAgent.
  const trainScores = scoresBySplit(evaluations.filter((e) => e.split === 'train'));
  const row = {
    id: variant.id,
    parent: variant.parent_id,
    diffStat: variant.diff_stat === null ? null : (JSON.parse(variant.diff_stat) as unknown),
    train: Object.fromEntries(Object.entries(trainScores).map(([domain, s]) => [domain, s.train])),
  };
  return `  ${JSON.stringify(row, null, 2).replaceAll('\n', '\n  ')}`;
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
    `## variant ${id}${variant.parent_id === null ? ' (initial agent)' : ` (parent ${variant.parent_id})`}`,
  ];
  const files: Rendered['files'] = [];
  for (const { domain, splits } of domains) {
    const tasks = new Map((splits.train ?? []).map((t) => [t.id, t]));
    const results = archive.listTaskResults(id, { domain: domain.name, split: 'train' });
    const lines = results.map((r) =>
      JSON.stringify({
        task_id: r.task_id,
        input: tasks.get(r.task_id)?.input,
        prediction: r.prediction === null ? null : (JSON.parse(r.prediction) as unknown),
        expected: tasks.get(r.task_id)?.answer,
        correct: r.outcome === 'correct',
        parse_error: r.outcome === 'parse_failure',
        error: r.error,
        output: r.raw_output?.slice(0, 2000) ?? '',
      }),
    );
    const count = (o: string): number => results.filter((r) => r.outcome === o).length;
    const domainSummary = {
      domain: domain.name,
      description: domain.description,
      tasks: results.length,
      correct: count('correct'),
      wrong: count('wrong'),
      parse_failures: count('parse_failure'),
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
        `${domainSummary.parse_failures} unparseable, ${domainSummary.errors} errors`,
    );
  }
  section.push('');
  return { section, files };
}

/**
 * The MetaAgent's evals folders of one run: what it may read about its parent's lineage (train-split
 * results per task: input, prediction, expected, correct, parse error, error; per-domain summaries; a
 * lineage summary). Validation and test results, their gold answers and the graders are never written
 * here. A folder is mounted read-only into the MetaAgent's sandbox and written without following links.
 *
 * The harness's work per generation does not grow with the lineage's depth: a finished variant is rendered
 * once per process, and with `reuse` (only when the sandbox mounts the folder read-only, so that nothing
 * in it changed since the harness wrote it) a folder a MetaAgent is done with is kept and updated for the
 * next one: only the variant folders that enter or leave the newest LINEAGE_FOLDERS are written or removed.
 */
export interface EvalsFolders {
  write(dir: string, parentId: number): void;
  /** The MetaAgent is done with `dir`: removed, or kept for the next `write` to update. */
  release(dir: string): void;
  /** Removes every folder kept for reuse. */
  dispose(): void;
}

export function createEvalsFolders(
  archive: Archive,
  domains: readonly DomainTasks[],
  options: { reuse: boolean },
): EvalsFolders {
  const finished = finishedVariants(archive);
  // What is shown of a finished variant, made once: a finished variant never changes.
  const rows = new Map<number, string>();
  const memo = new Map<number, Rendered>();
  const final = (variant: VariantRow): boolean => variant.state === 'done' || variant.state === 'failed';
  /** Which variant folders each folder the harness wrote holds (in use or kept). */
  const shown = new Map<string, Set<number>>();
  const spares: string[] = [];

  const rowOf = (variant: VariantRow): string => {
    const known = rows.get(variant.id);
    if (known !== undefined) return known;
    const made = lineageRow(variant, finished.evaluations(variant.id));
    if (final(variant)) rows.set(variant.id, made);
    return made;
  };
  const rendered = (variant: VariantRow): Rendered => {
    const known = memo.get(variant.id);
    if (known !== undefined) return known;
    const made = render(archive, domains, variant);
    if (final(variant)) memo.set(variant.id, made);
    return made;
  };

  const writeVariant = (dir: string, id: number, variant: Rendered): void => {
    for (const file of variant.files) {
      const folder = path.join(dir, `variant-${id}`, file.domain);
      mkdirSync(folder, { recursive: true });
      writeNew(path.join(folder, 'train.jsonl'), file.train);
      writeNew(path.join(folder, 'summary.json'), file.summary);
    }
  };

  return {
    write(dir, parentId) {
      const variants = finished.variants();
      const byId = new Map(variants.map((v) => [v.id, v]));
      const lineage = lineageOf(variants, parentId).filter((id) => byId.has(id));
      const recent = new Set(lineage.slice(-LINEAGE_FOLDERS));
      // A kept folder, moved into place: rmSync and renameSync remove or move links, never follow them.
      rmSync(dir, { recursive: true, force: true });
      const spare = options.reuse ? spares.pop() : undefined;
      let present = new Set<number>();
      if (spare !== undefined) {
        renameSync(spare, dir);
        present = shown.get(spare) ?? present;
        shown.delete(spare);
        for (const id of present) {
          if (!recent.has(id)) rmSync(path.join(dir, `variant-${id}`), { recursive: true, force: true });
        }
        for (const file of ['lineage.json', 'summary.md']) rmSync(path.join(dir, file), { force: true });
      } else mkdirSync(dir, { recursive: true });
      const summary = [...SUMMARY_HEAD];
      const listed: string[] = [];
      for (const id of lineage) {
        const row = byId.get(id)!;
        listed.push(rowOf(row));
        // Older ancestors are listed in lineage.json only.
        if (!recent.has(id)) continue;
        const variant = rendered(row);
        summary.push(...variant.section);
        if (!present.has(id)) writeVariant(dir, id, variant);
      }
      shown.set(dir, recent);
      writeNew(
        path.join(dir, 'lineage.json'),
        listed.length === 0 ? '[]\n' : `[\n${listed.join(',\n')}\n]\n`,
      );
      writeNew(path.join(dir, 'summary.md'), `${summary.join('\n')}\n`);
    },
    release(dir) {
      if (options.reuse && shown.has(dir)) spares.push(dir);
      else {
        shown.delete(dir);
        rmSync(dir, { recursive: true, force: true });
      }
    },
    dispose() {
      for (const dir of spares.splice(0)) {
        shown.delete(dir);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
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
