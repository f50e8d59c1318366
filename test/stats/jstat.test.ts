import { describe, expect, it } from 'vitest';
import { normalQuantile, regularizedIncompleteBeta, studentTQuantile } from '../../src/stats/jstat.js';

describe('jstat wrapper', () => {
  it('normalQuantile', () => {
    // scipy.stats.norm.ppf(0.975) = 1.959963984540054
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 12);
    expect(() => normalQuantile(0)).toThrow(RangeError);
  });
  it('studentTQuantile', () => {
    // scipy.stats.t.ppf(0.975, 11) = 2.200985160082949
    expect(studentTQuantile(0.975, 11)).toBeCloseTo(2.200985160082949, 7);
  });
  it('regularizedIncompleteBeta', () => {
    // scipy.special.betainc(10, 3, 0.5) = 0.019287109375
    expect(regularizedIncompleteBeta(0.5, 10, 3)).toBeCloseTo(0.019287109375, 10);
    expect(regularizedIncompleteBeta(0, 2, 3)).toBe(0);
    expect(regularizedIncompleteBeta(1, 2, 3)).toBe(1);
    expect(() => regularizedIncompleteBeta(1.5, 2, 3)).toThrow(RangeError);
    expect(() => regularizedIncompleteBeta(0.5, 0, 3)).toThrow(RangeError);
  });
});
