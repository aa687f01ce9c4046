import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type LlmCallInput, openArchive } from '../../archive/index.ts';
import { createSimBatch, createSimModel } from '../../llm/index.ts';
import { createBatchRounds } from './batch-rounds.ts';
import { createBatchRouter } from './batch-router.ts';

const tmp = mkdtempSync(path.join(tmpdir(), 'batch-rounds-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * One round of a variant's `requests` single-reply requests on the simulated batch endpoint, pending for
 * `polls` polls; returns the waits between its polls (ms) and the archive's `batch` events.
 */
async function round(name: string, polls: number, pollCapSec: number, requests = 3) {
  const archive = openArchive(path.join(tmp, `${name}.sqlite`));
  const sim = createSimModel({ seed: 3, domains: ['arithmetic'], pricePerMTok: 10 });
  const context = () => ({ runId: name, variantId: 0, role: 'task' as const, attempt: 0 });
  for (let i = 0; i < requests; i++) {
    archive.addBatchRequest({
      variantId: 0,
      domain: 'arithmetic',
      taskId: `t${i}`,
      attempt: 0,
      callIndex: 0,
      requestHash: `h${i}`,
      model: 'sim',
      request: JSON.stringify({ model: 'sim', messages: [{ role: 'user', content: `${i} + 1 = ?` }] }),
    });
  }
  const waits: number[] = [];
  const ledger: LlmCallInput[] = [];
  const rounds = createBatchRounds({
    archive,
    router: createBatchRouter(archive, () => undefined),
    api: createSimBatch(sim, context, { polls }),
    provider: sim,
    model: sim.model,
    reserve: async () => ({ status: 'held', settle: () => undefined }),
    ledger: (row) => ledger.push(row),
    progress: () => undefined,
    runId: name,
    pollCapSec,
    sleep: async (ms) => {
      waits.push(ms);
      return true;
    },
  });
  await rounds.settle(0, 1);
  const events = archive.eventsOf(['batch']).map((e) => e.data);
  archive.close();
  return { waits, events, ledger };
}

describe('polling a pending batch', () => {
  it('looks first after 2 s, then twice as late each time, at most a minute by default', async () => {
    const { waits } = await round('default', 9, 60); // --batch-poll's default
    expect(waits).toEqual([2, 4, 8, 16, 32, 60, 60, 60, 60, 60].map((s) => s * 1000));
  });

  it('never waits longer than --batch-poll between two looks', async () => {
    expect((await round('capped', 4, 5)).waits).toEqual([2, 4, 5, 5, 5].map((s) => s * 1000));
    expect((await round('one', 2, 1)).waits).toEqual([1, 1, 1].map((s) => s * 1000));
  });

  it('records the batch at submission, at each poll and when collected, with its spend and saving', async () => {
    const { events, ledger } = await round('events', 2, 60);
    expect(events.map((e) => [e.state, e.done, e.total])).toEqual([
      ['submitted', 0, 3],
      ['in_progress', 0, 3],
      ['in_progress', 0, 3],
      ['ended', 3, 3],
      ['ended', 3, 3],
    ]);
    const collected = events.at(-1)!;
    const charged = ledger.reduce((sum, row) => sum + row.costUsd, 0);
    expect(collected.costUsd).toBeCloseTo(charged, 12);
    // Half price: the saving is what was paid.
    expect(collected.savedUsd).toBeCloseTo(charged, 12);
    expect(charged).toBeGreaterThan(0);
  });
});
