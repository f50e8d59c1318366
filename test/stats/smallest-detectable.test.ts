import { describe, expect, it } from 'vitest';
import { smallestDetectable } from '../../src/stats/smallest-detectable.js';

describe('smallestDetectable', () => {
  it('12 questions → 4 of 12, a mean change of 0.33 (the chapter)', () => {
    // Check with SciPy: d = [1]*4 + [0]*8; scipy.stats.t.interval(0.95, 11, d.mean(), d.std(ddof=1)/sqrt(12))[0]
    //   = 0.020498924786929718 > 0, while 3 flips give -0.037356753096521644 < 0.
    const s = smallestDetectable(12);
    expect(s).toMatchObject({ kind: 'detectable', flips: 4, n: 12 });
    if (s.kind === 'detectable') expect(s.meanChange.toFixed(2)).toBe('0.33');
  });

  it('two questions need both to flip (zero variance interval [1, 1])', () => {
    // one flip of two: t.ppf(0.975, 1) = 12.706 × 0.5 → interval far across zero
    expect(smallestDetectable(2)).toMatchObject({ kind: 'detectable', flips: 2 });
  });

  it('one question: no interval, so nothing is detectable', () => {
    const s = smallestDetectable(1);
    expect(s.kind).toBe('none');
  });

  it('195 and 1034 questions also need 4 clean flips (a smaller mean change)', () => {
    // SciPy loop: smallest k with d = [1]*k + [0]*(n-k) and
    //   d.mean() - scipy.stats.t.ppf(0.975, n-1) * d.std(ddof=1) / sqrt(n) > 0
    //   → n = 195: k = 4 (lower bound 0.000441); n = 1034: k = 4 (lower bound 0.0000785)
    expect(smallestDetectable(195)).toMatchObject({ kind: 'detectable', flips: 4, n: 195 });
    expect(smallestDetectable(1034)).toMatchObject({ kind: 'detectable', flips: 4, n: 1034 });
  });

  it('rejects n < 1', () => {
    expect(() => smallestDetectable(0)).toThrow(RangeError);
  });
});
