import { describe, expect, it } from 'vitest';
import type { EventInput, RunView, VariantView } from '../archive/index.ts';
import { testEvent } from '../archive/testing/events.ts';
import { runHealth } from './health.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

const run = (state: RunView['state'], extra: Partial<RunView> = {}): RunView => ({
  id: 'r',
  createdAt: at(0),
  finishedAt: null,
  state,
  model: 'sim',
  metaModel: 'sim',
  taskModel: 'sim',
  simulated: true,
  domains: ['arithmetic'],
  seed: 1,
  harnessVersion: 't',
  config: { generations: 10, budgetUsd: 2 },
  generationsPlanned: 10,
  generations: 4,
  best: null,
  costUsd: 0.8,
  llmCalls: 40,
  ...extra,
});

const variant = (id: number, outcome: VariantView['outcome'], cause: string | null = null): VariantView => ({
  id,
  generation: id,
  parent: id === 0 ? null : 0,
  commit: null,
  outcome,
  step: outcome === 'in_progress' ? 'editing' : outcome === 'evaluated' ? 'done' : 'failed',
  status: outcome,
  validParent: outcome === 'evaluated',
  failureReason: cause,
  failureCause: cause,
  selectionReason: null,
  score: outcome === 'evaluated' ? 0.5 : null,
  scores: {},
  changedFiles: [],
  costUsd: 0.2,
  llmCalls: 10,
  inputTokens: 0,
  outputTokens: 0,
  createdAt: at(id * 10),
  finishedAt: outcome === 'in_progress' ? null : at(id * 10 + 10),
  acceptance: null,
});

const event = <K extends Parameters<typeof runHealth>[0]['events'][number]['type']>(
  id: number,
  kind: K,
  data: EventInput<K>,
) => testEvent(id, kind, data, at(id));

const health = (
  r: RunView,
  variants: VariantView[],
  events: Parameters<typeof runHealth>[0]['events'] = [],
  nowMin = 45,
  lastMin = 44,
) =>
  runHealth({
    run: r,
    variants,
    events,
    lastActivityAt: at(lastMin),
    runDir: '/runs/r',
    now: T0 + nowMin * 60_000,
  });

const four = [
  variant(0, 'evaluated'),
  variant(1, 'evaluated'),
  variant(2, 'failed', 'timeout'),
  variant(3, 'rejected'),
  variant(4, 'failed', 'timeout'),
];

describe('runHealth', () => {
  it('gives the pace, the failures by cause, and what is left at the pace of a running run', () => {
    const h = health(run('running'), four);
    expect(h).toMatchObject({ state: 'running', level: 'ok', finished: 4, failed: 3, resume: null });
    expect(h.failures).toEqual([
      { cause: 'timeout', count: 2 },
      { cause: 'rejected at the gate', count: 1 },
    ]);
    // 4 generations in 45 minutes; 6 more at that pace and at $0.20 each.
    expect(h.perHour).toBeCloseTo(4 / 0.75, 6);
    expect(h.estimate?.generations).toBe(6);
    expect(h.estimate?.hours).toBeCloseTo(6 / (4 / 0.75), 6);
    expect(h.estimate?.costUsd).toBeCloseTo(1.2, 6);
  });

  it("says which languages' tasks wait for a worker that can grade them, while the run runs", () => {
    const message = (n: number) => `${n} go tasks wait: no connected worker can grade go (it needs go: ...)`;
    const events = [
      event(1, 'tasks_waiting', { language: 'go', waiting: 3, message: message(3) }),
      event(2, 'tasks_waiting', { language: 'rust', waiting: 2, message: 'rust waits' }),
      event(3, 'tasks_waiting', { language: 'rust', waiting: 0, message: 'a worker for rust connected' }),
    ];
    expect(health(run('running'), four, events).waiting).toEqual([message(3)]);
    expect(health(run('done'), four, events).waiting).toEqual([]);
  });

  it('calls a running run that has written nothing for long stalled', () => {
    // 4 generations in 5 hours: silent for 4 hours is longer than 3 generations take (3.75 hours).
    expect(health(run('running'), four, [], 300, 60)).toMatchObject({ state: 'stalled', level: 'warning' });
    expect(health(run('running'), four, [], 300, 90).state).toBe('running');
  });

  it('shows a done run whose every generation failed as failed, not done', () => {
    const failed = [
      variant(0, 'evaluated'),
      variant(1, 'failed', 'timeout'),
      variant(2, 'failed', 'timeout'),
    ];
    expect(health(run('done', { finishedAt: at(30) }), failed)).toMatchObject({
      state: 'failed',
      level: 'error',
      why: 'every generation failed (2 of 2: 2 timeout)',
    });
  });

  it('says why a run stopped and how to continue it: budget, stop-after, Ctrl-C, a killed process', () => {
    const stopped = run('stopped', { finishedAt: at(50) });
    const budget = health(stopped, four, [event(1, 'budget_reached', { spentUsd: 2, budgetUsd: 2 })]);
    expect(budget.why).toMatch(/^stopped by the budget: \$0\.8000 spent of \$2\.0000/);
    expect(budget.resume).toBe('hyperagents generate-loop --resume /runs/r --budget-usd 4');
    const asked = health(stopped, four, [event(1, 'control', { action: 'stop-after' })]);
    expect(asked.why).toMatch(/^stopped when asked \(stop-after\)/);
    expect(asked.controls).toEqual([{ ts: at(1), action: 'stop-after', value: null }]);
    expect(health(stopped, four, [event(1, 'interrupted', {})]).why).toBe(
      'interrupted (Ctrl-C or a stop signal)',
    );
    // An interrupt before a resume says nothing of the stop after it.
    expect(
      health(stopped, four, [event(1, 'interrupted', {}), event(2, 'resumed', { pid: 1, spentUsd: 1 })]).why,
    ).toBe('stopped before its end');
    const killed = health(run('interrupted'), four);
    expect(killed).toMatchObject({
      state: 'interrupted',
      resume: 'hyperagents generate-loop --resume /runs/r',
    });
  });

  it('takes the budget a control set over the configured one', () => {
    const h = health(run('running'), four, [event(1, 'control', { action: 'budget', value: 5 })]);
    expect(h.budgetUsd).toBe(5);
  });
});
