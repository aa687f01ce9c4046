import { describe, expect, it } from 'vitest';
import { domainOffset, meanPCorrect, optimum, pCorrect, pCorrectOf, phrasesIn, skill } from './landscape.ts';
import { breakRate, editCount, softmaxPick } from './meta-plan.ts';
import { INTERACTIONS, META_QUALITY, metaQuality, P_CORRECT_CEILING, TASK_PHRASES } from './phrases.ts';

const set = (...phrases: string[]) => new Set(phrases);
const TRIPLE = INTERACTIONS.find((i) => i.phrases.length === 3)!.phrases;

describe('task-side landscape', () => {
  it.each(['flat', 'inert'] as const)(
    'on the %s landscape gives every prompt the same P(correct), its domain offset',
    (landscape) => {
      const good = 'Think step by step. Double-check the arithmetic. Write down every intermediate quantity.';
      expect(pCorrect(good, 'arithmetic')).toBeGreaterThan(pCorrect('', 'arithmetic') + 0.1);
      expect(pCorrect(good, 'arithmetic', 'heldOut', landscape)).toBe(
        pCorrect('', 'arithmetic', 'heldOut', landscape),
      );
      expect(pCorrect(good, 'arithmetic', 'train', landscape)).toBe(pCorrectOf(set(), 'arithmetic'));
    },
  );

  it('gives every domain its own difficulty, fixed for names it does not know', () => {
    const base = (d: string) => pCorrectOf(set(), d);
    expect(new Set(['arithmetic', 'code', 'text'].map(base)).size).toBe(3);
    expect(base('dataset:a.csv')).not.toBe(base('dataset:b.csv'));
    expect(domainOffset('exercism:/x')).toBe(domainOffset('exercism:/x'));
    for (const d of ['arithmetic', 'code', 'text', 'dataset:a.csv', 'exercism:/x']) {
      expect(base(d)).toBeGreaterThan(0.1);
      expect(base(d)).toBeLessThan(0.5);
      expect(optimum([d]).pCorrect).toBeGreaterThan(base(d) + 0.2);
    }
  });

  it('has strategies that help one domain and hurt another', () => {
    const brief = set('keep the answer brief');
    expect(pCorrectOf(brief, 'text')).toBeGreaterThan(pCorrectOf(set(), 'text'));
    expect(pCorrectOf(brief, 'arithmetic')).toBeLessThan(pCorrectOf(set(), 'arithmetic'));
  });

  it('has a strategy set that pays off only whole: each part and each pair alone hurts', () => {
    const p = (...s: string[]) => pCorrectOf(set(...s), 'arithmetic');
    const none = p();
    for (const one of TRIPLE) expect(p(one)).toBeLessThan(none);
    expect(p(TRIPLE[0]!, TRIPLE[1]!)).toBeLessThan(none);
    expect(p(...TRIPLE)).toBeGreaterThan(none + 0.1);
    expect(optimum(['arithmetic']).phrases).toEqual(expect.arrayContaining([...TRIPLE]));
  });

  it('has diminishing returns: the same strategy adds less on top of a good prompt', () => {
    const good = [
      'think step by step',
      'write down every intermediate quantity',
      'double-check the arithmetic',
    ];
    const gainAlone =
      pCorrectOf(set('re-read the question before answering'), 'arithmetic') -
      pCorrectOf(set(), 'arithmetic');
    const withGood = set(...good, ...TRIPLE);
    const gainOnTop =
      pCorrectOf(set(...withGood, 're-read the question before answering'), 'arithmetic') -
      pCorrectOf(withGood, 'arithmetic');
    expect(gainOnTop).toBeLessThan(gainAlone);
    expect(optimum(['arithmetic']).pCorrect).toBeLessThan(P_CORRECT_CEILING);
  });

  it('charges for long prompts, so adding every helpful phrase is not the optimum', () => {
    const all = new Set(TASK_PHRASES.map((p) => p.phrase));
    expect(meanPCorrect(all, ['arithmetic'])).toBeLessThan(optimum(['arithmetic']).pCorrect - 0.2);
    expect(skill(set('re-read the question before answering'), 'arithmetic')).toBeCloseTo(0.2, 12);
  });

  it('lets overfitting strategies help on train and hurt on held-out splits', () => {
    const text = '- Reuse the answer of the most similar example.';
    expect(phrasesIn(text)).toEqual(set('reuse the answer of the most similar example'));
    expect(pCorrect(text, 'arithmetic', 'train')).toBeGreaterThan(pCorrect('', 'arithmetic', 'train'));
    expect(pCorrect(text, 'arithmetic', 'heldOut')).toBeLessThan(pCorrect('', 'arithmetic', 'heldOut'));
    expect(pCorrect(text, 'arithmetic', 'unknown')).toBe(pCorrect('', 'arithmetic', 'unknown'));
  });
});

describe('MetaAgent quality', () => {
  it('starts at the base and moves with good and harmful meta phrases, within its bounds', () => {
    expect(metaQuality('')).toBe(META_QUALITY.base);
    expect(metaQuality('- Ground every change in the failed train tasks.')).toBeCloseTo(
      META_QUALITY.base + 0.3,
      12,
    );
    expect(metaQuality('- Change as many lines as you can.')).toBeLessThan(META_QUALITY.base);
  });

  it.each([
    [0.3, 0.1715],
    [0.6, 0.056],
    [0.9, 0.0035],
  ])('breaks less as quality rises: q=%d → P(break)=%d', (q, p) => expect(breakRate(q)).toBeCloseTo(p, 10));

  it('makes more coherent edits as quality rises, monotone in q for the same draws', () => {
    const draws = [
      [0.05, 0.05],
      [0.3, 0.2],
      [0.7, 0.5],
    ] as const;
    for (const d of draws) {
      const counts = [0.3, 0.5, 0.7, 0.9].map((q) => editCount(q, d));
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
    }
    expect(editCount(0.3, [0.05, 0.05])).toBe(1);
    expect(editCount(0.9, [0.05, 0.05])).toBe(3);
  });

  it('picks by inverse CDF, so the same draw moves to a better option gradually as logits sharpen', () => {
    const options = [0, 1, 2, 3];
    expect(softmaxPick(options, () => 0, 0.6)).toBe(2);
    expect(softmaxPick(options, (o) => 10 * o, 0.6)).toBe(3);
    expect(softmaxPick([], () => 0, 0.5)).toBeUndefined();
  });
});
