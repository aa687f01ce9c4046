import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BatchApi, BatchRequest, BatchStatus } from '../batch-api.ts';
import type { ChatRequest } from '../types.ts';
import { createSimBatch, type SimBatchKnobs } from './sim-batch.ts';
import { createSimModel } from './sim-model.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'sim-batch-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const sim = createSimModel({ seed: 7, domains: ['arithmetic'], pricePerMTok: 10 });
const context = () => ({ runId: 'r', variantId: 0, role: 'task' as const, attempt: 0 });
const request = (i: number): ChatRequest => ({
  model: 'sim',
  messages: [{ role: 'user', content: `What is ${i} + ${i}? Answer with the number.` }],
});
const requests = (n: number): BatchRequest[] =>
  Array.from({ length: n }, (_, i) => ({ customId: `a0-r${i + 1}`, request: request(i) }));

const endpoint = (knobs: SimBatchKnobs, dir?: string): BatchApi => createSimBatch(sim, context, knobs, dir);

async function submitted(api: BatchApi, n: number): Promise<string> {
  const sent = await api.submit(requests(n));
  if (!sent.ok) throw new Error(sent.error.message);
  return sent.value.batchId;
}

async function poll(api: BatchApi, id: string): Promise<BatchStatus> {
  const polled = await api.poll(id);
  if (!polled.ok) throw new Error(polled.error.message);
  return polled.value;
}

/** Polls until the batch ends; returns the states seen, the last one ended. */
async function pollToEnd(api: BatchApi, id: string, most = 50): Promise<BatchStatus[]> {
  const seen: BatchStatus[] = [];
  while (seen.length < most) {
    const s = await poll(api, id);
    seen.push(s);
    if (s.state === 'ended') return seen;
  }
  throw new Error(`still pending after ${most} polls`);
}

async function outcomes(api: BatchApi, id: string) {
  const collected = await api.collect(id);
  if (!collected.ok) throw new Error(collected.error.message);
  return collected.value;
}

describe('the simulated batch endpoint', () => {
  it.each([0, 1, 3])('with polls=%i answers pending that many polls, then ends', async (polls) => {
    const api = endpoint({ polls });
    const id = await submitted(api, 4);
    const seen = await pollToEnd(api, id);
    expect(seen.map((s) => s.providerState)).toEqual([...Array(polls).fill('in_progress'), 'ended']);
    expect(seen.at(0)).toMatchObject({ done: polls === 0 ? 4 : 0, total: 4 });
    expect(seen.at(-1)).toEqual({ state: 'ended', providerState: 'ended', done: 4, failed: 0, total: 4 });
  });

  it('answers each request exactly as an ordinary call of the sim does', async () => {
    const api = endpoint({ polls: 0 });
    const id = await submitted(api, 3);
    await pollToEnd(api, id);
    for (const [i, outcome] of (await outcomes(api, id)).entries()) {
      const ordinary = await sim.complete(request(i), context());
      expect(outcome.ok && ordinary.ok).toBe(true);
      if (outcome.ok && ordinary.ok) expect(outcome.response.message).toEqual(ordinary.response.message);
    }
  });

  it('with ms=N stays pending until N ms after submission, however many polls', async () => {
    const api = endpoint({ polls: 0, endAfterMs: 300 });
    const started = Date.now();
    const id = await submitted(api, 2);
    expect((await poll(api, id)).state).toBe('pending');
    await new Promise((resolve) => setTimeout(resolve, 320));
    expect((await poll(api, id)).state).toBe('ended');
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('will not hand over results before the batch ended', async () => {
    const api = endpoint({ polls: 5 });
    const id = await submitted(api, 1);
    const early = await api.collect(id);
    expect(early.ok).toBe(false);
    if (!early.ok) expect(early.error.message).toContain('has not ended');
  });

  it('with expire ends expired, none of its requests answered', async () => {
    const api = endpoint({ polls: 0, expire: true });
    const id = await submitted(api, 5);
    const [last] = (await pollToEnd(api, id)).slice(-1);
    expect(last).toEqual({ state: 'ended', providerState: 'expired', done: 0, failed: 5, total: 5 });
    const all = await outcomes(api, id);
    expect(all.map((o) => (o.ok ? 'answered' : o.reason))).toEqual(Array(5).fill('expired'));
  });

  it('with errors=RATE fails about that share of the requests, the same ones every time', async () => {
    const failedIds = async (errorRate: number): Promise<string[]> => {
      const api = endpoint({ polls: 0, errorRate });
      const id = await submitted(api, 200);
      await pollToEnd(api, id);
      return (await outcomes(api, id)).filter((o) => !o.ok).map((o) => o.customId);
    };
    expect(await failedIds(0)).toEqual([]);
    expect(await failedIds(1)).toHaveLength(200);
    const quarter = await failedIds(0.25);
    expect(quarter.length).toBeGreaterThan(30);
    expect(quarter.length).toBeLessThan(70);
    expect(await failedIds(0.25)).toEqual(quarter);
  });

  it('keeps its batches in its folder, so another endpoint on it (a resumed run) finds a pending one', async () => {
    const dir = path.join(tmp, 'sim-batches');
    const first = endpoint({ polls: 2 }, dir);
    const id = await submitted(first, 3);
    expect((await poll(first, id)).state).toBe('pending');
    expect(readdirSync(dir)).toHaveLength(1);
    const resumed = endpoint({ polls: 2 }, dir);
    const seen = await pollToEnd(resumed, id);
    expect(seen.at(-1)?.done).toBe(3);
    expect(await outcomes(resumed, id)).toHaveLength(3);
    const unknown = await endpoint({}, dir).poll('simbatch_none');
    expect(unknown.ok).toBe(false);
  });
});
