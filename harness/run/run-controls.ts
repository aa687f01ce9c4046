import { setTimeout as sleep } from 'node:timers/promises';
import type { Archive } from '../../archive/index.ts';
import { CONTROL_EVENT, type Control, carriedControls } from '../../archive/index.ts';
import type { RunContext } from '../generation/index.ts';

export { CONTROL_ACTIONS, CONTROL_EVENT, Control, recordControl } from '../../archive/index.ts';

/** Where the controls a run was given since it (re)started leave it. */
export interface ControlState {
  paused: boolean;
  stopAfter: boolean;
  /** The budget a `budget` control set, in USD of the whole run's spend; null when none did. */
  budgetUsd: number | null;
}

/** The state after `controls`, in order, from `state`. Pure. */
export function applyControls(state: ControlState, controls: readonly Control[]): ControlState {
  let next = state;
  for (const c of controls) {
    switch (c.action) {
      case 'pause':
        next = { ...next, paused: true };
        break;
      case 'resume':
        next = { ...next, paused: false };
        break;
      case 'stop-after':
        next = { ...next, stopAfter: true };
        break;
      case 'budget':
        next = { ...next, budgetUsd: c.value };
        break;
      case 'note':
        break;
    }
  }
  return next;
}

export const NO_CONTROLS: ControlState = { paused: false, stopAfter: false, budgetUsd: null };

/**
 * The controls of a running run, read from its archive: those recorded after event `afterId` (the run's
 * start, or its resume) apply to `initial` (what a resumed run carries over, see carriedControls). `poll`
 * reads what came since the last poll and calls `onBudget` when a `budget` control changed the budget.
 */
export function watchControls(
  archive: Pick<Archive, 'eventsOf'>,
  afterId: number,
  onBudget: (usd: number) => void,
  initial: ControlState = NO_CONTROLS,
) {
  let last = afterId;
  let state: ControlState = initial;
  return {
    poll(): ControlState {
      const events = archive.eventsOf([CONTROL_EVENT], last);
      last = events.at(-1)?.id ?? last;
      const controls = events.map((e) => e.data);
      const before = state.budgetUsd;
      state = applyControls(state, controls);
      if (state.budgetUsd !== null && state.budgetUsd !== before) onBudget(state.budgetUsd);
      return state;
    },
    state: (): ControlState => state,
  };
}

export type ControlWatch = ReturnType<typeof watchControls>;

/**
 * What a resumed run keeps of the controls it was given before: a pause, and a `budget` control's budget
 * unless this resume's --budget-usd changed the run's budget (the newer word wins). A `stop-after` is done.
 */
export function carriedOver(archive: Archive, budgetUsd: number | null): ControlState {
  const stored = (archive.getRun()?.config as { budgetUsd?: unknown } | undefined)?.budgetUsd ?? null;
  const carried = carriedControls(archive.eventsOf([CONTROL_EVENT]));
  const flagChanged = budgetUsd !== stored;
  return {
    paused: carried.paused,
    stopAfter: false,
    budgetUsd: flagChanged ? null : carried.budgetUsd,
  };
}

/** A `budget` control set the budget at or below what the run has spent: it stops as at the budget. */
export const overBudget = (budgetUsd: number | null, spentUsd: number): boolean =>
  budgetUsd !== null && spentUsd >= budgetUsd;

/** How often a paused run looks for `resume` (and `stop-after`, an interrupt) in its archive. */
const PAUSE_POLL_MS = 250;

/** Waits while the run is paused (`hyperagents control RUN pause`), until resumed or stopping. */
export async function whilePaused(
  ctx: RunContext,
  controls: ControlWatch,
  stopping: () => boolean,
): Promise<void> {
  if (!controls.poll().paused) return;
  ctx.progress('paused: no new generation starts until `hyperagents control RUN resume`');
  while (controls.poll().paused && !stopping()) {
    await sleep(PAUSE_POLL_MS, undefined, { signal: ctx.signal }).catch(() => undefined);
  }
  if (!stopping()) ctx.progress('resumed: generations start again');
}

/** How a run stopped by `hyperagents control RUN stop-after` reads in its summary. */
export const STOPPED_AFTER = 'stopped when asked (stop-after): the generations under way finished';
