import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BatchApi, BatchOutcome, BatchRequest, BatchStatus } from '../batch-api.ts';
import type { ModelProvider } from '../provider.ts';
import type { CallContext } from '../types.ts';

/**
 * How the simulated batch endpoint behaves, for tests and benchmarks: when a batch ends, and which of its
 * requests it leaves unanswered.
 */
export interface SimBatchKnobs {
  /** Polls a batch answers `pending` before it ends (default 1). */
  polls?: number;
  /** Also pending until this many ms after submission (default 0). */
  endAfterMs?: number;
  /** The batch ends `expired` with none of its requests answered. */
  expire?: boolean;
  /** Share of requests (0 to 1) the batch ends with as `errored`, chosen from each request's custom id. */
  errorRate?: number;
}

/** The limits of the simulated endpoint: OpenAI's (50,000 requests, 200 MB). */
const LIMITS = { maxRequests: 50_000, maxBytes: 200 * 1024 * 1024 };

interface SimBatchState {
  requests: readonly BatchRequest[];
  submittedAt: number;
  polls: number;
  outcomes?: BatchOutcome[];
}

/**
 * The sim's batch endpoint: each request is answered exactly as the sim's `complete` answers it (the same
 * seed, the same reply), after the configured polls. It serves the sim alone, so it can stand in for no real
 * model. `contextOf` says which call a custom id is (the role and attempt the sim's reply depends on).
 * With `dir`, its batches are kept there as a provider keeps them: a run killed while one is pending finds
 * it again when resumed. Never throws.
 */
export function createSimBatch(
  sim: ModelProvider,
  contextOf: (customId: string) => CallContext,
  knobs: SimBatchKnobs = {},
  dir?: string,
): BatchApi {
  const batches = persisted(dir);
  let next = 1;
  const missing = (batchId: string) => ({
    ok: false as const,
    error: { type: 'bad_request' as const, message: `no simulated batch ${batchId}`, retryable: false },
  });
  return {
    limits: LIMITS,
    async submit(requests) {
      const batchId = `simbatch_${next++}_${Date.now().toString(36)}`;
      batches.set(batchId, { requests: [...requests], submittedAt: Date.now(), polls: 0 });
      return { ok: true, value: { batchId } };
    },
    async poll(batchId) {
      const batch = batches.get(batchId);
      if (batch === undefined) return missing(batchId);
      batch.polls++;
      const ended =
        batch.polls > (knobs.polls ?? 1) && Date.now() - batch.submittedAt >= (knobs.endAfterMs ?? 0);
      if (ended && batch.outcomes === undefined)
        batch.outcomes = await answerAll(sim, contextOf, batch, knobs);
      return { ok: true, value: status(batch, ended, knobs) };
    },
    async collect(batchId) {
      const batch = batches.get(batchId);
      if (batch === undefined) return missing(batchId);
      if (batch.outcomes === undefined) {
        return {
          ok: false,
          error: {
            type: 'bad_request',
            message: `simulated batch ${batchId} has not ended`,
            retryable: false,
          },
        };
      }
      return { ok: true, value: batch.outcomes };
    },
    async cancel(batchId) {
      const batch = batches.get(batchId);
      if (batch === undefined) return missing(batchId);
      batch.outcomes ??= batch.requests.map((r) => unanswered(r.customId, 'canceled'));
      batches.set(batchId, batch);
      return { ok: true, value: undefined };
    },
  };
}

/** The batches, in memory and, with `dir`, one JSON file each (written on every change). */
function persisted(dir: string | undefined): Pick<Map<string, SimBatchState>, 'get' | 'set'> {
  const memory = new Map<string, SimBatchState>();
  if (dir === undefined) return memory;
  const file = (id: string): string => path.join(dir, `${id.replace(/[^\w-]/g, '_')}.json`);
  return {
    get(id) {
      const known = memory.get(id);
      if (known !== undefined) return known;
      try {
        const found = JSON.parse(readFileSync(file(id), 'utf8')) as SimBatchState;
        memory.set(id, found);
        return found;
      } catch {
        return undefined;
      }
    },
    set(id, batch) {
      memory.set(id, batch);
      mkdirSync(dir, { recursive: true });
      writeFileSync(file(id), JSON.stringify(batch));
      return memory;
    },
  };
}

function status(batch: SimBatchState, ended: boolean, knobs: SimBatchKnobs): BatchStatus {
  const total = batch.requests.length;
  if (!ended) return { state: 'pending', providerState: 'in_progress', done: 0, failed: 0, total };
  const failed = batch.outcomes?.filter((o) => !o.ok).length ?? 0;
  const providerState = knobs.expire ? 'expired' : 'ended';
  return { state: 'ended', providerState, done: total - failed, failed, total };
}

async function answerAll(
  sim: ModelProvider,
  contextOf: (customId: string) => CallContext,
  batch: SimBatchState,
  knobs: SimBatchKnobs,
): Promise<BatchOutcome[]> {
  const outcomes: BatchOutcome[] = [];
  for (const { customId, request } of batch.requests) {
    if (knobs.expire) {
      outcomes.push(unanswered(customId, 'expired'));
      continue;
    }
    if (drawn(customId) < (knobs.errorRate ?? 0)) {
      outcomes.push(unanswered(customId, 'errored'));
      continue;
    }
    const result = await sim.complete(request, contextOf(customId));
    outcomes.push(
      result.ok
        ? { customId, ok: true, response: result.response }
        : { customId, ok: false, reason: 'errored', error: result.error },
    );
  }
  return outcomes;
}

function unanswered(customId: string, reason: 'errored' | 'expired' | 'canceled'): BatchOutcome {
  const message =
    reason === 'expired'
      ? 'the simulated batch expired before answering this request'
      : `the simulated batch ${reason === 'errored' ? 'failed' : 'canceled'} this request`;
  return { customId, ok: false, reason, error: { type: 'provider_error', message, retryable: true } };
}

/** A number in [0, 1) fixed by the custom id: the same requests fail on every run. */
function drawn(customId: string): number {
  return createHash('sha256').update(customId).digest().readUInt32BE(0) / 2 ** 32;
}
