import { type GradingSetting, type LanguageGrading, POLYGLOT_GRADED, SETTINGS } from './polyglot-grading.ts';

const label = (s: GradingSetting): string =>
  s.where === 'process'
    ? `${s.caches === 'on' ? 'caches' : 'no caches'}, 1 process`
    : `${s.workers} queue worker${s.workers === 1 ? '' : 's'}`;

const rate = (l: LanguageGrading, s: GradingSetting): number =>
  l.batches.find((b) => b.where === s.where && b.caches === s.caches && b.workers === s.workers)?.perMinute ??
  Number.NaN;

/**
 * The Polyglot grading benchmark as lines: exercises per minute per language in each setting, the ratios
 * that matter (the caches on one process, a queue worker over a local process, two workers over one), and
 * what grading a full Polyglot evaluation of one variant costs at those rates.
 */
export function polyglotGradingLines(results: readonly LanguageGrading[]): string[] {
  const lines = [
    `  ${'language'.padEnd(11)} n   ${SETTINGS.map((s) => label(s).padStart(24)).join('')}   caches ÷ none   1 worker ÷ 1 process   2 ÷ 1 worker`,
  ];
  for (const l of results) {
    const [none, caches, worker1, workers2] = SETTINGS.map((s) => rate(l, s));
    const passes = l.batches.map((b) => b.passed);
    const cells = l.batches.map((b) =>
      `${b.perMinute.toFixed(1)}/min (median ${b.medianSeconds.toFixed(1)} s)`.padStart(24),
    );
    lines.push(
      `  ${l.language.padEnd(11)} ${String(l.exercises).padStart(3)} ${cells.join('')}` +
        `   ${(caches! / none!).toFixed(2)}x`.padEnd(16) +
        `${(worker1! / caches!).toFixed(2)}x`.padEnd(23) +
        `${(workers2! / worker1!).toFixed(2)}x` +
        (passes.every((p) => p === 2 * l.exercises)
          ? ''
          : `  (passed: ${passes.join(', ')} of ${2 * l.exercises})`),
    );
  }
  const missing = Object.keys(POLYGLOT_GRADED).filter((l) => !results.some((r) => r.language === l));
  if (missing.length > 0)
    return [
      ...lines,
      `  No full Polyglot evaluation to project: no ${missing.join(', ')} exercise was timed.`,
    ];
  const total = Object.values(POLYGLOT_GRADED).reduce((a, b) => a + b, 0);
  lines.push(
    `  Grading a full Polyglot evaluation of one variant (${total} exercises graded of 225: ${Object.entries(
      POLYGLOT_GRADED,
    )
      .map(([l, n]) => `${l} ${n}`)
      .join(', ')}) at these rates:`,
  );
  const minutes = SETTINGS.map((s) =>
    Object.entries(POLYGLOT_GRADED).reduce((sum, [language, n]) => {
      const l = results.find((r) => r.language === language);
      return sum + (l === undefined ? Number.NaN : n / rate(l, s));
    }, 0),
  );
  SETTINGS.forEach((s, i) => {
    lines.push(
      `    ${label(s).padEnd(22)} ${minutes[i]!.toFixed(1).padStart(6)} min  ${(minutes[0]! / minutes[i]!).toFixed(2)}x the speed of no caches, 1 process`,
    );
  });
  return lines;
}
