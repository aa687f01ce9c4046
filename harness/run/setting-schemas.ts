import { z } from 'zod';
import { DEFAULT_RETRY_POLICY, MAX_TIMER_MS } from '../../llm/index.ts';
import { LIMIT_RANGES } from '../process/index.ts';

/**
 * A whole number in [min, max] (max null: no bound but the safe integers). Every way of missing it gets the
 * one message that states the whole range, so the user reads what to give, not what zod checked first.
 */
export function wholeNumber(min: number, max: number | null, unit = '', why = '') {
  const range = max === null ? `of at least ${min}` : `from ${min} to ${max}`;
  const error = `must be a whole number${unit} ${range}${why}`;
  const base = z.number({ error }).int({ error }).min(min, { error });
  return max === null ? base : base.max(max, { error });
}

export const count = (min: number) => wholeNumber(min, null);

/** Milliseconds a simulated call waits: a timer, so at most MAX_TIMER_MS. */
const delayMs = () =>
  z
    .number()
    .min(0)
    .max(MAX_TIMER_MS, {
      error: `must give delays of at most ${MAX_TIMER_MS} ms (the longest a timer can wait)`,
    });

export const LatencySpecSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('fixed'), ms: delayMs() }),
  z.object({ kind: z.literal('uniform'), minMs: delayMs(), maxMs: delayMs() }),
  z.object({ kind: z.literal('lognormal'), medianMs: delayMs(), sigma: z.number() }),
]);

const FAULT_RATE = 'is the share of calls that fail, from 0 to below 1 (0.1: one call in ten)';
export const faultRate = () =>
  z.number({ error: FAULT_RATE }).min(0, { error: FAULT_RATE }).lt(1, { error: FAULT_RATE });

const NOISE =
  'must be a level from 0 to 1: the share of task answers drawn afresh on each attempt (0: none, 1: every one)';
export const noiseLevel = () => z.number({ error: NOISE }).min(0, { error: NOISE }).max(1, { error: NOISE });

const PRICE = 'must be an amount of USD of 0 or more';
export const price = () => z.number({ error: PRICE }).min(0, { error: PRICE });

/**
 * First wait before a simulated fault is retried. Retries never wait longer than the retry policy's longest
 * wait, so a larger value would not be what happens.
 */
export const retryMs = () =>
  wholeNumber(0, DEFAULT_RETRY_POLICY.maxWaitMs, ' of milliseconds', ' (the longest a retry waits)');

/** The longest task or MetaAgent timeout, in whole seconds: a timer cannot wait longer. */
export const MAX_TIMEOUT_SEC = Math.floor(MAX_TIMER_MS / 1000);

export const timeout = () =>
  wholeNumber(1, MAX_TIMEOUT_SEC, ' of seconds', ' (about 24 days: the longest a timer can wait)');

/** A resource limit, with its range and why the range is what it is (see LIMIT_RANGES). */
export const limit = (field: keyof typeof LIMIT_RANGES) => {
  const { min, max, unit, why } = LIMIT_RANGES[field];
  return wholeNumber(min, max, unit, why);
};

const NOTIFY_URL =
  'must be an http:// or https:// address that takes a POST of each alert, e.g. https://ntfy.sh/my-runs';
const isHttpUrl = (text: string): boolean => {
  try {
    const { protocol, hostname } = new URL(text);
    return (protocol === 'http:' || protocol === 'https:') && hostname !== '';
  } catch {
    return false;
  }
};
export const notifyUrl = () => z.string({ error: NOTIFY_URL }).refine(isHttpUrl, { error: NOTIFY_URL });

const STALL = `must be a number of minutes above 0 and at most ${Math.floor(MAX_TIMEOUT_SEC / 60)}`;
export const stallMinutes = () =>
  z
    .number({ error: STALL })
    .positive({ error: STALL })
    .max(MAX_TIMEOUT_SEC / 60, { error: STALL });

export const positiveUsd = () =>
  z.number({ error: 'must be a positive amount' }).positive({ error: 'must be a positive amount' });

/** One of `values`, or a message that lists them. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });
