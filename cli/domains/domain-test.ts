import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DatasetOptions } from '../../domains/index.ts';
import { openDomain, parseDomainRef } from '../../domains/index.ts';
import {
  checkDomain,
  createGradeContext,
  type DomainReport,
  loadTaskIds,
} from '../../harness/evaluation/index.ts';
import { resolveSandbox } from '../../harness/process/index.ts';
import { PROJECT_ROOT } from '../../harness/run/index.ts';
import { unreadDatasetFlags } from '../shared/dataset-flags.ts';
import { UsageError } from '../shared/usage-error.ts';
import { matchAnswerIds } from './answer-ids.ts';

const ANSWER_LINE =
  'Each line is {"id": ..., "response": ...}, or {"id": ..., "files": {"path": "content", ...}} for a workspace ' +
  'task (the files written over its starting ones), one per task.';

/** Reads `{"id", "response"}` lines; a bad line, a repeated id or no answer at all is the user's to fix. */
function readAnswers(file: string): Map<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'EISDIR'
        ? `--answers ${file} is a folder: give a JSON Lines file. ${ANSWER_LINE}`
        : code === 'ENOENT'
          ? `--answers ${file}: no such file. Give JSON Lines of {"id": ..., "response": ...}.`
          : `--answers ${file} cannot be read (${code ?? (error as Error).message}).`,
    );
  }
  const answers = new Map<string, unknown>();
  const lineOf = new Map<string, number>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`--answers ${file}, line ${i + 1}: not valid JSON. ${ANSWER_LINE}`);
    }
    const row = value as { id?: unknown; response?: unknown; files?: unknown } | null;
    if (
      typeof row !== 'object' ||
      row === null ||
      (typeof row.id !== 'string' && typeof row.id !== 'number') ||
      !('response' in row || 'files' in row)
    ) {
      throw new UsageError(
        `--answers ${file}, line ${i + 1}: each line needs an "id" and a "response" (or "files" for a workspace task).`,
      );
    }
    if ('files' in row && (typeof row.files !== 'object' || row.files === null || Array.isArray(row.files))) {
      throw new UsageError(
        `--answers ${file}, line ${i + 1}: "files" is an object of file path → content, e.g. {"bowling.py": "..."}.`,
      );
    }
    const id = String(row.id);
    const earlier = lineOf.get(id);
    if (earlier !== undefined) {
      throw new UsageError(
        `--answers ${file}, line ${i + 1}: task ${id} was answered on line ${earlier} already. Give each task ` +
          'one answer, so the score says which one was graded.',
      );
    }
    lineOf.set(id, i + 1);
    answers.set(id, 'response' in row ? row.response : { files: row.files });
  });
  if (answers.size === 0)
    throw new UsageError(`--answers ${file} holds no answers, so there is nothing to grade. ${ANSWER_LINE}`);
  return answers;
}

function printReport(report: DomainReport): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  for (const r of report.results)
    out(`${r.split.padEnd(5)} ${r.id.padEnd(24)} ${r.score.toFixed(2)}${r.detail ? `  ${r.detail}` : ''}`);
  for (const s of report.skipped)
    out(s.line > 0 ? `skipped line ${s.line}: ${s.reason}` : `skipped ${s.reason}`);
  for (const g of report.groups ?? [])
    out(`${g.group}: ${g.passed} passed, ${g.failed} failed, ${g.skipped} skipped`);
  for (const c of report.checks) out(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.message}`);
  out(
    `${report.domain}: ${report.tasks} tasks, ${report.results.length} graded, score ${report.score.toFixed(3)}`,
  );
}

/** What `hyperagents domains test REF` was given besides REF. */
export interface TestOptions {
  flags: DatasetOptions;
  /** The --answers file, if one was given. */
  answers: string | undefined;
  json: boolean;
}

/** `hyperagents domains test REF`: grades the gold answers (or the given ones) and runs the checks. */
export async function testDomain(refText: string, parsed: TestOptions): Promise<number> {
  const ref = parseDomainRef(refText);
  if (!ref.ok) throw new UsageError(ref.message);
  const unread = unreadDatasetFlags([ref.ref], parsed.flags);
  if (unread !== null) throw new UsageError(unread);
  const opened = await openDomain(ref.ref, parsed.flags);
  if (!opened.ok) throw new UsageError(opened.message);
  const answers = parsed.answers === undefined ? undefined : readAnswers(path.resolve(parsed.answers));
  const resolved = resolveSandbox('auto');
  const sandbox =
    resolved.kind === 'bwrap' ? resolved : { kind: 'none' as const, why: 'bubblewrap is not installed' };
  if (sandbox.kind === 'none' && !parsed.json)
    process.stderr.write(
      'Warning: bubblewrap is not installed, so code answers are graded without a sandbox.\n',
    );
  if (answers !== undefined && parsed.answers !== undefined) {
    const match = matchAnswerIds([...answers.keys()], await loadTaskIds(opened.domain));
    if (match.kind === 'refused')
      throw new UsageError(`--answers ${parsed.answers}: ${match.message} Give each answer its task's id.`);
    if (match.unanswered > 0 && !parsed.json)
      process.stderr.write(
        `Note: ${match.unanswered} task(s) have no answer in ${parsed.answers}, and score 0.\n`,
      );
  }
  const ctx = createGradeContext({ sandbox, nodeModules: path.join(PROJECT_ROOT, 'node_modules') });
  const report = await checkDomain(opened.domain, ctx, answers === undefined ? {} : { answers });
  if (parsed.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  else printReport(report);
  return report.checks.every((c) => c.ok) ? 0 : 1;
}
