import { meanPCorrect, phrasesIn } from './landscape.ts';
import {
  hasFormatInstruction,
  hasPhrase,
  META_PHRASES,
  type MetaPhrase,
  metaPhrasesIn,
  metaQuality,
  normalizeText,
  STALL,
  STALL_PHRASE,
  TASK_PHRASES,
} from './phrases.ts';
import { hash01, type KeyPart } from './rng.ts';

/**
 * What the sim MetaAgent decides for one variant, as a pure function of its proposal quality q, the
 * task prompt it viewed, the failures it read and the seed. Every random choice has its own stream
 * keyed by (seed, variant, purpose), and each compares one uniform draw against a quantity that moves
 * smoothly with q, so a better MetaAgent shifts outcomes a little at every q, not only in a narrow gap.
 */

/** P(breaking edit) = scale · (1 − q)². */
export const BREAK_RATE_SCALE = 0.35;
/**
 * P(damaging edit) = base + scale · (1 − q)²: the MetaAgent "simplifies" the task prompt and drops its
 * answer-format line. It passes the gate, so only selection keeps it from spreading; the sim MetaAgent
 * restores the line only when it read that the parent's replies were unparseable (more than
 * `repairAbove` of train tasks), and then with P = repairScale · q².
 */
export const DAMAGE = { base: 0.03, scale: 0.15, repairAbove: 0.3, repairScale: 1 } as const;
export const FORMAT_LINE =
  'Reply with your final answer as <json>{"response": <answer>}</json>, where <answer> has the form the task asks for.';
/** Targeting sharpness β = scale · q² when the failures were read, times `blind` when they were not. */
export const TARGETING = { scale: 120, blind: 0.3 } as const;
/** The MetaAgent's misjudgement of an edit's gain: σ = base + scale · (1 − q), in mean P(correct). */
export const ESTIMATE_NOISE = { base: 0.02, scale: 0.4 } as const;
/** A second coherent edit when draw < 2(q − second), a third when draw < 2(q − third). */
export const MULTI_EDIT = { second: 0.3, third: 0.5 } as const;
/** Chance of one edit to the MetaAgent's own prompt per session; its choice sharpens by `sharpness` · q. */
export const META_EDIT = { rate: 0.9, sharpness: 30 } as const;

export type TaskEdit = { kind: 'add'; phrase: string } | { kind: 'remove'; phrase: string; line: string };
export type MetaEdit =
  | { kind: 'add'; phrase: MetaPhrase }
  | { kind: 'remove'; phrase: MetaPhrase; line: string }
  | { kind: 'stall' };

export interface MetaPlan {
  quality: number;
  /** `break`: an edit the gate must reject; `damage`: drop the answer-format line; `repair`: restore it. */
  action: 'edit' | 'break' | 'damage' | 'repair' | 'stall';
  /** The answer-format line to drop (damage). */
  formatLine?: string;
  /** Edits to the task prompt, made together (empty when breaking or nothing is left to change). */
  task: TaskEdit[];
  /** Estimated change of mean P(correct) from the task edits (the landscape's, as the meta sees it). */
  gain: number;
  meta: MetaEdit | undefined;
}

export interface PlanInput {
  /** Proposal quality of the MetaAgent's prompt as the session starts. */
  quality: number;
  /** Lines of agents/task/prompt.md as viewed. */
  taskLines: readonly string[];
  /** Lines of the MetaAgent's own prompt (its system text). */
  metaLines: readonly string[];
  domains: readonly string[];
  /** Failure fraction per domain of the parent, from its evals folder; undefined if not read. */
  failures: ReadonlyMap<string, number> | undefined;
  /** Fraction of the parent's train tasks with unparseable replies, from the evals folder. */
  unparseable: number | undefined;
  seed: KeyPart;
  variantId: number;
}

export function breakRate(q: number): number {
  return BREAK_RATE_SCALE * (1 - q) ** 2;
}

export function editCount(q: number, draws: readonly [number, number]): number {
  return (
    1 + (draws[0] < 2 * (q - MULTI_EDIT.second) ? 1 : 0) + (draws[1] < 2 * (q - MULTI_EDIT.third) ? 1 : 0)
  );
}

/**
 * The session's own edit to the MetaAgent's prompt comes first and applies at once (the MetaAgent
 * works by its revised instructions for the rest of the session), so a child's score already reflects
 * it and selection can favour it; descendants get it only if the harness carries agents/meta/ over.
 */
export function planMeta(input: PlanInput): MetaPlan {
  const { seed, variantId } = input;
  const draw = (purpose: string, i = 0) => hash01(seed, variantId, 'meta', purpose, i);
  const stalled = hasPhrase(normalizeText(input.metaLines.join('\n')), STALL_PHRASE);
  const meta =
    !stalled && draw('stall-edit') < STALL.rate
      ? ({ kind: 'stall' } as const)
      : chooseMetaEdit(input.metaLines, input.quality, draw('meta-edit'), draw('meta-pick'));
  const q = qualityAfter(input.metaLines, meta);
  const none = { quality: q, task: [], gain: 0, meta };
  if (stalled && draw('stall') < STALL.stall) return { ...none, action: 'stall', meta: undefined };
  if (draw('break') < breakRate(q)) return { ...none, action: 'break' };
  const formatLines = input.taskLines.filter((l) => hasFormatInstruction(l));
  if (formatLines.length === 0) {
    const noticed = (input.unparseable ?? 0) > DAMAGE.repairAbove;
    if (noticed && draw('repair') < DAMAGE.repairScale * q * q) return { ...none, action: 'repair' };
  } else if (formatLines.length === 1 && draw('damage') < DAMAGE.base + DAMAGE.scale * (1 - q) ** 2) {
    return { ...none, action: 'damage', formatLine: formatLines[0]! };
  }
  const count = editCount(q, [draw('count', 1), draw('count', 2)]);
  const present = phrasesIn(input.taskLines.join('\n'));
  const weights = input.domains.map((d) => Math.max(0.05, input.failures?.get(d) ?? 1));
  // The MetaAgent sees train results only, so it judges an edit by its train-split effect.
  const score = (set: ReadonlySet<string>) => meanPCorrect(set, input.domains, weights, 'train');
  const before = score(present);
  const singles = singleEdits(input.taskLines, present);
  const sigma = ESTIMATE_NOISE.base + ESTIMATE_NOISE.scale * (1 - q);
  const options = combinations(singles, Math.min(count, singles.length)).map((edits) => {
    const gain = score(applyEdits(present, edits)) - before;
    const key = edits.map((e) => `${e.kind}:${e.phrase}`).join('+');
    return {
      edits,
      gain,
      estimate: gain + sigma * normalDraw(hash01(seed, variantId, 'meta', 'estimate', key)),
    };
  });
  const beta = TARGETING.scale * q * q * (input.failures === undefined ? TARGETING.blind : 1);
  const chosen = softmaxPick(options, (o) => beta * o.estimate, draw('edit'));
  return { quality: q, action: 'edit', task: chosen?.edits ?? [], gain: chosen?.gain ?? 0, meta };
}

/** A standard normal value from a uniform draw (inverse CDF by a logistic approximation, plenty here). */
function normalDraw(u: number): number {
  const c = Math.min(1 - 1e-9, Math.max(1e-9, u));
  return Math.log(c / (1 - c)) / 1.702;
}

function singleEdits(lines: readonly string[], present: ReadonlySet<string>): TaskEdit[] {
  const edits: TaskEdit[] = [];
  for (const p of TASK_PHRASES) {
    if (!present.has(p.phrase)) {
      edits.push({ kind: 'add', phrase: p.phrase });
      continue;
    }
    const line = lines.find((l) => hasPhrase(normalizeText(l), p.phrase));
    if (line !== undefined && lines.filter((l) => l === line).length === 1) {
      edits.push({ kind: 'remove', phrase: p.phrase, line });
    }
  }
  return edits;
}

function applyEdits(present: ReadonlySet<string>, edits: readonly TaskEdit[]): Set<string> {
  const next = new Set(present);
  for (const e of edits) {
    if (e.kind === 'add') next.add(e.phrase);
    else next.delete(e.phrase);
  }
  return next;
}

/** Every k-subset of `items`, in order (k ≤ 3 here, so at most a few hundred). */
export function combinations<T>(items: readonly T[], k: number): T[][] {
  if (k <= 0) return [[]];
  const out: T[][] = [];
  items.forEach((item, i) => {
    for (const rest of combinations(items.slice(i + 1), k - 1)) out.push([item, ...rest]);
  });
  return out;
}

/** The option at draw `u` of the distribution ∝ exp(logit): inverse CDF, so u moves the pick smoothly. */
export function softmaxPick<T>(options: readonly T[], logit: (o: T) => number, u: number): T | undefined {
  if (options.length === 0) return undefined;
  const logits = options.map(logit);
  const top = Math.max(...logits);
  const weights = logits.map((l) => Math.exp(l - top));
  const total = weights.reduce((s, w) => s + w, 0);
  let acc = 0;
  for (const [i, w] of weights.entries()) {
    acc += w / total;
    if (u < acc) return options[i];
  }
  return options.at(-1);
}

function qualityAfter(metaLines: readonly string[], edit: MetaEdit | undefined): number {
  if (edit === undefined || edit.kind === 'stall') return metaQuality(metaLines.join('\n'));
  if (edit.kind === 'add') return metaQuality([...metaLines, edit.phrase.phrase].join('\n'));
  return metaQuality(metaLines.filter((l) => l !== edit.line).join('\n'));
}

function chooseMetaEdit(
  metaLines: readonly string[],
  q: number,
  uRate: number,
  uPick: number,
): MetaEdit | undefined {
  if (uRate >= META_EDIT.rate) return undefined;
  const present = new Set(metaPhrasesIn(metaLines.join('\n')).map((p) => p.phrase));
  const options: { edit: MetaEdit; delta: number }[] = [];
  for (const p of META_PHRASES) {
    if (!present.has(p.phrase)) {
      options.push({ edit: { kind: 'add', phrase: p }, delta: p.quality });
      continue;
    }
    const line = metaLines.find((l) => hasPhrase(normalizeText(l), p.phrase));
    if (p.quality < 0 && line !== undefined && metaLines.filter((l) => l === line).length === 1) {
      options.push({ edit: { kind: 'remove', phrase: p, line }, delta: -p.quality });
    }
  }
  return softmaxPick(options, (o) => META_EDIT.sharpness * q * o.delta, uPick)?.edit;
}
