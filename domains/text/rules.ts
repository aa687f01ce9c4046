import type { Rng } from '../../system/rng.ts';

/** One string transformation: what the puzzle says, and what it does. */
export interface Rule {
  text: string;
  apply(word: string): string;
}

const VOWELS = 'aeiou';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Rule makers; each draws its parameters from the seeded generator and the current word. */
const MAKERS: readonly ((rng: Rng, word: string) => Rule)[] = [
  () => ({ text: 'Reverse the string.', apply: (w) => [...w].reverse().join('') }),
  () => ({ text: 'Move the first character to the end.', apply: (w) => w.slice(1) + w.slice(0, 1) }),
  () => ({
    text: 'Swap the first and the last character.',
    apply: (w) => (w.length < 2 ? w : w.at(-1)! + w.slice(1, -1) + w[0]!),
  }),
  () => ({
    text: 'Write every vowel (a, e, i, o, u) twice.',
    apply: (w) => w.replace(/[aeiou]/g, (v) => v + v),
  }),
  (rng, word) => {
    const from = rng.pick([...new Set(word)].filter((c) => LETTERS.includes(c)));
    const to = rng.pick([...LETTERS].filter((c) => c !== from));
    return { text: `Replace every "${from}" with "${to}".`, apply: (w) => w.split(from).join(to) };
  },
  (rng, word) => {
    const gone = rng.pick([...new Set(word)]);
    return { text: `Delete every "${gone}".`, apply: (w) => w.split(gone).join('') };
  },
  () => ({
    text: 'Upper-case the characters in odd positions (the 1st, 3rd, 5th, ...).',
    apply: (w) => [...w].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c)).join(''),
  }),
  (rng) => {
    const n = rng.int(2, 4);
    return {
      text: `Insert "-" after the first ${n} characters (if there are that many).`,
      apply: (w) => (w.length >= n ? `${w.slice(0, n)}-${w.slice(n)}` : w),
    };
  },
  () => ({
    text: 'Replace every vowel with the next vowel in a, e, i, o, u (u becomes a).',
    apply: (w) => w.replace(/[aeiou]/g, (v) => VOWELS[(VOWELS.indexOf(v) + 1) % VOWELS.length]!),
  }),
  () => ({ text: "Append the string's length in digits.", apply: (w) => w + String(w.length) }),
];

/** Draws `count` rules, each made for the word as it will be when the rule applies. */
export function drawRules(rng: Rng, word: string, count: number): { rules: Rule[]; result: string } {
  const rules: Rule[] = [];
  let current = word;
  while (rules.length < count) {
    const rule = rng.pick(MAKERS)(rng, current);
    const next = rule.apply(current);
    if (next === current || next === '' || rules.some((r) => r.text === rule.text)) continue;
    rules.push(rule);
    current = next;
  }
  return { rules, result: current };
}
