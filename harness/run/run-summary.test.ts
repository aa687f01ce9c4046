import { describe, expect, it } from 'vitest';
import { noiseMark } from './run-summary.ts';

describe("the progress line's noise mark", () => {
  it('says whether the best child gains more over variant 0 than the noise floor', () => {
    expect(noiseMark(0.1, 0.5, { id: 3, score: 0.55 })).toBe(', best within it');
    expect(noiseMark(0.1, 0.5, { id: 3, score: 0.65 })).toBe(', best beyond it');
    // Nothing to say while variant 0 is the best, or before it has a score.
    expect(noiseMark(0.1, 0.5, { id: 0, score: 0.5 })).toBe('');
    expect(noiseMark(0.1, null, { id: 3, score: 0.65 })).toBe('');
  });
});
