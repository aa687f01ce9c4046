/** Lines of context around each change, as `diff -u`. */
const CONTEXT = 3;
/** Past this many line pairs a changed file is shown removed and added whole, not aligned line by line. */
const MAX_ALIGN = 4_000_000;

/**
 * The unified diff of a workspace's final files against its starting files (relative path → text), file by
 * file in path order: changed, added (`--- /dev/null`) and deleted (`+++ /dev/null`) files. Empty when
 * nothing changed. Pure.
 */
export function workspaceDiff(before: Record<string, string>, after: Record<string, string>): string {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  let out = '';
  for (const rel of paths) {
    const a = Object.hasOwn(before, rel) ? before[rel] : undefined;
    const b = Object.hasOwn(after, rel) ? after[rel] : undefined;
    if (a === b) continue;
    out += `--- ${a === undefined ? '/dev/null' : `a/${rel}`}\n+++ ${b === undefined ? '/dev/null' : `b/${rel}`}\n`;
    out += hunks(lines(a ?? ''), lines(b ?? ''));
  }
  return out;
}

/** A text's lines, each with its newline; a last line without one is marked as `diff` does. */
function lines(text: string): string[] {
  if (text === '') return [];
  const parts = text.split('\n');
  const last = parts.pop();
  const out = parts.map((l) => `${l}\n`);
  if (last !== undefined && last !== '') out.push(`${last}\n\\ No newline at end of file\n`);
  return out;
}

type Op = { kind: ' ' | '-' | '+'; line: string };

/** The edit script from `a` to `b`: a longest common subsequence between their common prefix and suffix. */
function edits(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head: Op[] = a.slice(0, start).map((line) => ({ kind: ' ', line }));
  const tail: Op[] = a.slice(endA).map((line) => ({ kind: ' ', line }));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const n = midA.length;
  const m = midB.length;
  if (n * m > MAX_ALIGN) {
    return [
      ...head,
      ...midA.map((line): Op => ({ kind: '-', line })),
      ...midB.map((line): Op => ({ kind: '+', line })),
      ...tail,
    ];
  }
  // lcs[i][j]: length of the longest common subsequence of midA[i..] and midB[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = midA[i] === midB[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const mid: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && midA[i] === midB[j]) {
      mid.push({ kind: ' ', line: midA[i++]! });
      j++;
    } else if (j < m && (i === n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!))
      mid.push({ kind: '+', line: midB[j++]! });
    else mid.push({ kind: '-', line: midA[i++]! });
  }
  // Removals before additions within a run of changes, as `diff -u` prints them.
  return [...head, ...reorder(mid), ...tail];
}

function reorder(ops: Op[]): Op[] {
  const out: Op[] = [];
  let minus: Op[] = [];
  let plus: Op[] = [];
  const flush = (): void => {
    out.push(...minus, ...plus);
    minus = [];
    plus = [];
  };
  for (const op of ops) {
    if (op.kind === '-') minus.push(op);
    else if (op.kind === '+') plus.push(op);
    else {
      flush();
      out.push(op);
    }
  }
  flush();
  return out;
}

/** The `@@` hunks of one file's changes, with CONTEXT lines around each. */
function hunks(a: string[], b: string[]): string {
  const ops = edits(a, b);
  let out = '';
  let k = 0;
  let lineA = 1;
  let lineB = 1;
  const counts = ops.map((op) => {
    const at = { a: lineA, b: lineB };
    if (op.kind !== '+') lineA++;
    if (op.kind !== '-') lineB++;
    return at;
  });
  while (k < ops.length) {
    while (k < ops.length && ops[k]!.kind === ' ') k++;
    if (k === ops.length) break;
    const from = Math.max(0, k - CONTEXT);
    let to = k;
    // Extend through changes closer than 2 × CONTEXT apart.
    for (let quiet = 0; to < ops.length && quiet <= 2 * CONTEXT; to++)
      quiet = ops[to]!.kind === ' ' ? quiet + 1 : 0;
    while (to > k && ops[to - 1]!.kind === ' ' && countTrailing(ops, to) > CONTEXT) to--;
    const slice = ops.slice(from, to);
    const startA = counts[from]!.a;
    const startB = counts[from]!.b;
    const lenA = slice.filter((op) => op.kind !== '+').length;
    const lenB = slice.filter((op) => op.kind !== '-').length;
    out += `@@ -${range(startA, lenA)} +${range(startB, lenB)} @@\n`;
    for (const op of slice) out += `${op.kind}${op.line}`;
    k = to;
  }
  return out;
}

function countTrailing(ops: Op[], to: number): number {
  let n = 0;
  while (to - 1 - n >= 0 && ops[to - 1 - n]!.kind === ' ') n++;
  return n;
}

function range(start: number, length: number): string {
  const first = length === 0 ? start - 1 : start;
  return length === 1 ? `${first}` : `${first},${length}`;
}

/**
 * The diff of a workspace task as a stored prediction holds it (JSON text of the diff), or null when the
 * stored prediction is not one. Pure.
 */
export function storedWorkspaceDiff(prediction: string | null): string | null {
  if (prediction === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(prediction);
  } catch {
    return null;
  }
  return typeof value === 'string' && (value === '' || value.startsWith('--- ')) ? value : null;
}

/** "2 files, +5 -1" of a unified diff; "no change" for an empty one. Pure. */
export function diffSummary(diff: string): string {
  if (diff === '') return 'no change';
  let files = 0;
  let added = 0;
  let removed = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ')) files++;
    else if (line.startsWith('+')) added++;
    else if (line.startsWith('-') && !line.startsWith('--- ')) removed++;
  }
  return `${files} file${files === 1 ? '' : 's'}, +${added} -${removed}`;
}
