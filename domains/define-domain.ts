import type { z } from 'zod';

export type Split = 'train' | 'val' | 'test';
export const ALL_SPLITS: readonly Split[] = ['train', 'val', 'test'];

/** One benchmark task. `answer` is the gold answer and never leaves the harness. */
export interface Task<Input = unknown, Answer = unknown> {
  id: string;
  input: Input;
  answer: Answer;
}

export interface DomainSpec<Input = unknown, Answer = unknown, Prediction = unknown> {
  name: string;
  description: string;
  splits: readonly Split[];
  /** Tasks of one split, in a stable order (staged evaluation takes a prefix). */
  load(split: Split): Task<Input, Answer>[] | Promise<Task<Input, Answer>[]>;
  /** Validates the `response` field the TaskAgent produced. */
  answerSchema: z.ZodType<Prediction>;
  /** Score in [0, 1] of a prediction that passed `answerSchema`. */
  score(prediction: Prediction, task: Task<Input, Answer>): number;
  /** Tasks per split evaluated before paying for the full evaluation. */
  stagedSamples?: number;
  /** A sentence sent to the TaskAgent with every task, about the expected answer's shape. */
  formatHint?: string;
}

export interface Domain<Input = unknown, Answer = unknown, Prediction = unknown>
  extends DomainSpec<Input, Answer, Prediction> {
  stagedSamples: number;
}

export const DEFAULT_STAGED_SAMPLES = 10;

export function defineDomain<Input, Answer, Prediction>(
  spec: DomainSpec<Input, Answer, Prediction>,
): Domain<Input, Answer, Prediction> {
  if (!/^[a-z][a-z0-9-]*$/.test(spec.name)) {
    throw new Error(`domain name "${spec.name}" must be lower-case letters, digits and dashes`);
  }
  if (spec.splits.length === 0) throw new Error(`domain ${spec.name} declares no splits`);
  return { ...spec, stagedSamples: spec.stagedSamples ?? DEFAULT_STAGED_SAMPLES };
}

/** The split parent selection ranks on: val where the domain has it, else train. */
export function selectionSplit(domain: Pick<Domain, 'splits'>): Split {
  return domain.splits.includes('val') ? 'val' : 'train';
}
