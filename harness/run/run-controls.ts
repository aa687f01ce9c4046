import type { Archive } from '../../archive/archive.ts';
import { CONTROL_EVENT, Control } from '../../archive/controls.ts';

export { CONTROL_ACTIONS, CONTROL_EVENT, Control, recordControl } from '../../archive/controls.ts';

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
  archive: Pick<Archive, 'listEvents'>,
  afterId: number,
  onBudget: (usd: number) => void,
  initial: ControlState = NO_CONTROLS,
) {
  let last = afterId;
  let state: ControlState = initial;
  return {
    poll(): ControlState {
      const events = archive.listEvents(last);
      const controls: Control[] = [];
      for (const e of events) {
        last = Math.max(last, e.id);
        if (e.type !== CONTROL_EVENT) continue;
        const parsed = Control.safeParse(e.data);
        if (parsed.success) controls.push(parsed.data);
      }
      const before = state.budgetUsd;
      state = applyControls(state, controls);
      if (state.budgetUsd !== null && state.budgetUsd !== before) onBudget(state.budgetUsd);
      return state;
    },
    state: (): ControlState => state,
  };
}

export type ControlWatch = ReturnType<typeof watchControls>;
