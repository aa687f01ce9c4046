import type { ArchiveReader } from '../../archive/index.ts';

/** Every variant of a run as JSON lines: one object per variant. */
export function exportJsonl(reader: ArchiveReader): string {
  const run = reader.run();
  return reader
    .variants()
    .map((v) => JSON.stringify({ run: run?.id ?? null, ...v }))
    .join('\n');
}

/** One CSV field: quoted when needed; text that a spreadsheet would run as a formula is prefixed with '. */
export function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** Every variant of a run as CSV: a row per variant, a score column per domain and split. */
export function exportCsv(reader: ArchiveReader): string {
  const variants = reader.variants();
  const keys = [
    ...new Set(
      variants.flatMap((v) =>
        Object.entries(v.scores).flatMap(([d, s]) => Object.keys(s).map((sp) => `${d}|${sp}`)),
      ),
    ),
  ].sort();
  const header = [
    'id',
    'parent',
    'status',
    'score',
    ...keys.map((k) => k.replace('|', ' ')),
    'cost_usd',
    'llm_calls',
    'commit',
    'changed_files',
    'failure_reason',
  ];
  const rows = variants.map((v) => [
    v.id,
    v.parent,
    v.outcome,
    v.score,
    ...keys.map((k) => {
      const [d, sp] = k.split('|') as [string, string];
      return v.scores[d]?.[sp]?.score ?? null;
    }),
    v.costUsd,
    v.llmCalls,
    v.commit,
    v.changedFiles.join(' '),
    v.failureReason,
  ]);
  return [header, ...rows].map((r) => r.map(csvField).join(',')).join('\n');
}
