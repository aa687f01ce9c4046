import type { AcceptanceView } from '../../archive/index.ts';
import { fmtScore } from '../shared/text-table.ts';

/**
 * A child stopped early as worse: its score is an estimate from the tasks used. (One decided better was
 * evaluated on its whole selection split, so only its other splits' scores are estimates: see fmtSplitScore.)
 */
export const isEstimate = (a: AcceptanceView | null): boolean => a?.decision === 'worse';

/** A score as the lists show it: `~0.620` when it is an estimate (see isEstimate). Pure. */
export const fmtAcceptedScore = (score: number | null | undefined, a: AcceptanceView | null): string =>
  `${isEstimate(a) && score !== null && score !== undefined ? '~' : ''}${fmtScore(score)}`;

/** A split's score as the tables show it: `~` marks one a child stopped early was evaluated on part of. Pure. */
export const fmtSplitScore = (
  s: { score: number; nTasks: number; nTotal: number } | undefined,
  a: AcceptanceView | null,
): string =>
  s === undefined
    ? fmtScore(undefined)
    : `${a !== null && s.nTasks < s.nTotal ? '~' : ''}${fmtScore(s.score)}`;

/** The `accepted` column: `better 20/80`, `worse 36/80`, `undecided 80/80`; `-` when evaluated in full. Pure. */
export const acceptanceCell = (a: AcceptanceView | null): string =>
  a === null ? '-' : `${a.decision} ${a.tasks}/${a.of}`;

/** What `archive list` says under a table with an `accepted` column. */
export const ACCEPTANCE_LEGEND =
  'accepted: the child decided against its parent (--accept sequential) on the tasks used of all; ' +
  '~: an estimate from those tasks (a child stopped early, its answer known; one decided better has its ' +
  'whole validation split). See docs/acceptance.md.';

/** The line of `archive show` about how a child was decided against its parent. Pure. */
export function acceptanceLine(a: AcceptanceView | null): string[] {
  if (a === null) return [];
  const what =
    a.decision === 'better'
      ? `better than variant ${a.parentId}${a.tasks < a.of ? ', stopped there but for its selection split: its other scores (~) are estimates' : ''}`
      : a.decision === 'worse'
        ? `worse than variant ${a.parentId}, stopped early: its scores (~) are estimates from the tasks used`
        : `undecided against variant ${a.parentId}: every task used without a decision`;
  return [
    `acceptance: ${what} (evidence ${a.evidence.toPrecision(3)}, futility ${a.futility.toPrecision(3)}; ` +
      `${a.tasks} of ${a.of} tasks, ${a.paired} paired with the parent's)`,
  ];
}
