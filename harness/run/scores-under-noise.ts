import { spreadOf } from '../../archive/index.ts';
import { type AttemptsOutcome, evaluateAttempts } from '../evaluation/index.ts';
import { openSession, type RunContext } from '../generation/index.ts';
import { CONFIRM_ATTEMPTS, type RunConfig } from './run-config.ts';
import { bestVariant } from './run-summary.ts';

/**
 * `--noise-floor k`: variant 0's validation score on attempts 0..k−1 (those its evaluation made are reused),
 * stored with their spread once; a resumed run that has it does nothing.
 */
export async function measureNoiseFloor(ctx: RunContext<RunConfig>): Promise<void> {
  const k = ctx.config.noiseFloor;
  if (k === 0 || ctx.archive.getNoiseFloor() !== null || ctx.signal.aborted) return;
  const zero = ctx.archive.getVariant(0);
  if (zero?.step !== 'done' || zero.selectionScore === null) return;
  ctx.progress(`noise floor: variant 0, ${k} attempts at its validation tasks`);
  const outcome = await attempts(ctx, 0, range(0, k));
  if (outcome.kind !== 'scored') {
    if (outcome.kind === 'unfinished') ctx.progress(`noise floor: not measured: ${outcome.reason}`);
    return;
  }
  ctx.archive.putNoiseFloor(outcome.scores);
  ctx.progress(
    `noise floor: variant 0 scored ${outcome.scores.map((s) => s.toFixed(3)).join(', ')}: spread ±${spreadOf(outcome.scores).toFixed(3)}`,
  );
}

/**
 * `--confirm-top K`: the K best variants by raw validation score, each not yet confirmed, get CONFIRM_ATTEMPTS
 * fresh attempts at the validation split (attempt numbers after every one their evaluation and the noise floor
 * used), and their mean is stored as the confirmed score beside the raw one.
 */
export async function confirmTop(ctx: RunContext<RunConfig>): Promise<void> {
  const top = ctx.config.confirmTop;
  if (top === 0) return;
  const done = new Set(ctx.archive.listConfirmedScores().map((c) => c.variantId));
  const ranked = ctx.archive
    .listVariants()
    .filter((v) => v.step === 'done' && v.selectionScore !== null)
    .sort((a, b) => (b.selectionScore ?? 0) - (a.selectionScore ?? 0) || a.id - b.id)
    .slice(0, top);
  for (const variant of ranked) {
    if (done.has(variant.id) || ctx.signal.aborted || ctx.gateway.budgetReached()) continue;
    const first = Math.max(ctx.config.evalRepeats, variant.id === 0 ? ctx.config.noiseFloor : 0);
    ctx.progress(
      `confirm: variant ${variant.id}, ${CONFIRM_ATTEMPTS} fresh attempts at its validation tasks`,
    );
    const outcome = await attempts(ctx, variant.id, range(first, CONFIRM_ATTEMPTS));
    if (outcome.kind !== 'scored') {
      if (outcome.kind === 'unfinished') ctx.progress(`confirm: variant ${variant.id}: ${outcome.reason}`);
      continue;
    }
    const confirmed = outcome.scores.reduce((a, b) => a + b, 0) / outcome.scores.length;
    const raw = variant.selectionScore ?? 0;
    ctx.archive.putConfirmedScore({
      variantId: variant.id,
      rawScore: raw,
      confirmedScore: confirmed,
      firstAttempt: first,
      attempts: CONFIRM_ATTEMPTS,
      scores: outcome.scores,
    });
    ctx.progress(`confirm: variant ${variant.id}: raw ${raw.toFixed(3)}, confirmed ${confirmed.toFixed(3)}`);
  }
  const best = bestVariant(ctx.archive);
  if (best !== null)
    ctx.progress(
      `best: variant ${best.id} (${best.confirmed ? 'confirmed' : 'raw'} ${best.score.toFixed(3)})`,
    );
}

const range = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => from + i);

/** Makes `list` attempts of variant `id` at its validation tasks, in a session of its own. */
async function attempts(ctx: RunContext<RunConfig>, id: number, list: number[]): Promise<AttemptsOutcome> {
  const variant = ctx.archive.getVariant(id);
  if (variant?.commitSha == null || variant.taskCodeHash == null)
    return { kind: 'unfinished', reason: `variant ${id} has no commit` };
  const session = openSession(ctx, id, `attempts-${id}`);
  try {
    await session.checkout(variant.commitSha);
    return await evaluateAttempts(
      {
        archive: ctx.archive,
        cache: ctx.cache,
        pool: await session.pool(),
        attemptPool: (attempt: number) => session.pool(attempt),
        variantId: id,
        codeHash: variant.taskCodeHash,
        taskModel: ctx.config.taskModel,
        seed: ctx.config.seed,
        cacheable: ctx.cacheable,
        grading: ctx.grading,
        settings: ctx.taskSettings,
        limit: ctx.taskLimit,
        signal: ctx.signal,
        onTask: (done: number, total: number) =>
          ctx.status(`variant ${id}: attempts, ${done}/${total} tasks`),
      },
      ctx.domains,
      list,
    );
  } finally {
    ctx.status('');
    await session.close();
  }
}
