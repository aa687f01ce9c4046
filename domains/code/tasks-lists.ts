import type { CodeTask } from './task-spec.ts';

export const LIST_TASKS: readonly CodeTask[] = [
  {
    name: 'chunk-list',
    lang: 'js',
    fn: 'chunk',
    instructions:
      'Split an array into chunks of `size` (the last may be shorter). `chunk([1, 2, 3, 4, 5], 2)` is `[[1, 2], [3, 4], [5]]`.',
    signature: '(items, size)',
    cases: [
      ['chunk([1, 2, 3, 4, 5], 2)', '[[1, 2], [3, 4], [5]]'],
      ['chunk([], 3)', '[]'],
      ['chunk([1, 2], 5)', '[[1, 2]]'],
    ],
    solution:
      'const out = [];\n  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));\n  return out;',
  },
  {
    name: 'flatten-deep',
    lang: 'ts',
    fn: 'flattenDeep',
    instructions:
      'Flatten arbitrarily nested arrays into one array, dropping `null` and `undefined`. `flattenDeep([1, [2, [3, null]], 4])` is `[1, 2, 3, 4]`.',
    signature: '(items: unknown[]): unknown[]',
    cases: [
      ['flattenDeep([1, [2, [3, null]], 4])', '[1, 2, 3, 4]'],
      ['flattenDeep([])', '[]'],
      ['flattenDeep([[[["a"]]], undefined])', '["a"]'],
    ],
    solution:
      'return items.flatMap((x) => (Array.isArray(x) ? flattenDeep(x) : x === null || x === undefined ? [] : [x]));',
  },
  {
    name: 'unique-in-order',
    lang: 'js',
    fn: 'uniqueInOrder',
    instructions:
      'Keep the first occurrence of each value of an array, in order. `uniqueInOrder([3, 1, 3, 2, 1])` is `[3, 1, 2]`.',
    signature: '(items)',
    cases: [
      ['uniqueInOrder([3, 1, 3, 2, 1])', '[3, 1, 2]'],
      ['uniqueInOrder([])', '[]'],
      ['uniqueInOrder(["a", "A", "a"])', '["a", "A"]'],
    ],
    solution: 'return [...new Set(items)];',
  },
  {
    name: 'rotate-list',
    lang: 'ts',
    fn: 'rotate',
    instructions:
      'Rotate an array right by k places (k may be negative or larger than the length). `rotate([1, 2, 3, 4], 1)` is `[4, 1, 2, 3]`.',
    signature: '<T>(items: T[], k: number): T[]',
    cases: [
      ['rotate([1, 2, 3, 4], 1)', '[4, 1, 2, 3]'],
      ['rotate([1, 2, 3], -1)', '[2, 3, 1]'],
      ['rotate([1, 2, 3], 7)', '[3, 1, 2]'],
      ['rotate([], 3)', '[]'],
    ],
    solution:
      'if (items.length === 0) return [];\n  const s = ((k % items.length) + items.length) % items.length;\n  return [...items.slice(items.length - s), ...items.slice(0, items.length - s)];',
  },
  {
    name: 'pairwise-sum',
    lang: 'js',
    fn: 'twoSum',
    instructions:
      'Return the indices `[i, j]` (i < j) of the first pair, in order of j then i, whose values add up to `target`, or `null`. `twoSum([2, 7, 11, 15], 9)` is `[0, 1]`.',
    signature: '(numbers, target)',
    cases: [
      ['twoSum([2, 7, 11, 15], 9)', '[0, 1]'],
      ['twoSum([3, 2, 4], 6)', '[1, 2]'],
      ['twoSum([1, 2], 7)', 'null'],
    ],
    solution:
      'for (let j = 0; j < numbers.length; j++) {\n    for (let i = 0; i < j; i++) if (numbers[i] + numbers[j] === target) return [i, j];\n  }\n  return null;',
  },
  {
    name: 'group-by-length',
    lang: 'ts',
    fn: 'groupByLength',
    instructions:
      'Group words by their length: an object from length to the words of that length, in input order. `groupByLength(["a", "bb", "c"])` is `{ 1: ["a", "c"], 2: ["bb"] }`.',
    signature: '(words: string[]): Record<number, string[]>',
    cases: [
      ['groupByLength(["a", "bb", "c"])', '{ 1: ["a", "c"], 2: ["bb"] }'],
      ['groupByLength([])', '{}'],
    ],
    solution:
      'const out: Record<number, string[]> = {};\n  for (const w of words) (out[w.length] ??= []).push(w);\n  return out;',
  },
  {
    name: 'running-total',
    lang: 'js',
    fn: 'runningTotal',
    instructions:
      'Return the running totals of an array of numbers. `runningTotal([1, 2, 3])` is `[1, 3, 6]`.',
    signature: '(numbers)',
    cases: [
      ['runningTotal([1, 2, 3])', '[1, 3, 6]'],
      ['runningTotal([])', '[]'],
      ['runningTotal([5, -5, 2])', '[5, 0, 2]'],
    ],
    solution: 'let sum = 0;\n  return numbers.map((n) => (sum += n));',
  },
  {
    name: 'matrix-transpose',
    lang: 'ts',
    fn: 'transpose',
    instructions:
      'Transpose a rectangular matrix given as an array of rows. `transpose([[1, 2, 3], [4, 5, 6]])` is `[[1, 4], [2, 5], [3, 6]]`.',
    signature: '(rows: number[][]): number[][]',
    cases: [
      ['transpose([[1, 2, 3], [4, 5, 6]])', '[[1, 4], [2, 5], [3, 6]]'],
      ['transpose([])', '[]'],
      ['transpose([[7]])', '[[7]]'],
    ],
    solution: 'return rows.length === 0 ? [] : rows[0]!.map((_, c) => rows.map((r) => r[c]!));',
  },
  {
    name: 'merge-sorted',
    lang: 'js',
    fn: 'mergeSorted',
    instructions:
      'Merge two ascending arrays of numbers into one ascending array. `mergeSorted([1, 4], [2, 3, 5])` is `[1, 2, 3, 4, 5]`.',
    signature: '(a, b)',
    cases: [
      ['mergeSorted([1, 4], [2, 3, 5])', '[1, 2, 3, 4, 5]'],
      ['mergeSorted([], [1])', '[1]'],
      ['mergeSorted([2, 2], [2])', '[2, 2, 2]'],
    ],
    solution:
      'const out = [];\n  let i = 0;\n  let j = 0;\n  while (i < a.length || j < b.length) out.push(j >= b.length || (i < a.length && a[i] <= b[j]) ? a[i++] : b[j++]);\n  return out;',
  },
  {
    name: 'max-subarray',
    lang: 'ts',
    fn: 'maxSubarraySum',
    instructions:
      'Return the largest sum of a non-empty contiguous run of an array of numbers (the array is non-empty). `maxSubarraySum([-2, 1, -3, 4, -1, 2, 1, -5, 4])` is 6.',
    signature: '(numbers: number[]): number',
    cases: [
      ['maxSubarraySum([-2, 1, -3, 4, -1, 2, 1, -5, 4])', '6'],
      ['maxSubarraySum([-3, -1, -2])', '-1'],
      ['maxSubarraySum([5])', '5'],
    ],
    solution:
      'let best = numbers[0]!;\n  let here = 0;\n  for (const n of numbers) {\n    here = Math.max(n, here + n);\n    best = Math.max(best, here);\n  }\n  return best;',
  },
  {
    name: 'count-islands',
    lang: 'js',
    fn: 'countIslands',
    instructions:
      'Count the islands in a grid of strings where "#" is land and "." is water; land cells touching up, down, left or right belong to one island. `countIslands(["#.#", "##."])` is 2.',
    signature: '(grid)',
    cases: [
      ['countIslands(["#.#", "##."])', '2'],
      ['countIslands([])', '0'],
      ['countIslands(["...", ".#.", "..."])', '1'],
      ['countIslands(["#.#.#"])', '3'],
    ],
    solution:
      "const seen = new Set();\n  let count = 0;\n  const sink = (r, c) => {\n    if (grid[r]?.[c] !== '#' || seen.has(r + ',' + c)) return;\n    seen.add(r + ',' + c);\n    sink(r + 1, c);\n    sink(r - 1, c);\n    sink(r, c + 1);\n    sink(r, c - 1);\n  };\n  grid.forEach((row, r) => [...row].forEach((cell, c) => {\n    if (cell === '#' && !seen.has(r + ',' + c)) {\n      count++;\n      sink(r, c);\n    }\n  }));\n  return count;",
  },
  {
    name: 'zip-to-object',
    lang: 'ts',
    fn: 'zipObject',
    instructions:
      'Build an object from an array of keys and an array of values; extra keys get `null`, extra values are ignored. `zipObject(["a", "b"], [1])` is `{ a: 1, b: null }`.',
    signature: '(keys: string[], values: unknown[]): Record<string, unknown>',
    cases: [
      ['zipObject(["a", "b"], [1])', '{ a: 1, b: null }'],
      ['zipObject([], [1, 2])', '{}'],
      ['zipObject(["x"], ["y", "z"])', '{ x: "y" }'],
    ],
    solution: 'return Object.fromEntries(keys.map((k, i) => [k, i < values.length ? values[i] : null]));',
  },
  {
    name: 'second-largest',
    lang: 'js',
    fn: 'secondLargest',
    instructions:
      'Return the second largest distinct value of an array of numbers, or `null` when there is none. `secondLargest([4, 1, 4, 3])` is 3.',
    signature: '(numbers)',
    cases: [
      ['secondLargest([4, 1, 4, 3])', '3'],
      ['secondLargest([2, 2])', 'null'],
      ['secondLargest([])', 'null'],
      ['secondLargest([-1, -5])', '-5'],
    ],
    solution:
      'const distinct = [...new Set(numbers)].sort((a, b) => b - a);\n  return distinct.length < 2 ? null : distinct[1];',
  },
  {
    name: 'word-wrap',
    lang: 'ts',
    fn: 'wrap',
    instructions:
      'Wrap text into lines of at most `width` characters, breaking only at spaces and never splitting a word (a word longer than width gets its own line). Return the lines as an array. `wrap("the quick brown fox", 10)` is `["the quick", "brown fox"]`.',
    signature: '(text: string, width: number): string[]',
    cases: [
      ['wrap("the quick brown fox", 10)', '["the quick", "brown fox"]'],
      ['wrap("", 5)', '[]'],
      ['wrap("extraordinary day", 5)', '["extraordinary", "day"]'],
    ],
    solution:
      'const lines: string[] = [];\n  for (const word of text.split(/\\s+/).filter(Boolean)) {\n    const last = lines[lines.length - 1];\n    if (last !== undefined && last.length + 1 + word.length <= width) lines[lines.length - 1] = last + " " + word;\n    else lines.push(word);\n  }\n  return lines;',
  },
];
