import { describe, expect, it } from 'vitest';
import { signTest } from '../../src/stats/sign-test.js';

describe('signTest', () => {
  it("the chapter's comparison: one fixed, one broken → p = 1.00", () => {
    // scipy.stats.binomtest(1, 2, 0.5).pvalue = 1.0
    expect(signTest([0, 0, 0, 0, 0, 0, -0.8, 0, 0, 0, 0, 1])).toEqual({
      positive: 1,
      negative: 1,
      zero: 10,
      nonZero: 2,
      p: 1,
      method: 'exact-sign-test',
    });
    // one seed: -1 for gq-008, +1 for gq-020
    expect(signTest([0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1]).p).toBe(1);
  });

  it('matches scipy.stats.binomtest for lopsided counts', () => {
    // scipy.stats.binomtest(2, 12, 0.5).pvalue = 0.03857421875
    expect(signTest([...Array(10).fill(-1), 1, 1]).p).toBeCloseTo(0.03857421875, 10);
    // scipy.stats.binomtest(0, 12, 0.5).pvalue = 0.00048828125
    expect(signTest(Array(12).fill(0.2)).p).toBeCloseTo(0.00048828125, 12);
    // scipy.stats.binomtest(3, 10, 0.5).pvalue = 0.34375
    expect(signTest([1, 1, 1, ...Array(7).fill(-0.5)]).p).toBeCloseTo(0.34375, 10);
    // scipy.stats.binomtest(40, 100, 0.5).pvalue = 0.05688793364098089
    expect(signTest([...Array(40).fill(1), ...Array(60).fill(-1)]).p).toBeCloseTo(0.05688793364098089, 8);
  });

  it('keeps relative precision for tiny p-values', () => {
    // scipy.stats.binomtest(100, 300, 0.5).pvalue = 8.014875216538921e-09
    const p = signTest([...Array(100).fill(1), ...Array(200).fill(-1)]).p;
    expect(Math.abs(p / 8.014875216538921e-9 - 1)).toBeLessThan(1e-6);
  });

  it('no non-zero value → p = 1; empty input → p = 1', () => {
    expect(signTest([0, 0, 0])).toMatchObject({ nonZero: 0, p: 1 });
    expect(signTest([])).toMatchObject({ nonZero: 0, zero: 0, p: 1 });
  });

  it('one non-zero value → p = 1 (scipy.stats.binomtest(0, 1).pvalue = 1.0)', () => {
    expect(signTest([-1]).p).toBe(1);
  });

  it('rejects non-finite values', () => {
    expect(() => signTest([Number.POSITIVE_INFINITY])).toThrow(RangeError);
  });
});
