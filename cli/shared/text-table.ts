/** Rows of cells as aligned plain-text columns under a header and a rule. Pure. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export const fmtScore = (score: number | null | undefined): string =>
  score === null || score === undefined ? '-' : score.toFixed(3);

export const fmtUsd = (usd: number): string => `$${usd.toFixed(4)}`;
