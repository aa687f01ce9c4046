import { classifyStatus, classifyThrown, type ErrorSource } from '../errors.ts';
import type { ProviderError } from '../provider.ts';
import { MAX_TIMER_MS } from '../timer-limit.ts';
import type { CallContext, ChatRequest } from '../types.ts';
import { hash01, hashKey, type KeyPart } from './rng.ts';
import { canonicalJson } from './transcript.ts';

/**
 * The sim's knobs for benchmarks and fault tests (docs/architecture.md, 'The simulated model'): a latency per
 * call, fixed or drawn from a distribution, and faults injected at a rate, all deterministic from the seed.
 */

/** Milliseconds per call: `200` (fixed), `100-400` (uniform), `lognormal:200` or `lognormal:200:0.8`. */
export type LatencySpec =
  | { kind: 'fixed'; ms: number }
  | { kind: 'uniform'; minMs: number; maxMs: number }
  /** Median `medianMs`; `sigma` is the standard deviation of the log (0.5: most calls within 0.4-2.7x). */
  | { kind: 'lognormal'; medianMs: number; sigma: number };

export const DEFAULT_LOGNORMAL_SIGMA = 0.5;

export const LATENCY_SPEC_HELP =
  'a number of milliseconds (200), a uniform range (100-400), or lognormal:MEDIAN[:SIGMA] (lognormal:200)';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const NUMBER = String.raw`\d+(?:\.\d+)?`;

/** Parses a latency spec; the message of a bad one says which forms are accepted. Pure. */
export function parseLatencySpec(text: string): Parsed<LatencySpec> {
  const spec = text.trim();
  const bad = (why: string): Parsed<LatencySpec> => ({
    ok: false,
    message: `"${text}" is not a latency: ${why}. Give ${LATENCY_SPEC_HELP}.`,
  });
  if (new RegExp(`^${NUMBER}$`).test(spec)) return { ok: true, value: { kind: 'fixed', ms: Number(spec) } };
  const range = new RegExp(`^(${NUMBER})-(${NUMBER})$`).exec(spec);
  if (range) {
    const [minMs, maxMs] = [Number(range[1]), Number(range[2])];
    if (minMs > maxMs) return bad(`the range starts above its end`);
    return { ok: true, value: { kind: 'uniform', minMs, maxMs } };
  }
  const lognormal = new RegExp(`^lognormal:(${NUMBER})(?::(${NUMBER}))?$`).exec(spec);
  if (lognormal) {
    const sigma = lognormal[2] === undefined ? DEFAULT_LOGNORMAL_SIGMA : Number(lognormal[2]);
    if (sigma > 3) return bad('a sigma above 3 gives absurd outliers');
    return { ok: true, value: { kind: 'lognormal', medianMs: Number(lognormal[1]), sigma } };
  }
  return bad('unknown form');
}

/** A latency from the spec, given two independent uniform numbers in [0, 1). Whole milliseconds. */
export function sampleLatency(spec: LatencySpec, u1: number, u2: number): number {
  switch (spec.kind) {
    case 'fixed':
      return Math.round(spec.ms);
    case 'uniform':
      return Math.round(spec.minMs + u1 * (spec.maxMs - spec.minMs));
    case 'lognormal': {
      // Box-Muller; 1 - u1 is in (0, 1], so the log is finite.
      const z = Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
      // A far tail could pass what a timer can wait (the spec's own numbers are checked against it).
      return Math.min(MAX_TIMER_MS, Math.round(spec.medianMs * Math.exp(spec.sigma * z)));
    }
  }
}

export const FAULT_KINDS = ['429', '500', '529', 'timeout', 'truncated', 'malformed'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Parses `429,500,timeout`; an unknown kind is named with the list of known ones. Pure. */
export function parseFaultKinds(text: string): Parsed<FaultKind[]> {
  const kinds = text
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  if (kinds.length === 0) return { ok: false, message: `name at least one fault: ${FAULT_KINDS.join(',')}` };
  const unknown = kinds.filter((k) => !(FAULT_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    return {
      ok: false,
      message: `unknown fault ${unknown.map((k) => `"${k}"`).join(', ')}; the sim can inject ${FAULT_KINDS.join(', ')}`,
    };
  }
  return { ok: true, value: [...new Set(kinds)] as FaultKind[] };
}

const SIM_SOURCE: ErrorSource = { label: 'sim (simulated fault)', baseUrl: 'sim' };

function thrown(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

/**
 * The error a real provider gives for the fault, built by the same classifiers the real providers use,
 * so it is retried (or not) exactly like theirs. A 429 asks to wait `retryAfterMs`.
 */
export function faultError(kind: FaultKind, retryAfterMs: number): ProviderError {
  switch (kind) {
    case '429':
      return classifyStatus(429, 'Rate limit reached (simulated).', SIM_SOURCE, retryAfterMs);
    case '500':
      return classifyStatus(500, 'Internal server error (simulated).', SIM_SOURCE);
    case '529':
      return classifyStatus(529, 'Overloaded (simulated).', SIM_SOURCE);
    case 'timeout':
      return classifyThrown(
        thrown('APIConnectionTimeoutError', 'Request timed out (simulated).'),
        SIM_SOURCE,
      );
    case 'truncated':
      return classifyThrown(
        thrown('Error', 'premature close: the response body was cut off (simulated)'),
        SIM_SOURCE,
      );
    case 'malformed':
      return classifyThrown(
        thrown('SyntaxError', 'Unexpected token < in JSON at position 0 (simulated)'),
        SIM_SOURCE,
      );
  }
}

export interface SimKnobs {
  latency?: LatencySpec;
  /** Share of calls (attempts) that fail, in [0, 1). */
  faultRate?: number;
  /** Which faults to inject, chosen evenly; default all of FAULT_KINDS. */
  faults?: readonly FaultKind[];
  /** What a simulated 429 asks to wait, in ms (default 1000). */
  retryAfterMs?: number;
}

export interface CallPlan {
  latencyMs: number;
  fault?: ProviderError;
}

/**
 * Plans each call: its latency and whether it fails. Deterministic from the seed, the request, who sends
 * it, and how many times this same request was planned before, so a retried call can succeed and a run
 * repeats its faults exactly.
 */
export function createCallPlanner(
  seed: KeyPart,
  knobs: SimKnobs,
): (req: ChatRequest, ctx: CallContext) => CallPlan {
  const seen = new Map<number, number>();
  const rate = knobs.faultRate ?? 0;
  const kinds = knobs.faults ?? FAULT_KINDS;
  const retryAfterMs = knobs.retryAfterMs ?? 1000;
  return (req, ctx) => {
    if (knobs.latency === undefined && rate === 0) return { latencyMs: 0 };
    const request = hashKey(ctx.role, ctx.variantId, canonicalJson(req));
    const occurrence = seen.get(request) ?? 0;
    seen.set(request, occurrence + 1);
    const key: KeyPart[] = [seed, request, occurrence];
    const latencyMs =
      knobs.latency === undefined
        ? 0
        : sampleLatency(knobs.latency, hash01(...key, 'latency-1'), hash01(...key, 'latency-2'));
    if (rate === 0 || kinds.length === 0 || hash01(...key, 'fault') >= rate) return { latencyMs };
    const kind = kinds[Math.floor(hash01(...key, 'fault-kind') * kinds.length)]!;
    return { latencyMs, fault: faultError(kind, retryAfterMs) };
  };
}
