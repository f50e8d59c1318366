import { describe, expect, it } from 'vitest';
import { brierScore } from '../../src/stats/brier.js';

describe('brierScore', () => {
  it('matches the scikit-learn documentation example', () => {
    // sklearn.metrics.brier_score_loss([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3]) = 0.037...
    // numpy: ((p - y) ** 2).mean() = 0.03749999999999999
    expect(brierScore([0.1, 0.9, 0.8, 0.3], [false, true, true, false])).toBeCloseTo(0.0375, 14);
  });

  it('a constant 0.5 scores 0.25; a perfect forecast 0', () => {
    expect(brierScore([0.5, 0.5, 0.5], [true, false, true])).toBe(0.25);
    expect(brierScore([1, 0], [true, false])).toBe(0);
  });

  it('no items → undefined, never NaN', () => {
    expect(brierScore([], [])).toBeUndefined();
  });

  it('rejects probabilities outside [0, 1]', () => {
    expect(() => brierScore([-0.1], [false])).toThrow(RangeError);
    expect(() => brierScore([0.1], [false, true])).toThrow(RangeError);
  });
});
