import { z } from 'zod';
import { type Acceptance, type AcceptanceView, acceptanceView } from './acceptance.ts';
import type { EvaluationRow } from './evaluations.ts';
import type { CallSpend, CallTotals, LlmCallRow } from './model-calls.ts';
import type { RunRow } from './runs.ts';
import type { StoredVariantRow } from './variants.ts';

export type { GenerationSpend, SpendPoint } from './model-calls.ts';

/**
 * How far a run got, as a reader shows it. `interrupted`: it was running when its process died (SIGKILL,
 * a reboot) and it has not been resumed since; `generate-loop --resume` continues it.
 */
export type RunState = 'running' | 'interrupted' | 'done' | 'stopped' | 'failed';

/** How a variant ended, as a reader shows it: the harness's `step`/`status` pair folded into one word. */
export type VariantOutcome = 'in_progress' | 'evaluated' | 'staged_only' | 'rejected' | 'failed';

/** One split's score of a domain: the full evaluation when there is one, else the staged sample. */
export interface SplitScore {
  score: number;
  stage: 'staged' | 'full';
  nTasks: number;
  nTotal: number;
  correct: number;
  wrong: number;
  parseFailures: number;
  errors: number;
}

/** domain → split → score. Domain names are opaque strings (`arithmetic`, `dataset:qa.csv`, ...). */
export type Scores = Record<string, Record<string, SplitScore>>;

export interface VariantView {
  id: number;
  /** The generation that made it; variant ids are generation numbers. */
  generation: number;
  parent: number | null;
  commit: string | null;
  outcome: VariantOutcome;
  step: string;
  status: string;
  validParent: boolean;
  failureReason: string | null;
  /** Why it failed, as recorded (see FAILURE_CAUSES); null for a rejection at the gate or no failure. */
  failureCause: string | null;
  selectionReason: string | null;
  /** The stored score parent selection ranks by (null until evaluated). */
  score: number | null;
  scores: Scores;
  changedFiles: string[];
  costUsd: number;
  llmCalls: number;
  /** Input and output tokens of its model calls. */
  inputTokens: number;
  outputTokens: number;
  createdAt: string;
  finishedAt: string | null;
  /**
   * How it was decided against its parent under `--accept sequential` (archive/acceptance.ts); null when it was
   * evaluated in full. Under `worse` its scores are estimates from the tasks used.
   */
  acceptance: AcceptanceView | null;
}

export interface RunView {
  id: string;
  createdAt: string;
  finishedAt: string | null;
  state: RunState;
  model: string;
  metaModel: string;
  taskModel: string;
  simulated: boolean;
  domains: string[];
  seed: number;
  harnessVersion: string;
  config: unknown;
  /** Generations asked for, when the stored config says. */
  generationsPlanned: number | null;
  /** Variants in the archive beside variant 0. */
  generations: number;
  /**
   * The run's reported best: its highest confirmed score when `--confirm-top` confirmed some (`confirmed`, with
   * the raw score it was ranked by), else its highest raw score.
   */
  best: { id: number; score: number; rawScore?: number; confirmed?: boolean } | null;
  costUsd: number;
  llmCalls: number;
}

export type LlmCallView = LlmCallRow;

/** The state of a run from its stored status and whether a live process holds its folder (run.lock). Pure. */
export function runState(status: string, held = true): RunState {
  if (status === 'done' || status === 'stopped' || status === 'failed') return status;
  return held ? 'running' : 'interrupted';
}

export function variantOutcome(v: { step: string; status: string }): VariantOutcome {
  if (v.step === 'failed') return v.status === 'rejected' ? 'rejected' : 'failed';
  if (v.step !== 'done') return 'in_progress';
  return v.status === 'staged_only' ? 'staged_only' : 'evaluated';
}

/** Folds evaluation rows into domain → split → score, preferring the full stage over the staged one. Pure. */
export function foldScores(rows: readonly EvaluationRow[]): Scores {
  const scores: Scores = {};
  for (const r of rows) {
    const byDomain = scores[r.domain] ?? {};
    scores[r.domain] = byDomain;
    const known = byDomain[r.split];
    if (known !== undefined && known.stage === 'full' && r.stage === 'staged') continue;
    const { score, stage, nTasks, nTotal, correct, wrong, parseFailures, errors } = r;
    byDomain[r.split] = { score, stage, nTasks, nTotal, correct, wrong, parseFailures, errors };
  }
  return scores;
}

/** The files a variant's edit changed, from its stored diff stat; none when it has none or it is unreadable. */
export function changedFiles(diffStat: string | null): string[] {
  if (diffStat === null) return [];
  try {
    const parsed = z.object({ files: z.array(z.string()) }).safeParse(JSON.parse(diffStat));
    return parsed.success ? parsed.data.files : [];
  } catch {
    return [];
  }
}

/** The best evaluated variant by stored selection score; ties go to the earlier variant. Pure. */
export function bestVariant(variants: readonly Pick<VariantView, 'id' | 'score'>[]): {
  id: number;
  score: number;
} | null {
  let best: { id: number; score: number } | null = null;
  for (const v of variants) {
    if (v.score !== null && (best === null || v.score > best.score)) best = { id: v.id, score: v.score };
  }
  return best;
}

/** The path from the root to `id` (root first); empty when `id` is unknown. Pure. */
export function lineageOf<T extends { id: number; parent: number | null }>(
  variants: readonly T[],
  id: number,
): T[] {
  const byId = new Map(variants.map((v) => [v.id, v]));
  const path: T[] = [];
  const seen = new Set<number>();
  let at = byId.get(id);
  while (at !== undefined && !seen.has(at.id)) {
    seen.add(at.id);
    path.unshift(at);
    at = at.parent === null ? undefined : byId.get(at.parent);
  }
  return path;
}

/** A variant as readers show it, from its row, its evaluations and its model calls. Pure. */
export function variantView(
  row: StoredVariantRow,
  evaluations: readonly EvaluationRow[],
  calls: CallSpend | undefined,
  acceptance: Acceptance | null = null,
): VariantView {
  return {
    id: row.id,
    generation: row.id,
    parent: row.parentId,
    commit: row.commitSha,
    outcome: variantOutcome(row),
    step: row.step,
    status: row.status,
    validParent: row.validParent,
    failureReason: row.failureReason,
    failureCause: row.failureCause,
    selectionReason: row.selectionReason,
    score: row.selectionScore,
    scores: foldScores(evaluations),
    changedFiles: changedFiles(row.diffStat),
    costUsd: calls?.costUsd ?? 0,
    llmCalls: calls?.calls ?? 0,
    inputTokens: calls?.inputTokens ?? 0,
    outputTokens: calls?.outputTokens ?? 0,
    createdAt: row.createdAt,
    finishedAt: row.finishedAt,
    acceptance: acceptanceView(acceptance),
  };
}

/** Every variant's view: evaluations and calls grouped by variant. Pure. */
export function variantViews(
  rows: readonly StoredVariantRow[],
  evaluations: readonly EvaluationRow[],
  calls: ReadonlyMap<number | null, CallSpend>,
  acceptance: ReadonlyMap<number, Acceptance> = new Map(),
): VariantView[] {
  const byVariant = new Map<number, EvaluationRow[]>();
  for (const e of evaluations) {
    const list = byVariant.get(e.variantId) ?? [];
    list.push(e);
    byVariant.set(e.variantId, list);
  }
  return rows.map((row) =>
    variantView(row, byVariant.get(row.id) ?? [], calls.get(row.id), acceptance.get(row.id) ?? null),
  );
}

/**
 * A run as readers show it, from its row, its variants' views, the whole run's calls, and whether a live
 * process holds its folder. Pure.
 */
export function runView(
  row: RunRow,
  variants: readonly VariantView[],
  calls: CallTotals,
  held: boolean,
): RunView {
  const planned = z.object({ generations: z.number() }).safeParse(row.config);
  return {
    id: row.id,
    createdAt: row.createdAt,
    finishedAt: row.finishedAt,
    state: runState(row.status, held),
    model: row.metaModel === row.taskModel ? row.metaModel : `${row.metaModel} / ${row.taskModel}`,
    metaModel: row.metaModel,
    taskModel: row.taskModel,
    simulated: row.simulated,
    domains: row.domains,
    seed: row.seed,
    harnessVersion: row.harnessVersion,
    config: row.config,
    generationsPlanned: planned.success ? planned.data.generations : null,
    generations: variants.filter((v) => v.id !== 0).length,
    best: bestVariant(variants),
    costUsd: calls.costUsd,
    llmCalls: calls.calls,
  };
}
