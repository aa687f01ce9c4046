/**
 * Candidates within a small edit distance of `id` (whole id or the part after `provider/`), best first; only
 * those about as close as the best, so one clear typo gets one answer.
 */
export function closeMatches(id: string, candidates: readonly string[], max = 3): string[] {
  const wanted = id.toLowerCase();
  const scored = candidates.map((c) => {
    const lower = c.toLowerCase();
    const bare = lower.slice(lower.indexOf('/') + 1);
    return { c, d: Math.min(levenshtein(wanted, lower), levenshtein(wanted, bare)) };
  });
  const best = Math.min(...scored.map((s) => s.d));
  const typed = wanted.slice(wanted.indexOf('/') + 1);
  const limit = Math.min(best + 1, Math.max(2, Math.floor(typed.length / 3)));
  return scored
    .filter((s) => s.d <= limit)
    .sort((a, b) => a.d - b.d || a.c.localeCompare(b.c))
    .slice(0, max)
    .map((s) => s.c);
}

export function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost));
    }
    prev = row;
  }
  return prev[b.length]!;
}
