/** How many ids a message names before it counts the rest. */
const NAMED = 5;

const listed = (ids: readonly string[]): string =>
  ids.length <= NAMED ? ids.join(', ') : `${ids.slice(0, NAMED).join(', ')} and ${ids.length - NAMED} more`;

/**
 * What an answers file's ids say against the domain's task ids: `refused` (the ids that match no task,
 * named, with what task ids look like and, for an id that is the end of one, the id it likely meant), or the
 * number of tasks no answer names (0: every task has one). Pure.
 */
export function matchAnswerIds(
  answerIds: readonly string[],
  taskIds: readonly string[],
): { kind: 'refused'; message: string } | { kind: 'matched'; unanswered: number } {
  const tasks = new Set(taskIds);
  const unknown = answerIds.filter((id) => !tasks.has(id));
  if (unknown.length === 0) {
    const answered = new Set(answerIds);
    return { kind: 'matched', unanswered: taskIds.filter((id) => !answered.has(id)).length };
  }
  const meant = unknown
    .map((id) => [id, taskIds.find((t) => t.endsWith(`/${id}`))] as const)
    .filter((pair): pair is readonly [string, string] => pair[1] !== undefined);
  const hint =
    meant.length === 0
      ? ''
      : ` Did you mean ${listed(meant.map(([id, t]) => `${t} for ${id}`))}? An exercism: task's id starts with its language.`;
  const whose =
    unknown.length === answerIds.length
      ? `none of its ${answerIds.length} ids is the id of a task`
      : `${unknown.length} of its ${answerIds.length} ids are the id of no task`;
  return {
    kind: 'refused',
    message:
      `${whose}: ${listed(unknown)}. The domain's task ids look like ${taskIds.slice(0, 3).join(', ')} ` +
      `(${taskIds.length} in all).${hint}`,
  };
}
