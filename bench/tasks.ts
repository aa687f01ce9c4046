import { loadArithmetic } from '../domains/arithmetic/index.ts';
import type { Task } from '../domains/index.ts';

/** `count` tasks cycled from every split of arithmetic, each with an id of its own; `distinct`: one cycle. */
export function benchTasks(count: number): { tasks: Task[]; distinct: Task[] } {
  const distinct = [...loadArithmetic('train'), ...loadArithmetic('val'), ...loadArithmetic('test')];
  const tasks = Array.from({ length: count }, (_, i) => {
    const task = distinct[i % distinct.length]!;
    return { ...task, id: `${task.id}-${Math.floor(i / distinct.length)}` };
  });
  return { tasks, distinct };
}

/** The middle value, the upper of the two for an even count; 0 for none. */
export function upperMedian(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
}
