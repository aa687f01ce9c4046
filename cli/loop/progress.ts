import type { RunEvent } from '../../harness/run/index.ts';

/** A variant under way, as the live block shows it. */
export interface InFlight {
  stage: string;
  step: string | null;
  /** Model calls of its MetaAgent so far: one per turn. */
  metaTurns: number;
  tasks: { done: number; total: number } | null;
  /** Attempts of its model calls that were tried again after the provider failed them. */
  retries: number;
  /** Its batches not yet collected (`--batch`), by id. */
  batches: ReadonlyMap<number, PendingBatch>;
}

/** A batch as the live block shows it: the provider's word for its state, requests done of total, since when. */
export interface PendingBatch {
  state: string;
  done: number;
  total: number;
  /** When it was submitted, ms since the epoch. */
  sinceMs: number;
}

export interface ProgressState {
  generations: number;
  /** Highest variant id started: the generation under way (0 is the initial agent). */
  latest: number;
  inFlight: ReadonlyMap<number, InFlight>;
  spentUsd: number;
  best: { id: number; score: number } | null;
}

export const INITIAL_PROGRESS: ProgressState = {
  generations: 0,
  latest: 0,
  inFlight: new Map(),
  spentUsd: 0,
  best: null,
};

/** The state after one event. Pure. */
export function applyEvent(state: ProgressState, event: RunEvent): ProgressState {
  const inFlight = new Map(state.inFlight);
  const update = (id: number, change: Partial<InFlight>): void => {
    const current = inFlight.get(id) ?? {
      stage: 'selected',
      step: null,
      metaTurns: 0,
      tasks: null,
      retries: 0,
      batches: new Map(),
    };
    inFlight.set(id, { ...current, ...change });
  };
  switch (event.type) {
    case 'run_started':
      return { ...state, generations: event.generations };
    case 'stage':
      if (event.stage === 'done' || event.stage === 'failed') inFlight.delete(event.variant);
      else update(event.variant, { stage: event.stage, step: null, tasks: null, batches: new Map() });
      return { ...state, inFlight, latest: Math.max(state.latest, event.variant) };
    case 'step':
      if (!inFlight.has(event.variant)) return state;
      update(event.variant, { step: event.step });
      return { ...state, inFlight };
    case 'tasks':
      if (!inFlight.has(event.variant)) return state;
      update(event.variant, { tasks: { done: event.done, total: event.total } });
      return { ...state, inFlight };
    case 'llm_call': {
      const spentUsd = state.spentUsd + event.costUsd;
      const id = event.variant;
      if (event.role !== 'meta' || id === null || !inFlight.has(id)) return { ...state, spentUsd };
      update(id, { metaTurns: (inFlight.get(id)?.metaTurns ?? 0) + 1 });
      return { ...state, inFlight, spentUsd };
    }
    case 'variant_done': {
      inFlight.delete(event.variant);
      const better = event.score !== null && (state.best === null || event.score > state.best.score);
      return { ...state, inFlight, best: better ? { id: event.variant, score: event.score! } : state.best };
    }
    case 'model_faults': {
      const id = event.variant;
      if (id === null || !inFlight.has(id)) return state;
      update(id, { retries: (inFlight.get(id)?.retries ?? 0) + event.retries });
      return { ...state, inFlight };
    }
    case 'batch': {
      const current = inFlight.get(event.variant);
      if (current === undefined) return state;
      const batches = new Map(current.batches);
      const { state: batchState, done, total, sinceMs } = event;
      if (event.state === 'ended') batches.delete(event.batch);
      else batches.set(event.batch, { state: batchState, done, total, sinceMs });
      update(event.variant, { batches });
      return { ...state, inFlight };
    }
    case 'model_failing':
    case 'model_answering':
      return state;
  }
}

/** `45s`, `4m10s`, `2h05m`: how long a batch has waited. Pure. */
export function waitedText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** `batch 312/798 in_progress, waiting 4m10s`, as of `nowMs`. Pure. */
export function batchText(b: PendingBatch, nowMs: number): string {
  return `batch ${b.done}/${b.total} ${b.state}, waiting ${waitedText((nowMs - b.sinceMs) / 1000)}`;
}

/** The line for a model that keeps failing, or answers again after it did; null for other events. Pure. */
export function healthLine(event: RunEvent): string | null {
  switch (event.type) {
    case 'model_failing':
      return `${event.model}: failing for ${Math.round(event.forMs / 1000)} s (${event.reason}), retrying`;
    case 'model_answering':
      return `${event.model}: answering again after ${Math.round(event.afterMs / 1000)} s of failures`;
    default:
      return null;
  }
}

function describe(v: InFlight, nowMs: number): string {
  const parts = [activity(v), ...[...v.batches.values()].map((b) => batchText(b, nowMs))];
  if (v.retries > 0) parts.push(`${v.retries} ${v.retries === 1 ? 'retry' : 'retries'}`);
  return parts.join(', ');
}

function activity(v: InFlight): string {
  const tasks = v.tasks === null ? '' : `, ${v.tasks.done}/${v.tasks.total} tasks`;
  switch (v.stage) {
    case 'editing':
      return v.step === 'committing the edit'
        ? 'committing the edit'
        : `MetaAgent editing${v.metaTurns > 0 ? `, turn ${v.metaTurns}` : ''}`;
    case 'gating':
      return `gate: ${v.step ?? 'checks'}`;
    case 'staged':
      return `staged evaluation${tasks}`;
    case 'full':
      return `full evaluation${tasks}`;
    default:
      return v.step ?? v.stage;
  }
}

/**
 * The live block: a summary line, then one line per variant under way, each cut to `width`; a pending batch's
 * wait is counted to `nowMs` (now by default).
 */
export function renderBlock(state: ProgressState, width: number, nowMs = Date.now()): string[] {
  const best = state.best === null ? '-' : `variant ${state.best.id} (${state.best.score.toFixed(3)})`;
  const head =
    `generation ${state.latest}/${state.generations} · ${state.inFlight.size} in flight · ` +
    `spent $${state.spentUsd.toFixed(4)} · best ${best}`;
  const rows = [...state.inFlight]
    .sort(([a], [b]) => a - b)
    .map(([id, v]) => `  variant ${id}${id === 0 ? ' (initial agent)' : ''}: ${describe(v, nowMs)}`);
  return [head, ...rows].map((line) => (line.length > width ? `${line.slice(0, width - 1)}…` : line));
}

const REDRAW_MS = 100;
/** How often the live block is redrawn while a batch is pending, so its wait counts on between polls. */
const BATCH_TICK_MS = 1_000;

const anyBatchPending = (state: ProgressState): boolean =>
  [...state.inFlight.values()].some((v) => v.batches.size > 0);

/**
 * Off a terminal, a batch's line when its state changes (submitted, in progress, ended), not at every poll:
 * `variant 3: batch 0/798 submitted, waiting 0s`. `seen` holds the last state printed per batch.
 */
function batchLine(event: Extract<RunEvent, { type: 'batch' }>, seen: Map<number, string>): string | null {
  if (seen.get(event.batch) === event.state) return null;
  seen.set(event.batch, event.state);
  const text = batchText(event, event.sinceMs + event.waitedSec * 1000);
  return `variant ${event.variant}: ${text}`;
}

/**
 * Progress on stderr. Lines are plain, so logs stay readable. On a terminal a live block below them shows
 * the run as it goes (generation, what each variant under way is doing, spend, best score), redrawn in
 * place; elsewhere the steps inside a generation are plain lines too. `quiet`: nothing at all.
 */
export function createProgress(stream: NodeJS.WriteStream, quiet: boolean) {
  const live = stream.isTTY === true && !quiet;
  let state = INITIAL_PROGRESS;
  let drawn = 0;
  let status = '';
  let timer: NodeJS.Timeout | null = null;
  let ticker: NodeJS.Timeout | null = null;
  const printedBatches = new Map<number, string>();
  const tick = (): void => {
    const pending = anyBatchPending(state);
    if (pending && ticker === null) {
      ticker = setInterval(draw, BATCH_TICK_MS);
      ticker.unref();
    } else if (!pending && ticker !== null) {
      clearInterval(ticker);
      ticker = null;
    }
  };
  const erase = (): void => {
    if (drawn === 0) return;
    stream.write(`\r${drawn > 1 ? `\x1b[${drawn - 1}A` : ''}\x1b[J`);
    drawn = 0;
  };
  const draw = (): void => {
    const width = Math.max(20, (stream.columns || 100) - 1);
    const lines = state.generations > 0 ? renderBlock(state, width) : status === '' ? [] : [status];
    erase();
    if (lines.length === 0) return;
    stream.write(lines.join('\n'));
    drawn = lines.length;
  };
  const redrawSoon = (): void => {
    if (timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      draw();
    }, REDRAW_MS);
    timer.unref();
  };
  const line = (text: string): void => {
    if (quiet) return;
    erase();
    stream.write(`${text}\n`);
    if (live) draw();
  };
  return {
    line,
    /** A transient status line, for runs that report no events. */
    status(text: string): void {
      if (!live) return;
      status = text.slice(0, Math.max(20, (stream.columns || 100) - 1));
      redrawSoon();
    },
    event(event: RunEvent): void {
      if (quiet) return;
      const health = healthLine(event);
      if (health !== null) {
        line(health);
        return;
      }
      state = applyEvent(state, event);
      if (live) {
        redrawSoon();
        tick();
      } else if (event.type === 'step') stream.write(`variant ${event.variant}: ${event.step}\n`);
      else if (event.type === 'batch') {
        const text = batchLine(event, printedBatches);
        if (text !== null) stream.write(`${text}\n`);
      }
    },
    done(): void {
      if (timer !== null) clearTimeout(timer);
      if (ticker !== null) clearInterval(ticker);
      timer = null;
      ticker = null;
      erase();
      status = '';
    },
  };
}
