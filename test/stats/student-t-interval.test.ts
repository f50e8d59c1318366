import { describe, expect, it } from 'vitest';
import { studentTQuantile } from '../../src/stats/jstat.js';
import { studentTInterval } from '../../src/stats/student-t-interval.js';

// The chapter's 12 per-question paired differences over 5 seeds: gq-008 4/5 → 0/5, gq-020 0/5 → 5/5.
const CHAPTER_DIFFERENCES = [0, 0, 0, 0, 0, 0, -0.8, 0, 0, 0, 0, 1];

describe('studentTQuantile (jstat)', () => {
  it('t multiplier for 11 degrees of freedom is 2.20', () => {
    // scipy.stats.t.ppf(0.975, 11) = 2.200985160082949 (SciPy ≤ 1.11); 2.200985160091639 (SciPy 1.17).
    // jstat's inverse differs from both by 2e-8.
    expect(studentTQuantile(0.975, 11)).toBeCloseTo(2.200985160082949, 7);
    expect(studentTQuantile(0.975, 11).toFixed(2)).toBe('2.20');
  });
  it('other degrees of freedom', () => {
    // scipy.stats.t.ppf(0.975, 1) = 12.706204736174694
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.706204736174694, 6);
    // scipy.stats.t.ppf(0.975, 194) = 1.9722675325821355
    expect(studentTQuantile(0.975, 194)).toBeCloseTo(1.9722675325821355, 7);
    // scipy.stats.t.ppf(0.995, 11) = 3.1058065155392804
    expect(studentTQuantile(0.995, 11)).toBeCloseTo(3.1058065155392804, 7);
  });
  it('rejects bad arguments', () => {
    expect(() => studentTQuantile(1, 3)).toThrow(RangeError);
    expect(() => studentTQuantile(0.975, 0)).toThrow(RangeError);
  });
});

describe('studentTInterval', () => {
  it("reproduces the chapter's five-run comparison: +0.02, −0.23 to +0.26, half-width 0.25", () => {
    // scipy.stats.t.interval(0.95, 11, loc=d.mean(), scale=d.std(ddof=1) / sqrt(12))
    //   = (-0.22841468533903433, 0.26174801867236763), mean 0.016666666666666663, scale 0.11135075167680683
    const t = studentTInterval(CHAPTER_DIFFERENCES);
    if (t.kind !== 'interval') throw new Error('expected an interval');
    expect(t.mean).toBeCloseTo(0.016666666666666663, 12);
    expect(t.low).toBeCloseTo(-0.22841468533903433, 7);
    expect(t.high).toBeCloseTo(0.26174801867236763, 7);
    expect(t.standardError).toBeCloseTo(0.11135075167680683, 12);
    expect(t.halfWidth).toBeCloseTo(0.245081352005701, 7);
    expect(t.degreesOfFreedom).toBe(11);
    expect([t.mean.toFixed(2), t.low.toFixed(2), t.high.toFixed(2), t.tMultiplier.toFixed(2), t.halfWidth.toFixed(2)]).toEqual([
      '0.02',
      '-0.23',
      '0.26',
      '2.20',
      '0.25',
    ]);
  });

  it('zero variance gives [mean, mean], never NaN', () => {
    const t = studentTInterval([0, 0, 0, 0]);
    expect(t).toMatchObject({ kind: 'interval', mean: 0, low: 0, high: 0, halfWidth: 0, standardError: 0 });
    const ones = studentTInterval([0.2, 0.2, 0.2]);
    expect(ones).toMatchObject({ kind: 'interval', mean: 0.2, low: 0.2, high: 0.2, halfWidth: 0 });
  });

  it('one value gives an explicit "no interval" result', () => {
    const t = studentTInterval([0.4]);
    expect(t.kind).toBe('none');
    expect(t.mean).toBe(0.4);
    if (t.kind === 'none') expect(t.reason).toMatch(/no interval exists/);
    expect(JSON.stringify(t)).not.toMatch(/NaN|null/);
  });

  it('no values, non-finite values and a bad confidence are errors', () => {
    expect(() => studentTInterval([])).toThrow(RangeError);
    expect(() => studentTInterval([1, Number.NaN])).toThrow(/finite/);
    expect(() => studentTInterval([1, 2], 0)).toThrow(/confidence/);
  });

  it('does not mutate its input', () => {
    const values = Object.freeze([...CHAPTER_DIFFERENCES]);
    studentTInterval(values);
    expect(values).toEqual(CHAPTER_DIFFERENCES);
  });
});
