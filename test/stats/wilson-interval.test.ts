import { describe, expect, it } from 'vitest';
import { averagedWilsonInterval, wilsonInterval } from '../../src/stats/wilson-interval.js';

describe('wilsonInterval', () => {
  it('matches the chapter scorecards and SciPy (15 of 21 → 0.50 to 0.86)', () => {
    // scipy.stats.binomtest(15, 21).proportion_ci(confidence_level=0.95, method='wilson')
    //   = (0.5004361928391441, 0.8618613704787788); the chapter prints "0.71 (95% interval 0.50 to 0.86)"
    const w = wilsonInterval(15, 21);
    expect(w.estimate).toBeCloseTo(0.714, 3);
    expect(w.low).toBeCloseTo(0.5004361928391441, 12);
    expect(w.high).toBeCloseTo(0.8618613704787788, 12);
    expect(w.low.toFixed(2)).toBe('0.50');
    expect(w.high.toFixed(2)).toBe('0.86');
  });

  it('2 of 21 → 0.03 to 0.29', () => {
    // scipy.stats.binomtest(2, 21).proportion_ci(method='wilson') = (0.02651876743807452, 0.2891413907391826)
    const w = wilsonInterval(2, 21);
    expect(w.low).toBeCloseTo(0.02651876743807452, 12);
    expect(w.high).toBeCloseTo(0.2891413907391826, 12);
    expect([w.low.toFixed(2), w.high.toFixed(2)]).toEqual(['0.03', '0.29']);
  });

  it('8 of 21 → 0.21 to 0.59 (the chapter: "8 of 21, an accuracy of 0.38 (95% interval 0.21 to 0.59)")', () => {
    // scipy.stats.binomtest(8, 21).proportion_ci(method='wilson') = (0.20751011368564493, 0.5912134622488425)
    const w = wilsonInterval(8, 21);
    expect(w.low).toBeCloseTo(0.20751011368564493, 12);
    expect(w.high).toBeCloseTo(0.5912134622488425, 12);
    expect([w.estimate.toFixed(2), w.low.toFixed(2), w.high.toFixed(2)]).toEqual(['0.38', '0.21', '0.59']);
  });

  it('0 of 50 → exactly 0 at the bottom, 0.0713 at the top', () => {
    // scipy.stats.binomtest(0, 50).proportion_ci(method='wilson') = (0.0, 0.07134759913335872)
    const w = wilsonInterval(0, 50);
    expect(w.low).toBe(0);
    expect(w.high).toBeCloseTo(0.07134759913335872, 12);
    expect(w.high.toFixed(4)).toBe('0.0713');
  });

  it('50 of 50 → 0.9287 at the bottom, exactly 1 at the top', () => {
    // scipy.stats.binomtest(50, 50).proportion_ci(method='wilson') = (0.9286524008666412, 1.0)
    const w = wilsonInterval(50, 50);
    expect(w.low).toBeCloseTo(0.9286524008666412, 12);
    expect(w.low.toFixed(4)).toBe('0.9287');
    expect(w.high).toBe(1);
  });

  it('n = 0 and k outside 0..n are clear errors', () => {
    expect(() => wilsonInterval(0, 0)).toThrow(RangeError);
    expect(() => wilsonInterval(0, 0)).toThrow(/n must be a whole number of trials ≥ 1, got 0/);
    expect(() => wilsonInterval(-1, 10)).toThrow(/k must be a whole number from 0 to n = 10, got -1/);
    expect(() => wilsonInterval(11, 10)).toThrow(RangeError);
    expect(() => wilsonInterval(1.5, 10)).toThrow(RangeError);
    expect(() => wilsonInterval(1, 10, 1)).toThrow(/confidence/);
  });

  it('a different confidence level widens the interval', () => {
    // scipy.stats.binomtest(15, 21).proportion_ci(confidence_level=0.99, method='wilson') = (0.4355819607094084, 0.890093222011102)
    const w = wilsonInterval(15, 21, 0.99);
    expect(w.low).toBeCloseTo(0.4355819607094084, 9);
    expect(w.high).toBeCloseTo(0.890093222011102, 9);
  });
});

describe('averagedWilsonInterval (counts averaged over cross-fitting splits)', () => {
  it('whole counts give wilsonInterval; R prop.test(15, 21, correct = FALSE) = 0.5004361928391441 to 0.8618613704787786', () => {
    const a = averagedWilsonInterval(15, 21);
    expect(a.low).toBeCloseTo(0.5004361928391441, 12);
    expect(a.high).toBeCloseTo(0.8618613704787786, 12);
    expect(a).toEqual(wilsonInterval(15, 21));
  });

  it('fractional counts: the Wilson formula in R at k = 420.5, n = 455.25', () => {
    // R: z <- qnorm(.975); p <- k/n; d <- 1 + z^2/n; c <- (p + z^2/(2*n))/d; h <- z*sqrt(p*(1-p)/n + z^2/(4*n^2))/d
    //    = 0.9236683141131247, 0.8955769554719881, 0.9446695631430775
    const a = averagedWilsonInterval(420.5, 455.25);
    expect(a.estimate).toBeCloseTo(0.9236683141131247, 12);
    expect(a.low).toBeCloseTo(0.8955769554719881, 12);
    expect(a.high).toBeCloseTo(0.9446695631430775, 12);
  });

  it('edge cases: k = 0 and k = n clamp; n = 0 and k > n are errors', () => {
    expect(averagedWilsonInterval(0, 2.5).low).toBe(0);
    expect(averagedWilsonInterval(2.5, 2.5).high).toBe(1);
    expect(() => averagedWilsonInterval(0, 0)).toThrow(/n must be a number > 0/);
    expect(() => averagedWilsonInterval(3, 2.5)).toThrow(/k must be a number from 0 to n/);
  });
});
