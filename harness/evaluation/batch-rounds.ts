import type { Archive, BatchRequestRow, BatchRow, LlmCallInput } from '../../archive/index.ts';
import {
  adaptRequest,
  type BatchApi,
  type BatchOutcome,
  batchCostUsd,
  batchDiscountOf,
  type CallEstimate,
  type ChatRequest,
  costUsd,
  type ModelProvider,
  type ModelRecord,
  maxCallCost,
  type Reservation,
} from '../../llm/index.ts';
import type { BatchTaskRouter } from './batch-router.ts';

/** The task model's batch endpoint, its ordinary provider (for what a batch does not answer) and its record. */
export interface BatchEndpoint {
  api: BatchApi;
  provider: ModelProvider;
  record: ModelRecord;
}

/** What the evaluation's rounds need of the run (see `createBatchRounds`). */
export interface BatchRoundsOptions {
  archive: Archive;
  router: BatchTaskRouter;
  /** The task model's batch endpoint, its ordinary provider (with retries, for what a batch did not answer) and record. */
  api: BatchApi;
  provider: ModelProvider;
  model: ModelRecord;
  /** Holds a pending batch's most cost in the run's budget (`Gateway.reserveBatch`). */
  reserve(estimate: CallEstimate, model: string, signal?: AbortSignal): Promise<Reservation>;
  /** The run's ledger (the gateway's `onCall`). */
  ledger(row: LlmCallInput): void;
  progress(line: string): void;
  runId: string;
  /** Longest wait between two polls, in seconds (`--batch-poll`). */
  pollCapSec: number;
  /** Waits `ms`; false when `signal` aborted first. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<boolean>;
}

/** The rounds of a `--batch` evaluation, as the evaluation uses them (evaluate.ts). */
export interface BatchRounds {
  router: BatchTaskRouter;
  /**
   * Asks every request the variant's tasks are waiting for in batches (one per round, more only past the
   * endpoint's limits), collecting first any batch already submitted (a resumed run), and keeps each answer
   * for the tasks' next run. Requests a batch did not answer are asked as ordinary calls. Returns when every
   * such request has an answer or failed, or `signal` aborted.
   */
  settle(variantId: number, round: number, signal?: AbortSignal): Promise<void>;
}

/** First wait between polls, in ms; each next one is twice as long, up to the cap. */
const FIRST_POLL_MS = 2_000;

export function createBatchRounds(options: BatchRoundsOptions): BatchRounds {
  return {
    router: options.router,
    async settle(variantId, round, signal) {
      const { archive } = options;
      const open = archive.openBatches(variantId);
      for (const batch of open) {
        if (batch.providerBatchId === null) archive.abandonBatch(batch.id, 'written but never submitted');
        else
          options.progress(
            `variant ${variantId}: batch ${batch.providerBatchId} was pending when the run stopped; collecting it`,
          );
      }
      const pending = open.filter((b) => b.providerBatchId !== null);
      for (const members of chunks(archive.waitingBatchRequests(variantId), options.api.limits)) {
        const submitted = await submit(options, variantId, members, signal);
        if (submitted !== null) pending.push(submitted);
      }
      await Promise.all(pending.map((batch) => follow(options, batch, round, signal)));
    },
  };
}

/** The waiting requests cut into batches within the endpoint's limits (requests and bytes), in order. */
function chunks(rows: readonly BatchRequestRow[], limits: BatchApi['limits']): BatchRequestRow[][] {
  const out: BatchRequestRow[][] = [];
  let current: BatchRequestRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = row.request.length + 200;
    if (current.length > 0 && (current.length >= limits.maxRequests || bytes + size > limits.maxBytes)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** Written (with each request's custom id) before it is submitted; null when the endpoint refused it. */
async function submit(
  options: BatchRoundsOptions,
  variantId: number,
  members: readonly BatchRequestRow[],
  signal?: AbortSignal,
): Promise<BatchRow | null> {
  const { archive, api } = options;
  const withIds = members.map((r) => ({ id: r.id, customId: customIdOf(r) }));
  const id = archive.createBatch(variantId, options.model.id, withIds);
  const requests = members.map((r, i) => ({
    customId: withIds[i]!.customId,
    request: JSON.parse(r.request) as ChatRequest,
  }));
  const sent = await api.submit(requests, signal);
  if (!sent.ok) {
    archive.abandonBatch(id, sent.error.message);
    options.progress(
      `variant ${variantId}: the batch endpoint refused ${members.length} requests (${sent.error.message}); ` +
        'they are asked as ordinary calls',
    );
    const hold = await options.reserve(
      { usd: 0, inputUsd: 0, inputTokens: 0, outputTokens: 0 },
      options.model.id,
      signal,
    );
    const cost = await ordinary(options, members, signal);
    if (hold.status === 'held') hold.settle(cost);
    return null;
  }
  archive.markBatchSubmitted(id, sent.value.batchId);
  return archive.openBatches(variantId).find((b) => b.id === id) ?? null;
}

/**
 * The custom id of a request: its attempt and record row (unique in the run; the sim reads the attempt back
 * from it, `batchCallContext`). Fits every provider's pattern (`^[a-zA-Z0-9_-]{1,64}$`).
 */
export function customIdOf(row: Pick<BatchRequestRow, 'attempt' | 'id'>): string {
  return `a${row.attempt}-r${row.id}`;
}

/** The attempt a custom id was made for (see customIdOf); 0 when it is not one of ours. */
export function attemptOfCustomId(customId: string): number {
  const match = /^a(\d+)-r\d+$/.exec(customId);
  return match ? Number(match[1]) : 0;
}

/** Polls one batch until it ends (backing off from 2 s to `--batch-poll`, which caps the first wait too), then collects it. */
async function follow(
  options: BatchRoundsOptions,
  batch: BatchRow,
  round: number,
  signal?: AbortSignal,
): Promise<void> {
  const { archive, api } = options;
  const providerId = batch.providerBatchId!;
  const members = archive.requestsOfBatch(batch.id);
  const hold = await options.reserve(holdOf(options.model, members), options.model.id, signal);
  const started = Date.parse(batch.submittedAt ?? batch.createdAt);
  const event = (state: string, done: number, failed: number, extra: BatchEventExtra = {}): void =>
    archive.recordEvent(batch.variantId, 'batch', {
      batch: batch.id,
      model: batch.model,
      round,
      state,
      done,
      failed,
      total: members.length,
      waitedSec: Math.round((Date.now() - started) / 1000),
      ...extra,
    });
  event('submitted', 0, 0);
  const wait = options.sleep ?? sleep;
  // `--batch-poll` caps every wait, the first too.
  let delay = Math.min(FIRST_POLL_MS, options.pollCapSec * 1000);
  let cost = 0;
  try {
    for (;;) {
      if (!(await wait(delay, signal))) return;
      delay = Math.min(delay * 2, options.pollCapSec * 1000);
      const polled = await api.poll(providerId, signal);
      if (!polled.ok) {
        options.progress(
          `variant ${batch.variantId}: polling batch ${providerId} failed (${polled.error.message}); trying again`,
        );
        continue;
      }
      const s = polled.value;
      archive.updateBatchProgress(batch.id, s);
      event(s.providerState, s.done, s.failed);
      if (s.state === 'ended') break;
    }
    const collected = await api.collect(providerId, signal);
    const outcomes = collected.ok ? collected.value : [];
    const kept = keep(options, batch, members, outcomes);
    cost = kept.costUsd;
    const spend = { costUsd: kept.costUsd, savedUsd: Math.max(0, kept.ordinaryUsd - kept.costUsd) };
    const failed = members.filter((m) => !outcomes.some((o) => o.ok && o.customId === m.customId));
    const state = archive.openBatches(batch.variantId).find((b) => b.id === batch.id);
    archive.endBatch(batch.id, {
      providerState: state?.providerState ?? 'ended',
      done: members.length - failed.length,
      failed: failed.length,
    });
    if (failed.length > 0) {
      const note = `${failed.length} of ${members.length} requests were not answered by batch ${providerId} (${reasons(outcomes, failed, collected.ok ? null : collected.error.message)}): they are asked as ordinary calls`;
      options.progress(`variant ${batch.variantId}: ${note}`);
      event('ended', members.length - failed.length, failed.length, { note, ...spend });
      cost += await ordinary(options, failed, signal);
    } else event('ended', members.length, 0, spend);
  } finally {
    if (hold.status === 'held') hold.settle(cost);
  }
}

/** The most a batch's requests may cost at the batch price: held in the budget while it is pending. */
function holdOf(model: ModelRecord, members: readonly BatchRequestRow[]): CallEstimate {
  const keeps = 1 - (batchDiscountOf(model) ?? 0);
  let usd = 0;
  let inputUsd = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  for (const m of members) {
    const request = JSON.parse(m.request) as ChatRequest;
    const e = maxCallCost(model, adaptRequest(model, request).maxTokens, m.request.length);
    usd += e.usd * keeps;
    inputUsd += e.inputUsd * keeps;
    inputTokens += e.inputTokens;
    outputTokens += e.outputTokens;
  }
  return { usd, inputUsd, inputTokens, outputTokens };
}

/** What a `batch` event adds to its counts: a note for the user, and at collection its spend and savings. */
type BatchEventExtra = { note?: string; costUsd?: number; savedUsd?: number };

/**
 * Each answer kept and charged at the batch price, in one transaction; returns what they cost, and what they
 * would have cost as ordinary calls.
 */
function keep(
  options: BatchRoundsOptions,
  batch: BatchRow,
  members: readonly BatchRequestRow[],
  outcomes: readonly BatchOutcome[],
): { costUsd: number; ordinaryUsd: number } {
  const { archive, model } = options;
  const byId = new Map(members.map((m) => [m.customId, m]));
  let total = 0;
  let ordinaryTotal = 0;
  archive.transaction(() => {
    for (const outcome of outcomes) {
      const member = byId.get(outcome.customId);
      if (member === undefined || !outcome.ok || member.status === 'answered') continue;
      const r = outcome.response;
      const cost = batchCostUsd(model, r.usage) ?? costUsd(model, r.usage);
      total += cost;
      ordinaryTotal += costUsd(model, r.usage);
      const answer = {
        message: r.message,
        stopReason: r.stopReason,
        usage: r.usage,
        costUsd: cost,
        ...(r.reportedModel === undefined ? {} : { reportedModel: r.reportedModel }),
      };
      archive.answerBatchRequest(member.id, JSON.stringify(answer));
      options.ledger({
        ts: new Date().toISOString(),
        variantId: batch.variantId,
        role: 'task',
        model: member.model,
        usage: r.usage,
        costUsd: cost,
        latencyMs: Date.now() - Date.parse(batch.submittedAt ?? batch.createdAt),
        status: 'ok',
        attempts: 1,
        batch: true,
        task: { domain: member.domain, id: member.taskId },
        ...(r.reportedModel === undefined ? {} : { reportedModel: r.reportedModel }),
      });
    }
  });
  return { costUsd: total, ordinaryUsd: ordinaryTotal };
}

/** "3 errored, 2 expired", or the collect failure. */
function reasons(
  outcomes: readonly BatchOutcome[],
  failed: readonly BatchRequestRow[],
  collectError: string | null,
): string {
  if (collectError !== null) return `its results could not be read: ${collectError}`;
  const counts = new Map<string, number>();
  for (const m of failed) {
    const o = outcomes.find((x) => x.customId === m.customId);
    const why = o === undefined ? 'missing from its results' : o.ok ? 'answered' : o.reason;
    counts.set(why, (counts.get(why) ?? 0) + 1);
  }
  return [...counts].map(([why, n]) => `${n} ${why}`).join(', ');
}

/** Requests no batch answered, asked as ordinary calls (with the provider's retries) and kept like batch answers. */
async function ordinary(
  options: BatchRoundsOptions,
  rows: readonly BatchRequestRow[],
  signal?: AbortSignal,
): Promise<number> {
  const { archive, model } = options;
  let next = 0;
  let total = 0;
  const worker = async (): Promise<void> => {
    while (next < rows.length && signal?.aborted !== true) {
      const row = rows[next++]!;
      const started = Date.now();
      const ctx = {
        runId: options.runId,
        variantId: row.variantId,
        role: 'task' as const,
        attempt: row.attempt,
      };
      const result = await options.provider.complete(JSON.parse(row.request) as ChatRequest, ctx, signal);
      const base = {
        ts: new Date().toISOString(),
        variantId: row.variantId,
        role: 'task',
        model: row.model,
        latencyMs: Date.now() - started,
        task: { domain: row.domain, id: row.taskId },
        attempts: result.trace?.attempts ?? 1,
      };
      if (!result.ok) {
        archive.transaction(() => {
          archive.failBatchRequest(row.id, result.error.message);
          options.ledger({
            ...base,
            usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
            costUsd: 0,
            status: result.error.type,
            error: result.error.message,
          });
        });
        continue;
      }
      const r = result.response;
      const cost = r.costUsd ?? costUsd(model, r.usage);
      total += cost;
      const answer = {
        message: r.message,
        stopReason: r.stopReason,
        usage: r.usage,
        costUsd: cost,
        ...(r.reportedModel === undefined ? {} : { reportedModel: r.reportedModel }),
      };
      archive.transaction(() => {
        archive.answerBatchRequest(row.id, JSON.stringify(answer));
        options.ledger({
          ...base,
          usage: r.usage,
          costUsd: cost,
          status: 'ok',
          ...(r.reportedModel === undefined ? {} : { reportedModel: r.reportedModel }),
        });
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, rows.length) }, worker));
  return total;
}

function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
