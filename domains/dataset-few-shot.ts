import type { DatasetTask } from './dataset-tasks.ts';
import type { Split } from './define-domain.ts';

/** A message for the user, where a dataset's configuration does not fit its file. */
type Refused = { ok: false; message: string };

/**
 * Each task's prompt after `n` solved examples from the train split, the first ones in file order that
 * are not the task itself; val and test rows are never examples. Too few train rows is a message.
 */
export function withFewShot(
  file: string,
  placed: { task: DatasetTask; split: Split; example?: string }[],
  n: number,
): Refused | null {
  if (n === 0) return null;
  const train = placed.filter((p) => p.split === 'train');
  if (train.length < n + 1)
    return {
      ok: false,
      message: `${file}: --few-shot ${n} takes its examples from the train split, which has ${train.length} task${train.length === 1 ? '' : 's'}; ${train.length <= 1 ? 'give a train split (a split field, or a train file in the folder)' : `use --few-shot ${train.length - 1} or fewer`}.`,
    };
  for (const p of placed) {
    const examples = train
      .filter((t) => t.task.id !== p.task.id)
      .slice(0, n)
      .map((t) => t.example!);
    p.task.input = { prompt: [...examples, String(p.task.input.prompt)].join('\n\n') };
  }
  return null;
}
