import type { FakeStep } from './fake-server.ts';

/**
 * The state behind the fake batch endpoints (`fake-openai-batch.ts`, `fake-anthropic-batch.ts`): the batches
 * a client created, how often each was polled, and how each request ends. The wire formats are theirs.
 *
 * Knobs (all may be changed between calls with `set`, e.g. to end a batch a test held pending):
 * - `respond(body, customId)`: answers one request as the ordinary endpoint would, the same responder a
 *   test gives for `/v1/chat/completions` or `/v1/messages` (there `customId` is undefined). A `json` step
 *   of status 200 is a succeeded request; of status >= 400, an errored one with that body; any other step
 *   (a stream, a hang) is an errored request. A batch request's body never asks for a stream.
 * - `endAfterPolls` (default 2): the poll that first sees the batch ended (1: the first poll). `Infinity`
 *   holds every batch pending until `set` lowers it.
 * - `expire: {answered: n}`: a batch ends expired; its first n requests (in submitted order) are answered,
 *   the rest expired.
 * - `errored(customId, index)`: requests that come back errored (a server error), whatever `respond` says.
 * - `failValidation`: the provider refuses the batch as malformed (OpenAI: the batch ends `failed` with
 *   line errors; Anthropic: the create call answers 400).
 * - `order` (default `reversed`): results in reverse submitted order, so clients must match by custom id;
 *   `submitted` keeps the order.
 * A cancelled batch answers none of its requests that had not ended before the cancel.
 */
export interface FakeBatchKnobs {
  respond: (body: unknown, customId?: string) => FakeStep;
  endAfterPolls?: number;
  expire?: { answered: number };
  errored?: (customId: string, index: number) => boolean;
  failValidation?: boolean;
  order?: 'reversed' | 'submitted';
}

export interface FakeBatchRequest {
  customId: string;
  /** The request body as the client sent it (OpenAI's `body`, Anthropic's `params`). */
  body: unknown;
}

/** How one request of an ended batch ended. */
export type FakeOutcome =
  | { customId: string; kind: 'succeeded'; body: unknown }
  | { customId: string; kind: 'errored'; status: number; body: unknown }
  | { customId: string; kind: 'expired' | 'canceled' };

export interface FakeBatch {
  id: string;
  requests: FakeBatchRequest[];
  /** Times a client read the batch's state (polls, and the read a collect starts with). */
  polls: number;
  cancelled: boolean;
  /** Set once the batch ends: every request's outcome, in the order the results file lists them. */
  outcomes?: FakeOutcome[];
  /** How it ended. */
  ending?: 'completed' | 'expired' | 'cancelled' | 'failed';
}

/** What a fake batch server received, for assertions such as "no second batch was submitted". */
export interface FakeBatchLog {
  /** Every batch created, in order; `batches.length` is the number submitted. */
  batches: FakeBatch[];
  /** Requests per batch, in creation order. */
  readonly requestsPerBatch: number[];
  /** Reads of a batch's state over all batches (a client's collect reads it too). */
  readonly polls: number;
  /** Cancel calls. */
  cancels: number;
  /** Reads of a batch's results (Anthropic's results, OpenAI's output and error files). */
  resultReads: number;
}

export interface FakeBatchBook {
  log: FakeBatchLog;
  knobs: FakeBatchKnobs;
  set(knobs: Partial<FakeBatchKnobs>): void;
  create(id: string, requests: FakeBatchRequest[]): FakeBatch;
  find(id: string): FakeBatch | undefined;
  /** Counts a poll and ends the batch when its time has come; returns it. */
  poll(batch: FakeBatch): FakeBatch;
  cancel(batch: FakeBatch): void;
  /** Requests answered so far, for the progress a pending batch reports. */
  progress(batch: FakeBatch): number;
}

export function createBatchBook(initial: FakeBatchKnobs): FakeBatchBook {
  const knobs: FakeBatchKnobs = { ...initial };
  const batches: FakeBatch[] = [];
  const log: FakeBatchLog = {
    batches,
    get requestsPerBatch() {
      return batches.map((b) => b.requests.length);
    },
    get polls() {
      return batches.reduce((sum, b) => sum + b.polls, 0);
    },
    cancels: 0,
    resultReads: 0,
  };
  const endAfter = () => knobs.endAfterPolls ?? 2;
  return {
    log,
    knobs,
    set: (changes) => void Object.assign(knobs, changes),
    create(id, requests) {
      const batch: FakeBatch = { id, requests, polls: 0, cancelled: false };
      batches.push(batch);
      return batch;
    },
    find: (id) => batches.find((b) => b.id === id),
    poll(batch) {
      batch.polls += 1;
      if (batch.outcomes !== undefined) return batch;
      if (batch.cancelled) settle(batch, knobs, 'cancelled');
      else if (batch.polls >= endAfter()) settle(batch, knobs, knobs.expire ? 'expired' : 'completed');
      return batch;
    },
    cancel(batch) {
      log.cancels += 1;
      if (batch.outcomes === undefined) batch.cancelled = true;
    },
    progress(batch) {
      if (batch.outcomes !== undefined)
        return batch.outcomes.filter((o) => o.kind === 'succeeded' || o.kind === 'errored').length;
      const share = Number.isFinite(endAfter()) ? batch.polls / endAfter() : 0;
      return Math.min(batch.requests.length, Math.floor(batch.requests.length * share));
    },
  };
}

function settle(
  batch: FakeBatch,
  knobs: FakeBatchKnobs,
  ending: 'completed' | 'expired' | 'cancelled',
): void {
  const answered =
    ending === 'completed' ? batch.requests.length : ending === 'expired' ? (knobs.expire?.answered ?? 0) : 0;
  const outcomes = batch.requests.map((r, index): FakeOutcome => {
    if (index >= answered)
      return { customId: r.customId, kind: ending === 'expired' ? 'expired' : 'canceled' };
    if (knobs.errored?.(r.customId, index))
      return { customId: r.customId, kind: 'errored', status: 500, body: null };
    const step = knobs.respond(r.body, r.customId);
    if (step.kind === 'json' && (step.status ?? 200) < 400)
      return { customId: r.customId, kind: 'succeeded', body: step.body };
    if (step.kind === 'json')
      return { customId: r.customId, kind: 'errored', status: step.status ?? 500, body: step.body };
    return { customId: r.customId, kind: 'errored', status: 500, body: null };
  });
  batch.outcomes = knobs.order === 'submitted' ? outcomes : outcomes.reverse();
  batch.ending = ending;
}
