import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { RunEvent } from '../../harness/run/index.ts';
import { applyEvent, createProgress, INITIAL_PROGRESS, renderBlock, waitedText } from './progress.ts';

const replay = (events: RunEvent[]) => events.reduce(applyEvent, INITIAL_PROGRESS);
const block = (events: RunEvent[], width = 200) => renderBlock(replay(events), width);

const start: RunEvent[] = [
  { type: 'run_started', generations: 10 },
  { type: 'stage', variant: 0, stage: 'full' },
  { type: 'tasks', variant: 0, done: 3, total: 40 },
];

describe('the live progress block', () => {
  it.each<[string, RunEvent[], string[]]>([
    [
      'the initial agent under evaluation',
      start,
      [
        'generation 0/10 · 1 in flight · spent $0.0000 · best -',
        '  variant 0 (initial agent): full evaluation, 3/40 tasks',
      ],
    ],
    [
      "a MetaAgent's turns and the spend",
      [
        ...start,
        { type: 'variant_done', variant: 0, status: 'evaluated', score: 0.5 },
        { type: 'stage', variant: 1, stage: 'selected' },
        { type: 'stage', variant: 1, stage: 'editing' },
        { type: 'step', variant: 1, step: 'MetaAgent editing' },
        { type: 'llm_call', variant: 1, role: 'meta', costUsd: 0.25 },
        { type: 'llm_call', variant: 1, role: 'meta', costUsd: 0.25 },
        { type: 'llm_call', variant: 0, role: 'task', costUsd: 0.5 },
      ],
      [
        'generation 1/10 · 1 in flight · spent $1.0000 · best variant 0 (0.500)',
        '  variant 1: MetaAgent editing, turn 2',
      ],
    ],
    [
      "the gate's typecheck, then the smoke task, for two generations at once",
      [
        { type: 'run_started', generations: 4 },
        { type: 'stage', variant: 2, stage: 'gating' },
        { type: 'step', variant: 2, step: 'typecheck' },
        { type: 'stage', variant: 3, stage: 'gating' },
        { type: 'step', variant: 3, step: 'typecheck' },
        { type: 'step', variant: 3, step: 'smoke task' },
      ],
      [
        'generation 3/4 · 2 in flight · spent $0.0000 · best -',
        '  variant 2: gate: typecheck',
        '  variant 3: gate: smoke task',
      ],
    ],
    [
      'a new stage clears the task count; a failed variant leaves the block',
      [
        ...start,
        { type: 'stage', variant: 0, stage: 'staged' },
        { type: 'stage', variant: 1, stage: 'editing' },
        { type: 'stage', variant: 1, stage: 'failed' },
        { type: 'variant_done', variant: 1, status: 'failed', score: null },
      ],
      [
        'generation 1/10 · 1 in flight · spent $0.0000 · best -',
        '  variant 0 (initial agent): staged evaluation',
      ],
    ],
    [
      "the retries of a generation's model calls, kept from one stage to the next",
      [
        ...start,
        { type: 'model_faults', variant: 0, faults: 2, retries: 2 },
        { type: 'stage', variant: 1, stage: 'gating' },
        { type: 'model_faults', variant: 1, faults: 1, retries: 1 },
        { type: 'stage', variant: 1, stage: 'staged' },
        { type: 'model_faults', variant: 1, faults: 4, retries: 3 },
      ],
      [
        'generation 1/10 · 2 in flight · spent $0.0000 · best -',
        '  variant 0 (initial agent): full evaluation, 3/40 tasks, 2 retries',
        '  variant 1: staged evaluation, 4 retries',
      ],
    ],
  ])('%s', (_what, events, expected) => {
    expect(block(events)).toEqual(expected);
  });

  const T0 = Date.parse('2026-01-01T00:00:00Z');
  const batch = (state: string, done: number, waitedSec: number): RunEvent => ({
    type: 'batch',
    variant: 0,
    batch: 1,
    state,
    done,
    total: 798,
    waitedSec,
    sinceMs: T0,
  });

  it("shows a pending batch's state, requests done of total and its wait, counted on between polls", () => {
    const state = replay([...start, batch('submitted', 0, 0), batch('in_progress', 312, 240)]);
    expect(renderBlock(state, 200, T0 + 250_000)[1]).toBe(
      '  variant 0 (initial agent): full evaluation, 3/40 tasks, batch 312/798 in_progress, waiting 4m10s',
    );
  });

  it('drops a batch from the line once it is collected, and with the next stage', () => {
    const ended = replay([...start, batch('in_progress', 10, 5), batch('ended', 798, 9)]);
    expect(renderBlock(ended, 200, T0)[1]).toBe('  variant 0 (initial agent): full evaluation, 3/40 tasks');
    const staged = replay([
      ...start,
      batch('in_progress', 10, 5),
      { type: 'stage', variant: 0, stage: 'staged' },
    ]);
    expect(renderBlock(staged, 200, T0)[1]).toBe('  variant 0 (initial agent): staged evaluation');
  });

  it.each([
    [0, '0s'],
    [59.4, '59s'],
    [60, '1m00s'],
    [250, '4m10s'],
    [3599, '59m59s'],
    [3600, '1h00m'],
    [7500, '2h05m'],
  ])('writes a wait of %s s as %s', (seconds, text) => {
    expect(waitedText(seconds)).toBe(text);
  });

  it('keeps the best score, and cuts lines to the terminal width', () => {
    const events: RunEvent[] = [
      { type: 'run_started', generations: 3 },
      { type: 'variant_done', variant: 1, status: 'evaluated', score: 0.8 },
      { type: 'variant_done', variant: 2, status: 'evaluated', score: 0.4 },
    ];
    expect(replay(events).best).toEqual({ id: 1, score: 0.8 });
    expect(block(events, 20)).toEqual(['generation 0/3 · 0 …']);
  });
});

function capture(isTTY: boolean) {
  const stream = new PassThrough() as PassThrough & { isTTY: boolean; columns: number };
  stream.isTTY = isTTY;
  stream.columns = 80;
  let text = '';
  stream.on('data', (c: Buffer) => {
    text += c.toString();
  });
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => text };
}

describe('createProgress', () => {
  it('writes plain lines, with the steps inside a generation, when not on a terminal', () => {
    const out = capture(false);
    const progress = createProgress(out.stream, false);
    progress.line('variant 1: parent 0');
    for (const event of [...start, { type: 'step', variant: 1, step: 'typecheck' } as const])
      progress.event(event);
    progress.done();
    expect(out.text()).toBe('variant 1: parent 0\nvariant 1: typecheck\n');
  });

  it("off a terminal, writes a batch's line when its state changes, not at every poll", () => {
    const out = capture(false);
    const progress = createProgress(out.stream, false);
    const event = (state: string, done: number, waitedSec: number) =>
      progress.event({ type: 'batch', variant: 2, batch: 7, state, done, total: 40, waitedSec, sinceMs: 0 });
    for (const e of start) progress.event(e);
    progress.event({ type: 'stage', variant: 2, stage: 'staged' });
    event('submitted', 0, 0);
    event('in_progress', 0, 2);
    event('in_progress', 12, 6);
    event('ended', 40, 75);
    progress.done();
    expect(out.text()).toBe(
      'variant 2: batch 0/40 submitted, waiting 0s\n' +
        'variant 2: batch 0/40 in_progress, waiting 2s\n' +
        'variant 2: batch 40/40 ended, waiting 1m15s\n',
    );
  });

  it('on a terminal, redraws a pending batch every second so its wait counts on', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      const out = capture(true);
      out.stream.columns = 120;
      const progress = createProgress(out.stream, false);
      for (const e of start) progress.event(e);
      progress.event({
        type: 'batch',
        variant: 0,
        batch: 1,
        state: 'in_progress',
        done: 5,
        total: 40,
        waitedSec: 0,
        sinceMs: 1_000_000,
      });
      vi.advanceTimersByTime(3_050);
      expect(out.text()).toContain('batch 5/40 in_progress, waiting 3s');
      progress.event({
        type: 'batch',
        variant: 0,
        batch: 1,
        state: 'ended',
        done: 40,
        total: 40,
        waitedSec: 3,
        sinceMs: 1_000_000,
      });
      vi.advanceTimersByTime(200);
      const settled = out.text().length;
      vi.advanceTimersByTime(5_000);
      expect(out.text().length).toBe(settled);
      progress.done();
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes a line when a model has been failing for a while, and when it answers again', () => {
    for (const tty of [false, true]) {
      const out = capture(tty);
      const progress = createProgress(out.stream, false);
      progress.event({
        type: 'model_failing',
        model: 'openai/gpt-4o',
        forMs: 35_200,
        reason: '429 rate limited',
      });
      progress.event({ type: 'model_answering', model: 'openai/gpt-4o', afterMs: 41_700 });
      progress.done();
      expect(out.text()).toBe(
        'openai/gpt-4o: failing for 35 s (429 rate limited), retrying\n' +
          'openai/gpt-4o: answering again after 42 s of failures\n',
      );
    }
  });

  it('says nothing with --quiet', () => {
    const out = capture(true);
    const progress = createProgress(out.stream, true);
    progress.line('variant 1: parent 0');
    for (const event of start) progress.event(event);
    progress.done();
    expect(out.text()).toBe('');
  });

  it('on a terminal, redraws the block below each line and erases it at the end', () => {
    const out = capture(true);
    const progress = createProgress(out.stream, false);
    for (const event of start) progress.event(event);
    progress.line('variant 0: started');
    progress.done();
    expect(out.text()).toBe(
      'variant 0: started\n' +
        'generation 0/10 · 1 in flight · spent $0.0000 · best -\n' +
        '  variant 0 (initial agent): full evaluation, 3/40 tasks' +
        '\r\x1b[1A\x1b[J',
    );
  });
});
