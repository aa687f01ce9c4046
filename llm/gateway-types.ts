import type { ModelProvider } from './provider.ts';
import type { Normalizer, RecordWriter, ReplayBook } from './recorder.ts';
import type { ModelRecord } from './registry.ts';
import type { LedgerRow, Role } from './types.ts';

/** The gateway's options, its ledger rows and what a token grants. */
export interface GatewayOptions {
  /** Where to listen; a path too long for a unix socket is replaced by a short one in os.tmpdir(). */
  socketPath: string;
  /** Also listen on TCP: `true` is 127.0.0.1 on a random port (port 0 is random too). */
  tcp?: boolean | { host: string; port: number };
  /** The provider serving a model id, or undefined when the run may not use that model. */
  providers: (modelId: string) => ModelProvider | undefined;
  /**
   * The model ids the run serves, when that is not simply every id `providers` serves (in replay mode no
   * provider exists). Tokens may use these.
   */
  models?: readonly string[];
  /** Model records that replace the registry's: the sim with its nominal price prices the budget. */
  records?: (modelId: string) => ModelRecord | undefined;
  /** Receives one ledger row per authenticated call. Must not throw (a throw is told to `onWarning`). */
  onCall: (row: GatewayLedgerRow) => void;
  /**
   * Told, as one line, what went wrong that no caller's reply shows: a recording that could not be appended
   * to, a ledger callback that threw, an internal error. The gateway prints nothing itself. Must not throw.
   */
  onWarning: (message: string) => void;
  /** The run's spending limit in USD (see `createBudget`: the run ends at most one call's output over it). */
  budgetUsd?: number;
  /** Appends every successful response to a recording. */
  record?: RecordWriter;
  /** Answers every call from a recording; no provider is called. */
  replay?: ReplayBook;
  /** Replaces run-specific text for recording keys (see `runPlaceholders`); default: none. */
  normalizer?: Normalizer;
}

/** A ledger row with what the gateway knows beyond the wire: retries, replay, adaptation. */
export interface GatewayLedgerRow extends LedgerRow {
  /** Provider attempts made: 1 plus retries; 0 when no provider was called (refused, replayed). */
  attempts: number;
  replayed: boolean;
  /** What adaptation changed in the request (`adaptRequest` notes). */
  adapted?: string[];
  /** The errors that were retried, as `type: message`. */
  retried?: string[];
  /** The task the caller said the call is for (TASK_HEADER and TASK_DOMAIN_HEADER), unchecked; absent when it said none. */
  task?: { domain: string; id: string };
}

/**
 * The headers a TaskAgent names the task of a call in (the request line's id and domain, each URI-encoded), so
 * that the task's result can say what it cost. Without both, or with a value that does not decode to at most
 * TASK_ID_MAX_CHARS characters without control characters, the call is recorded without a task.
 */
export const TASK_HEADER = 'x-hyperagents-task';
export const TASK_DOMAIN_HEADER = 'x-hyperagents-task-domain';
export const TASK_ID_MAX_CHARS = 256;

/** What a token may do: it identifies run, variant and role, and names the default model. */
export interface TokenGrant {
  runId: string;
  variantId: number | null;
  role: Role;
  model: string;
  /** The attempt the calls made with this token belong to (see CallContext). */
  attempt?: number;
}
