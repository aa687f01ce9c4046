import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../harness/run/index.ts';
import { applyEvent, createProgress, INITIAL_PROGRESS, renderBlock } from './progress.ts';

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
