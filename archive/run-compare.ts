import type { ArchiveReader, Scores, VariantView } from './read.ts';

/*
 * Two runs compared on what a reproduction must give again: the variants, their parents, their scores and
 * every task result. Time, cost, latency and reuse are left out: they differ between two runs of the same work.
 */

/** A variant as compared: its place in the lineage, its outcome and scores, and its task results. */
export interface ComparedVariant {
  id: number;
  parent: number | null;
  outcome: string;
  score: number | null;
  scores: Scores;
  /** `domain split task #attempt` → what the task got. */
  tasks: Map<string, { outcome: string; score: number; prediction: string | null }>;
}

/** The variants of a run up to id `upTo` (all when null), with their task results, every attempt. */
export function comparedVariants(reader: ArchiveReader, upTo: number | null): ComparedVariant[] {
  return reader
    .variants()
    .filter((v) => upTo === null || v.id <= upTo)
    .map((v: VariantView) => ({
      id: v.id,
      parent: v.parent,
      outcome: v.outcome,
      score: v.score,
      scores: v.scores,
      tasks: new Map(
        reader
          .taskResults(v.id, { attempt: 'all' })
          .map((t) => [
            `${t.domain} ${t.split} ${t.taskId}${t.attempt === 0 ? '' : ` #${t.attempt}`}`,
            { outcome: t.outcome, score: t.score, prediction: t.prediction },
          ]),
      ),
    }));
}

const fmt = (n: number | null | undefined): string => (n === null || n === undefined ? 'none' : n.toFixed(3));
/** An answer in one line of a difference: at most 60 characters. */
const answer = (p: string | null): string =>
  p === null ? 'none' : p.length > 60 ? `${p.slice(0, 57).replace(/\s+/g, ' ')}...` : p.replace(/\s+/g, ' ');
const differs = (a: number | null | undefined, b: number | null | undefined): boolean =>
  (a ?? null) === null || (b ?? null) === null ? (a ?? null) !== (b ?? null) : Math.abs(a! - b!) > 1e-9;

/** The score keys of both, `domain split`, sorted. */
function scoreKeys(a: Scores, b: Scores): [string, string][] {
  const keys = new Set<string>();
  for (const s of [a, b])
    for (const [domain, splits] of Object.entries(s))
      for (const split of Object.keys(splits)) keys.add(`${domain}\u0000${split}`);
  return [...keys].sort().map((k) => k.split('\u0000') as [string, string]);
}

function variantDifferences(a: ComparedVariant, b: ComparedVariant, names: [string, string]): string[] {
  const [was, now] = names;
  const at = `variant ${a.id}`;
  const out: string[] = [];
  if (a.parent !== b.parent)
    out.push(`${at}: parent ${a.parent ?? 'none'} ${was}, ${b.parent ?? 'none'} ${now}`);
  if (a.outcome !== b.outcome) out.push(`${at}: ${a.outcome} ${was}, ${b.outcome} ${now}`);
  if (differs(a.score, b.score)) out.push(`${at}: score ${fmt(a.score)} ${was}, ${fmt(b.score)} ${now}`);
  for (const [domain, split] of scoreKeys(a.scores, b.scores)) {
    const x = a.scores[domain]?.[split]?.score;
    const y = b.scores[domain]?.[split]?.score;
    if (differs(x, y)) out.push(`${at}: ${domain} ${split} score ${fmt(x)} ${was}, ${fmt(y)} ${now}`);
  }
  for (const key of [...new Set([...a.tasks.keys(), ...b.tasks.keys()])].sort()) {
    const x = a.tasks.get(key);
    const y = b.tasks.get(key);
    if (x === undefined || y === undefined) {
      out.push(`${at}: task ${key} only ${x === undefined ? now : was}`);
      continue;
    }
    if (x.outcome !== y.outcome || differs(x.score, y.score) || x.prediction !== y.prediction)
      out.push(
        `${at}: task ${key}: ${x.outcome} (${x.score.toFixed(2)}, answer ${answer(x.prediction)}) ${was}, ` +
          `${y.outcome} (${y.score.toFixed(2)}, answer ${answer(y.prediction)}) ${now}`,
      );
  }
  return out;
}

/**
 * Every difference between two runs' variants, the variant count first, then variant by variant in id order.
 * `names` say where each run is ("in the bundle", "in the re-run"). Empty when they are the same. Pure.
 */
export function compareRuns(
  a: readonly ComparedVariant[],
  b: readonly ComparedVariant[],
  names: [string, string],
): string[] {
  const [was, now] = names;
  const out: string[] = [];
  if (a.length !== b.length) out.push(`${a.length} variants ${was}, ${b.length} ${now}`);
  const ids = [...new Set([...a, ...b].map((v) => v.id))].sort((x, y) => x - y);
  for (const id of ids) {
    const x = a.find((v) => v.id === id);
    const y = b.find((v) => v.id === id);
    if (x === undefined || y === undefined) out.push(`variant ${id}: only ${x === undefined ? now : was}`);
    else out.push(...variantDifferences(x, y, names));
  }
  return out;
}
