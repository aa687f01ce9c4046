import type { RecordedResponse } from './recorder.ts';
import type { ChatRequest, Role } from './types.ts';

/**
 * The harness's say over a call in a batch round (docs/batch.md): whether the gateway answers it from the
 * record of earlier rounds, parks it (its task waits for the next batch), or makes an ordinary call.
 */
export interface BatchRouter {
  /** Must not throw; called for every authenticated chat call before any model is called. */
  route(call: BatchCall): BatchRoute;
}

/** What the router is told of one call. */
export interface BatchCall {
  role: Role;
  variantId: number | null;
  attempt: number;
  /** The task the caller named (its headers); absent: not a task's call, never batched. */
  task?: { domain: string; id: string };
  model: string;
  /** The request's recording key (`requestKey` of the normalized request): equal requests, equal keys. */
  key: string;
  /** The request as the provider would get it (`model` resolved). */
  request: ChatRequest;
}

export type BatchRoute =
  | { kind: 'ordinary' }
  /** The answer the batch gave to this same request in an earlier round (already in the ledger). */
  | { kind: 'answered'; response: RecordedResponse }
  /** Asked in the evaluation's next batch: the call ends now, and its task is run again once it is answered. */
  | { kind: 'parked' };

/** What a parked call's caller reads: a TaskAgent ends its task on it, and the harness discards that run. */
export const PARKED_MESSAGE =
  "this call waits for the evaluation's next batch (--batch): the task is run again once it is answered";
