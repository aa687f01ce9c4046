import { closeSync, mkdirSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Archive, VariantRow } from '../archive/archive.ts';
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

/**
 * Writes what the MetaAgent may read about its parent's lineage: train-split results per task (input,
 * prediction, expected, correct, parse error, error), per-domain summaries and a lineage summary.
 * Validation and test results, their gold answers and the graders are never written here. The folder
 * is mounted read-only into the MetaAgent's sandbox; it is made afresh and written without following links.
 */
export function writeEvalsFolder(
  dir: string,
  archive: Archive,
  parentId: number,
  domains: readonly DomainTasks[],
): void {
  // A fresh folder: rmSync removes links instead of following them.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const finished = finishedVariants(archive);
  const variants = finished.variants();
  const byId = new Map(variants.map((v) => [v.id, v]));
  const lineage = lineageOf(variants, parentId);
  const recent = new Set(lineage.slice(-LINEAGE_FOLDERS));
  const summary: string[] = [
    '# Evaluation results of your lineage (train split only)',
    '',
    `The newest ${LINEAGE_FOLDERS} variants of the lineage are listed here; lineage.json lists all of them.`,
    'Each `variant-<id>/` folder holds, per domain, `summary.json` and `train.jsonl` (one task per line:',
    'input, prediction, expected, correct, parse_error, error). The last variant listed is the one you',
    'are improving. Scores are fractions of tasks solved.',
    '',
  ];
  const lineageRows = [];
  for (const id of lineage) {
    const variant = byId.get(id);
    if (variant === undefined) continue;
    // Train only: the selection score is a val score, and val results never reach the MetaAgent.
    const trainScores = scoresBySplit(finished.evaluations(id).filter((e) => e.split === 'train'));
    lineageRows.push({
      id,
      parent: variant.parent_id,
      diffStat: variant.diff_stat === null ? null : (JSON.parse(variant.diff_stat) as unknown),
      train: Object.fromEntries(Object.entries(trainScores).map(([domain, s]) => [domain, s.train])),
    });
    // Older ancestors are listed in lineage.json only, so writing the folder takes the same time at any depth.
    if (!recent.has(id)) continue;
    summary.push(
      `## variant ${id}${variant.parent_id === null ? ' (initial agent)' : ` (parent ${variant.parent_id})`}`,
    );
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
      const folder = path.join(dir, `variant-${id}`, domain.name);
      mkdirSync(folder, { recursive: true });
      writeNew(path.join(folder, 'train.jsonl'), lines.length === 0 ? '' : `${lines.join('\n')}\n`);
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
      writeNew(path.join(folder, 'summary.json'), `${JSON.stringify(domainSummary, null, 2)}\n`);
      summary.push(
        `- ${domain.name}: ${domainSummary.correct}/${domainSummary.tasks} correct, ${domainSummary.wrong} wrong, ` +
          `${domainSummary.parse_failures} unparseable, ${domainSummary.errors} errors`,
      );
    }
    summary.push('');
  }
  writeNew(path.join(dir, 'lineage.json'), `${JSON.stringify(lineageRows, null, 2)}\n`);
  writeNew(path.join(dir, 'summary.md'), `${summary.join('\n')}\n`);
}
