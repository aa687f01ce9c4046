import { hashString } from '../system/rng.ts';
import type { Split } from './define-domain.ts';

/** A stable split from a task's key: 60% train, 20% val, 20% test, the same on every machine. */
export function hashSplit(key: string): Split {
  const bucket = hashString(`split:${key}`) % 10;
  return bucket < 6 ? 'train' : bucket < 8 ? 'val' : 'test';
}

/** Groups items by split; a split that ends up empty is left out, and train is never missing. */
export function groupBySplit<T>(items: readonly T[], splitOf: (item: T) => Split): Map<Split, T[]> {
  const groups = new Map<Split, T[]>();
  for (const item of items) {
    const split = splitOf(item);
    groups.set(split, [...(groups.get(split) ?? []), item]);
  }
  if (!groups.has('train') && items.length > 0) return new Map([['train', [...items]]]);
  return groups;
}
