import { describe, expect, it } from 'vitest';
import { withRetries } from '../retry.ts';
import type { CallContext, ChatRequest } from '../types.ts';
import {
  createCallPlanner,
  FAULT_KINDS,
  faultError,
  type LatencySpec,
  parseFaultKinds,
  parseLatencySpec,
  sampleLatency,
} from './faults.ts';
import { createSimModel } from './sim-model.ts';

const ctx: CallContext = { runId: 'r', variantId: 1, role: 'task' };
const request = (n: number): ChatRequest => ({
  messages: [
    { role: 'system', content: 'Reply with <json>{"response": <answer>}</json>.' },
    { role: 'user', content: `Domain: arithmetic\n\nTask input:\n\`\`\`json\n{"question": "q${n}"}\n\`\`\`` },
  ],
});

describe('parseLatencySpec', () => {
  it.each<[string, LatencySpec]>([
    ['200', { kind: 'fixed', ms: 200 }],
    ['0', { kind: 'fixed', ms: 0 }],
    [' 12.5 ', { kind: 'fixed', ms: 12.5 }],
    ['100-400', { kind: 'uniform', minMs: 100, maxMs: 400 }],
    ['50-50', { kind: 'uniform', minMs: 50, maxMs: 50 }],
    ['lognormal:200', { kind: 'lognormal', medianMs: 200, sigma: 0.5 }],
    ['lognormal:200:0.8', { kind: 'lognormal', medianMs: 200, sigma: 0.8 }],
  ])('%j', (text, spec) => {
    expect(parseLatencySpec(text)).toEqual({ ok: true, value: spec });
  });

  it.each([
    ['fast', /unknown form/],
    ['-5', /unknown form/],
    ['400-100', /starts above its end/],
    ['lognormal:200:9', /sigma above 3/],
    ['lognormal', /unknown form/],
  ])('rejects %j, saying which forms work', (text, why) => {
    const parsed = parseLatencySpec(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.message).toMatch(why);
    expect(parsed.message).toMatch(/200.*100-400.*lognormal:MEDIAN/);
  });
});

describe('sampleLatency', () => {
  const uniforms = Array.from({ length: 2000 }, (_, i) => [(i * 0.618034) % 1, (i * 0.414214) % 1] as const);

  it('keeps a fixed latency and a uniform range within its bounds', () => {
    expect(sampleLatency({ kind: 'fixed', ms: 200 }, 0.3, 0.9)).toBe(200);
    const draws = uniforms.map(([a, b]) => sampleLatency({ kind: 'uniform', minMs: 100, maxMs: 400 }, a, b));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...draws)).toBeLessThanOrEqual(400);
    expect(Math.max(...draws) - Math.min(...draws)).toBeGreaterThan(250);
  });

  it('draws a lognormal around its median, with a long right tail', () => {
    const draws = uniforms
      .map(([a, b]) => sampleLatency({ kind: 'lognormal', medianMs: 200, sigma: 0.5 }, a, b))
      .sort((x, y) => x - y);
    const median = draws[draws.length / 2]!;
    expect(median).toBeGreaterThan(180);
    expect(median).toBeLessThan(220);
    expect(draws[0]!).toBeGreaterThan(0);
    expect(draws.at(-1)! - median).toBeGreaterThan(median - draws[0]!);
  });
});

describe('parseFaultKinds', () => {
  it('accepts a comma-separated list of known faults, once each', () => {
    expect(parseFaultKinds('429, timeout,429')).toEqual({ ok: true, value: ['429', 'timeout'] });
  });

  it('names unknown faults and lists the known ones', () => {
    expect(parseFaultKinds('429,503,slow')).toEqual({
      ok: false,
      message: 'unknown fault "503", "slow"; the sim can inject 429, 500, 529, timeout, truncated, malformed',
    });
    expect(parseFaultKinds(',')).toMatchObject({ ok: false });
  });
});

describe('faultError', () => {
  it.each([
    ['429', 'rate_limit', 429],
    ['500', 'provider_error', 500],
    ['529', 'provider_error', 529],
    ['timeout', 'timeout', undefined],
    ['truncated', 'provider_error', undefined],
    ['malformed', 'provider_error', undefined],
  ] as const)('%s is a retryable %s, as a real provider reports it', (kind, type, status) => {
    const error = faultError(kind, 25);
    expect(error).toMatchObject({ type, retryable: true });
    expect(error.status).toBe(status);
    expect(error.message).toMatch(/simulated/);
  });

  it('asks to wait after a 429', () => {
    expect(faultError('429', 25).retryAfterMs).toBe(25);
  });
});

describe('createCallPlanner', () => {
  it('fails about the given share of calls, deterministically from the seed', () => {
    const plan = (seed: number) => {
      const planner = createCallPlanner(seed, { faultRate: 0.2 });
      return Array.from({ length: 1000 }, (_, i) => planner(request(i), ctx).fault?.type ?? 'ok');
    };
    const first = plan(7);
    expect(plan(7)).toEqual(first);
    expect(plan(8)).not.toEqual(first);
    const failed = first.filter((t) => t !== 'ok').length;
    expect(failed).toBeGreaterThan(150);
    expect(failed).toBeLessThan(250);
  });

  it('injects only the faults asked for, and all of them by default', () => {
    const only = createCallPlanner(1, { faultRate: 0.5, faults: ['429'] });
    const types = new Set(Array.from({ length: 200 }, (_, i) => only(request(i), ctx).fault?.type));
    expect(types).toEqual(new Set([undefined, 'rate_limit']));
    const all = createCallPlanner(1, { faultRate: 0.9 });
    const statuses = new Set(Array.from({ length: 400 }, (_, i) => all(request(i), ctx).fault?.message));
    expect(statuses.size).toBeGreaterThanOrEqual(FAULT_KINDS.length);
  });

  it('gives the same request another draw when it is sent again, so a retry can succeed', () => {
    const planner = createCallPlanner(3, { faultRate: 0.5 });
    const outcomes = Array.from({ length: 40 }, () => planner(request(1), ctx).fault === undefined);
    expect(outcomes).toContain(true);
    expect(outcomes).toContain(false);
  });

  it('draws a latency per call from the spec', () => {
    const planner = createCallPlanner(3, { latency: { kind: 'uniform', minMs: 10, maxMs: 20 } });
    const latencies = Array.from({ length: 50 }, (_, i) => planner(request(i), ctx).latencyMs);
    for (const ms of latencies) expect(ms >= 10 && ms <= 20).toBe(true);
    expect(new Set(latencies).size).toBeGreaterThan(3);
  });
});

describe('the sim model with knobs', () => {
  it('waits the planned latency through the injected sleep', async () => {
    const waits: number[] = [];
    const sim = createSimModel({
      seed: 1,
      domains: ['arithmetic'],
      knobs: { latency: { kind: 'fixed', ms: 250 } },
      sleep: async (ms) => {
        waits.push(ms);
        return true;
      },
    });
    expect((await sim.complete(request(1), ctx)).ok).toBe(true);
    expect(waits).toEqual([250]);
  });

  it('fails with provider errors that withRetries retries, and then gives the fault-free reply', async () => {
    const clean = createSimModel({ seed: 5, domains: ['arithmetic'] });
    const faulty = createSimModel({
      seed: 5,
      domains: ['arithmetic'],
      knobs: { faultRate: 0.4, retryAfterMs: 0 },
    });
    const task = { id: 't1', input: { question: 'q1' }, answer: 4 };
    clean.registerTasks('arithmetic', [task]);
    faulty.registerTasks('arithmetic', [task]);
    const direct = await Promise.all(
      Array.from({ length: 30 }, (_, i) => faulty.complete(request(i % 3), ctx)),
    );
    expect(direct.some((r) => !r.ok && r.error.retryable)).toBe(true);

    const retries: string[] = [];
    const retried = withRetries(faulty, {
      policy: { baseMs: 0 },
      sleep: async () => undefined,
      onRetry: (info) => retries.push(info.error.type),
    });
    for (let i = 0; i < 10; i++) {
      const [want, got] = [await clean.complete(request(1), ctx), await retried.complete(request(1), ctx)];
      const { trace, ...reply } = got;
      expect(reply).toEqual(want);
      expect(trace?.retried).toHaveLength(trace!.attempts - 1);
    }
    expect(retries.length).toBeGreaterThan(0);
  });
});
