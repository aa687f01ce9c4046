import type { Archive } from './archive.ts';
import { type ArchiveEvent, CONTROL_EVENT, type Control } from './event-kinds.ts';

export { CONTROL_ACTIONS, CONTROL_EVENT, Control } from './event-kinds.ts';

/** The notes (`note` controls) among a run's events, oldest first, with when each was given. Pure. */
export function notesOf(
  events: readonly ArchiveEvent<typeof CONTROL_EVENT>[],
): { ts: string; text: string }[] {
  const notes: { ts: string; text: string }[] = [];
  for (const { ts, data } of events) if (data.action === 'note') notes.push({ ts, text: data.value });
  return notes;
}

/**
 * Records a control in the run's archive, where the process running it reads it (the CLI's
 * `hyperagents control` and the browser's buttons both write it here).
 */
export function recordControl(archive: Pick<Archive, 'recordEvent'>, control: Control): void {
  archive.recordEvent(null, CONTROL_EVENT, control);
}

/**
 * What the controls a run was given before a resume leave in force for the resumed process: a pause (the run
 * stays paused until `resume`) and a budget set by `budget`. A `stop-after` is done once the run stopped:
 * `--resume` is the ask to go on, so it does not carry over. Pure.
 */
export function carriedControls(events: readonly ArchiveEvent<typeof CONTROL_EVENT>[]): {
  paused: boolean;
  budgetUsd: number | null;
} {
  let paused = false;
  let budgetUsd: number | null = null;
  for (const { data: c } of events) {
    if (c.action === 'pause') paused = true;
    if (c.action === 'resume') paused = false;
    if (c.action === 'budget') budgetUsd = c.value;
  }
  return { paused, budgetUsd };
}

/** What a run does with a control, said back to whoever sent it; `resumeBy` says how a pause is lifted. */
export function controlMessage(id: string, control: Control, resumeBy: string): string {
  switch (control.action) {
    case 'pause':
      return `run ${id}: paused; no new generation starts until ${resumeBy}`;
    case 'resume':
      return `run ${id}: resumed; generations start again`;
    case 'stop-after':
      return `run ${id}: the generations under way finish, then the run stops (it can be resumed)`;
    case 'budget':
      return `run ${id}: the budget is now $${control.value.toFixed(4)} for the whole run`;
    case 'note':
      return `run ${id}: note recorded; the next MetaAgent reads it in notes.md`;
  }
}
