import type { ArchiveEvent, RunView, VariantView } from '../archive/index.ts';
import type { RunHealth } from './health.ts';

/** The event generate-loop records with the estimate it printed before the run (and each resume) started. */
export const ESTIMATE_EVENT = 'estimate' as const;

interface Range {
  low: number;
  high: number;
}

/** An estimate as recorded: a range, or one expected figure (low = high). */
export interface RecordedEstimate {
  ts: string;
  /** Made at a resume, for the generations left then. */
  resumed: boolean;
  generations: number;
  calls: Range;
  usd: Range;
  seconds: Range;
  /** The run whose rates gave one expected figure; null: a range from assumptions. */
  from: string | null;
  /** What the run had spent before it (a resumed run). */
  spentUsd: number;
  lines: string[];
}

export interface Figures {
  calls: number;
  usd: number;
  seconds: number;
}

/** What a run was expected to take against what it took, and where its pace leads. */
export interface EstimateAgainstRun {
  /** Oldest first: the one at the start, then one per resume. Empty: none recorded (a replay, an older run). */
  estimates: RecordedEstimate[];
  /** Model calls, cost and seconds from the run's start to its end (or to now, or its last activity). */
  actual: Figures;
  /** The actual figures plus what is left at the current pace (see RunHealth.estimate); null: nothing left. */
  projected: Figures | null;
}

const recorded = ({ ts, data }: ArchiveEvent<typeof ESTIMATE_EVENT>): RecordedEstimate => ({ ts, ...data });

/**
 * The run's recorded estimates beside its calls, cost and time so far, and the projection to its end: what
 * has been done plus the generations left at the pace so far (their mean calls and cost, and health's hours).
 * Pure.
 */
export function estimateAgainstRun(input: {
  run: RunView;
  variants: readonly VariantView[];
  health: RunHealth;
  /** The run's ESTIMATE_EVENT events, oldest first. */
  events: readonly ArchiveEvent<typeof ESTIMATE_EVENT>[];
  lastActivityAt: string | null;
  now: number;
}): EstimateAgainstRun {
  const { run, health } = input;
  const end =
    run.state === 'running' ? input.now : Date.parse(run.finishedAt ?? input.lastActivityAt ?? run.createdAt);
  const actual = {
    calls: run.llmCalls,
    usd: run.costUsd,
    seconds: Math.max(0, (end - Date.parse(run.createdAt)) / 1000),
  };
  const ended = input.variants.filter((v) => v.id !== 0 && v.outcome !== 'in_progress');
  const left = health.estimate;
  const callsEach = ended.length === 0 ? 0 : ended.reduce((n, v) => n + v.llmCalls, 0) / ended.length;
  return {
    estimates: input.events.map(recorded),
    actual,
    projected:
      left === null
        ? null
        : {
            calls: Math.round(actual.calls + callsEach * left.generations),
            usd: actual.usd + left.costUsd,
            seconds: actual.seconds + left.hours * 3600,
          },
  };
}
