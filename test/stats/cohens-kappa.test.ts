import { describe, expect, it } from 'vitest';
import { cohensKappa } from '../../src/stats/cohens-kappa.js';
import { confusionTable } from '../../src/stats/confusion-table.js';
import { kappaRange } from '../../src/stats/kappa-range.js';
import { scottsPi } from '../../src/stats/scotts-pi.js';

// The chapter's calibration ("Calibrate the judge against reference labels"): 56 cases,
// reference correct 26, the judge called 4 of the 30 wrong answers correct and 10 of the 26
// right answers incorrect. Rows = reference (correct, incorrect), columns = judge.
const CHAPTER = [
  [16, 10],
  [4, 26],
];
// The chapter's split by agent: schema-only SQL (23 cases, 5 right; errors 2 and 4) and the
// metric agents (33 cases, 21 right; errors 2 and 6).
const SCHEMA_ONLY = [
  [1, 4],
  [2, 16],
];
const METRIC_AGENTS = [
  [15, 6],
  [2, 10],
];

describe('cohensKappa', () => {
  it("reproduces the chapter's 56 calibration cases: p_o 0.75, kappa 0.49", () => {
    const k = cohensKappa(CHAPTER);
    expect(k.n).toBe(56);
    expect(k.observed).toBe(0.75);
    // sklearn.metrics.cohen_kappa_score(['correct']*26 + ['incorrect']*30,
    //   ['correct']*16 + ['incorrect']*10 + ['correct']*4 + ['incorrect']*26) = 0.48958333333333337
    // (scikit-learn is not installable offline here: value from sklearn's own formula,
    //  1 - Σ(w·C)/Σ(w·E) with E = outer(row sums, column sums)/n, run in numpy 2.4.6;
    //  exactly 752/1536.)
    expect(k.value).toBeCloseTo(0.48958333333333337, 14);
    expect(k.value).toBe(752 / 1536);
    expect(k.expected).toBeCloseTo(1600 / 3136, 15);
    expect(k.value!.toFixed(2)).toBe('0.49');
  });

  it("reproduces the chapter's split by agent", () => {
    expect(cohensKappa(SCHEMA_ONLY).observed!.toFixed(2)).toBe('0.74');
    // numpy, sklearn's formula: 0.10389610389610382
    expect(cohensKappa(SCHEMA_ONLY).value).toBeCloseTo(0.10389610389610382, 14);
    expect(cohensKappa(SCHEMA_ONLY).value!.toFixed(2)).toBe('0.10');
    expect(cohensKappa(METRIC_AGENTS).observed!.toFixed(2)).toBe('0.76');
    // numpy, sklearn's formula: 0.5111111111111111
    expect(cohensKappa(METRIC_AGENTS).value).toBeCloseTo(0.5111111111111111, 14);
  });

  it("matches Wikipedia's worked example (50 cases, p_o 0.7, p_e 0.5, kappa 0.4)", () => {
    // https://en.wikipedia.org/wiki/Cohen%27s_kappa#Simple_example
    const k = cohensKappa([
      [20, 5],
      [10, 15],
    ]);
    expect(k.observed).toBeCloseTo(0.7, 15);
    expect(k.expected).toBeCloseTo(0.5, 15);
    expect(k.value).toBeCloseTo(0.4, 15);
  });

  it('handles k categories', () => {
    // numpy, sklearn's formula on the 3 × 3 table: 0.5662650602409638
    expect(cohensKappa([[10, 2, 1], [3, 8, 2], [0, 1, 5]]).value).toBeCloseTo(0.5662650602409638, 14);
    // numpy, sklearn's formula: -0.04166666666666674 (worse than chance)
    expect(cohensKappa([[1, 2, 3], [4, 5, 6], [7, 8, 9]]).value).toBeCloseTo(-0.04166666666666674, 14);
  });

  it('takes a labelled confusion table', () => {
    const table = confusionTable(['correct', 'correct', 'incorrect', 'incorrect'], ['correct', 'incorrect', 'incorrect', 'incorrect']);
    expect(table).toEqual({ labels: ['correct', 'incorrect'], counts: [[1, 1], [0, 2]] });
    // p_o 0.75, p_e (2·1 + 2·3)/16 = 0.5 → 0.5
    expect(cohensKappa(table).value).toBe(0.5);
  });

  it('perfect agreement on two labels is 1; perfect disagreement is below 0', () => {
    expect(cohensKappa([[3, 0], [0, 5]]).value).toBe(1);
    expect(cohensKappa([[0, 3], [5, 0]]).value).toBeLessThan(0);
  });

  it('expected agreement 1 (one label only) is null with a reason, never NaN', () => {
    const k = cohensKappa(confusionTable(['incorrect', 'incorrect'], ['incorrect', 'incorrect'], ['correct', 'incorrect']));
    expect(k.value).toBeNull();
    expect(k.observed).toBe(1);
    expect(k.expected).toBe(1);
    expect(k.reason).toContain('expected agreement is 1 (one label only');
    expect(k.reason).toContain('"incorrect"');
    // sklearn: cohen_kappa_score(['x', 'x'], ['x', 'x']) = nan (with a warning)
    expect(cohensKappa([[7]]).value).toBeNull();
  });

  it('one rater with one label and the other with two: p_e < 1, kappa 0', () => {
    // numpy, sklearn's formula: 0.0
    expect(cohensKappa([[5, 1], [0, 0]]).value).toBe(0);
  });

  it('no cases → null with reason', () => {
    expect(cohensKappa([[0, 0], [0, 0]])).toEqual({ method: 'cohens-kappa', n: 0, observed: null, expected: null, value: null, reason: 'no cases' });
  });

  it('rejects malformed tables', () => {
    expect(() => cohensKappa([])).toThrow(RangeError);
    expect(() => cohensKappa([[1, 2]])).toThrow(/square/);
    expect(() => cohensKappa([[1, -1], [0, 1]])).toThrow(/non-negative whole/);
    expect(() => cohensKappa([[1, 0.5], [0, 1]])).toThrow(RangeError);
    expect(() => confusionTable(['a'], ['a', 'b'])).toThrow(/different numbers/);
    expect(() => confusionTable(['a'], ['c'], ['a', 'b'])).toThrow(/"c"/);
  });
});

describe('scottsPi', () => {
  it("reproduces the chapter's 0.48 and its split (0.09, 0.50)", () => {
    // numpy: p_o − p_e over 1 − p_e with pooled shares: 0.4835309617918313 (= 2936/6072)
    expect(scottsPi(CHAPTER).value).toBeCloseTo(0.4835309617918313, 14);
    expect(scottsPi(CHAPTER).value!.toFixed(2)).toBe('0.48');
    expect(scottsPi(CHAPTER).observed).toBe(0.75);
    // numpy: 0.09210526315789481, 0.5037593984962405
    expect(scottsPi(SCHEMA_ONLY).value!.toFixed(2)).toBe('0.09');
    expect(scottsPi(METRIC_AGENTS).value!.toFixed(2)).toBe('0.50');
  });

  it("matches Wikipedia's kappa example pooled: p_e 0.505 → pi 0.3939…", () => {
    // pooled shares 55/100 and 45/100: p_e = 0.3025 + 0.2025 = 0.505; (0.7 − 0.505)/0.495
    expect(scottsPi([[20, 5], [10, 15]]).value).toBeCloseTo(0.3939393939393939, 14);
  });

  it('k categories, and pi ≤ kappa', () => {
    // numpy: 0.5649546827794562 and -0.05633802816901419
    expect(scottsPi([[10, 2, 1], [3, 8, 2], [0, 1, 5]]).value).toBeCloseTo(0.5649546827794562, 14);
    expect(scottsPi([[1, 2, 3], [4, 5, 6], [7, 8, 9]]).value).toBeCloseTo(-0.05633802816901419, 14);
    for (const t of [CHAPTER, SCHEMA_ONLY, METRIC_AGENTS, [[5, 9], [1, 2]]]) {
      expect(scottsPi(t).value!).toBeLessThanOrEqual(cohensKappa(t).value! + 1e-15);
    }
  });

  it('a judge that leans one way: kappa and pi part', () => {
    // reference 10/10, judge says "correct" 18 times: kappa excuses the judge's lean, pi does not
    const t = [[10, 0], [8, 2]];
    expect(cohensKappa(t).value).toBeCloseTo(0.2, 12);
    expect(scottsPi(t).value!).toBeLessThan(0.1);
  });

  it('edge cases: one label only, no cases', () => {
    const p = scottsPi({ labels: ['correct', 'incorrect'], counts: [[4, 0], [0, 0]] });
    expect(p.value).toBeNull();
    expect(p.reason).toContain('"correct"');
    expect(scottsPi([[0]]).reason).toBe('no cases');
  });
});

describe('kappaRange', () => {
  it("reproduces the chapter's one-verdict ranges: 0.45–0.53, −0.14–0.31, 0.44–0.58", () => {
    // numpy, every one-verdict change of the judge's labels, sklearn's formula:
    // (0.45169712793733674, 0.5272727272727273), (-0.14184397163120566, 0.31137724550898194),
    // (0.44067796610169485, 0.5792349726775956)
    const all = kappaRange(CHAPTER);
    expect(all.low).toBeCloseTo(0.45169712793733674, 14);
    expect(all.high).toBeCloseTo(0.5272727272727273, 14);
    expect([all.low!.toFixed(2), all.high!.toFixed(2)]).toEqual(['0.45', '0.53']);
    expect(all.changes).toBe(56);
    const schema = kappaRange(SCHEMA_ONLY);
    expect([schema.low!.toFixed(2), schema.high!.toFixed(2)]).toEqual(['-0.14', '0.31']);
    const metric = kappaRange(METRIC_AGENTS);
    expect([metric.low!.toFixed(2), metric.high!.toFixed(2)]).toEqual(['0.44', '0.58']);
  });

  it('k categories: each case may change to each other label', () => {
    const r = kappaRange([[1, 2, 3], [4, 5, 6], [7, 8, 9]]);
    expect(r.changes).toBe(45 * 2);
    // numpy: (-0.09154929577464799, 0.006849315068493289)
    expect(r.low).toBeCloseTo(-0.09154929577464799, 14);
    expect(r.high).toBeCloseTo(0.006849315068493289, 14);
  });

  it('changes that leave kappa undefined are counted and left out', () => {
    // the only "incorrect" verdict changed → both raters all "correct": undefined
    expect(kappaRange([[5, 1], [0, 0]])).toEqual({ low: 0, high: 0, changes: 6, undefinedChanges: 1 });
    expect(kappaRange([[1, 0], [0, 0]])).toEqual({ low: 0, high: 0, changes: 1, undefinedChanges: 0 });
    expect(kappaRange([[3]])).toEqual({ low: null, high: null, changes: 0, undefinedChanges: 0 });
    expect(kappaRange([[0, 0], [0, 0]])).toEqual({ low: null, high: null, changes: 0, undefinedChanges: 0 });
  });
});
