import { readFileSync } from 'node:fs';
import { withFewShot } from './dataset-few-shot.ts';
import { inspectSamples, resolveFields } from './dataset-fields.ts';
import { answerPattern, placedDomain } from './dataset-grading.ts';
import type { DatasetOptions } from './dataset-options.ts';
import { type ReadRows, readRows } from './dataset-rows.ts';
import { type DatasetAnswer, placeRows } from './dataset-tasks.ts';
import type { Domain } from './define-domain.ts';
import { parseTolerance } from './metrics.ts';
import { rowChoices } from './row-choices.ts';

export { fieldValue } from './dataset-fields.ts';
export type { DatasetAnswer, DatasetTask } from './dataset-tasks.ts';

export type Opened =
  | { ok: true; domain: Domain<Record<string, unknown>, DatasetAnswer, string | number> }
  | { ok: false; message: string };

/**
 * A domain from a dataset's rows: read here from a CSV or JSONL file, or given already read (any format,
 * a folder of split files: see dataset-files.ts). Configuration mistakes are a message; bad rows are
 * skipped by line.
 */
export function datasetDomain(
  file: string,
  name: string,
  requested: DatasetOptions,
  given?: ReadRows,
): Opened {
  let options = requested;
  let read: ReadRows;
  if (given !== undefined) read = given;
  else {
    let content: string;
    try {
      content = readFileSync(file, 'utf8');
    } catch (error) {
      return {
        ok: false,
        message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      };
    }
    read = readRows(file, content, options.header, options.answerField);
  }
  const { rows, errors, fields, fatal } = read;
  if (fatal !== undefined)
    return {
      ok: false,
      message: `${file}, line ${fatal.line}: ${fatal.reason}. The first row gives the fields, so it must be read whole: fix it.`,
    };
  const inspect = inspectSamples(file, fields, rows, options);
  if (inspect !== null && !inspect.ok) return inspect;
  if (inspect !== null) options = inspect.options;
  // Rows with their own choices are graded by the label chosen, unless a metric is named.
  const metric =
    options.metric ??
    (rows.length > 0 && rows.every((r) => rowChoices(r.values) !== null) ? 'choice' : 'exact');
  if (metric === 'truthful' && options.incorrectField === undefined)
    return {
      ok: false,
      message: `${file}: the truthful metric grades against correct and incorrect answers: name their fields with --correct-field and --incorrect-field (lists, or text separated by ";").`,
    };
  const resolved = resolveFields(file, options, fields, rows);
  if (!resolved.ok) return resolved;
  const pattern = answerPattern(options);
  if (!pattern.ok) return pattern;
  const tolerance = options.tolerance === undefined ? null : parseTolerance(options.tolerance);
  const { placed, skipped, problems } = placeRows(rows, errors, resolved.options, metric, pattern.pattern);
  if (placed.length === 0)
    return {
      ok: false,
      message: `${file}: no usable rows${skipped[0] ? ` (line ${skipped[0].line}: ${skipped[0].reason})` : ''}.`,
    };
  if (options.fewShot !== undefined && options.fewShot > 0 && resolved.options.template === undefined)
    return {
      ok: false,
      message: `${file}: --few-shot needs --prompt-template, which says how each example and task is written.`,
    };
  const fewShot = withFewShot(file, placed, options.fewShot ?? 0);
  if (fewShot !== null) return fewShot;
  return {
    ok: true,
    domain: placedDomain(
      file,
      name,
      options,
      { metric, pattern: pattern.pattern, tolerance, problems },
      placed,
      skipped,
    ),
  };
}
