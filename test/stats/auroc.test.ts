import { describe, expect, it } from 'vitest';
import { auroc } from '../../src/stats/auroc.js';
import { LABELS, SCORES } from './fixtures/discrete-scores.js';

describe('auroc', () => {
  it('matches the scikit-learn documentation example', () => {
    // sklearn.metrics.roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) = 0.75
    const r = auroc([0.1, 0.4, 0.35, 0.8], [false, false, true, true]);
    expect(r).toEqual({ defined: true, value: 0.75, positives: 2, negatives: 2 });
  });

  it('counts ties one half, as the Mann–Whitney statistic does', () => {
    // pos = [s for s, y in zip(S, Y) if y]; neg = [...]
    // scipy.stats.mannwhitneyu(pos, neg).statistic / (13 * 7) = 0.8186813186813187
    // (= sklearn.metrics.roc_auc_score(Y, S))
    const r = auroc(SCORES, LABELS);
    expect(r.defined).toBe(true);
    if (r.defined) expect(r.value).toBeCloseTo(0.8186813186813187, 14);
  });

  it('[0.5, 0.5] vs labels [1, 0] → 0.5 (a tie is half a win)', () => {
    // sklearn.metrics.roc_auc_score([1, 0], [0.5, 0.5]) = 0.5
    const r = auroc([0.5, 0.5], [true, false]);
    expect(r.defined && r.value).toBe(0.5);
  });

  it('perfect and reversed rankings → 1 and 0', () => {
    expect(auroc([0.9, 0.1], [true, false])).toMatchObject({ value: 1 });
    expect(auroc([0.1, 0.9], [true, false])).toMatchObject({ value: 0 });
  });

  it('a single class is undefined, with a reason, never NaN', () => {
    const r = auroc([0.2, 0.9, 0.4], [true, true, true]);
    expect(r.defined).toBe(false);
    if (!r.defined) expect(r.reason).toMatch(/only one class.*3 positive, 0 negative/);
    expect(auroc([], [])).toMatchObject({ defined: false, reason: 'no items' });
  });

  it('rejects mismatched lengths and non-finite scores', () => {
    expect(() => auroc([0.1], [true, false])).toThrow(RangeError);
    expect(() => auroc([Number.NaN, 0.2], [true, false])).toThrow(/score 0 is not a finite number/);
  });

  it('does not mutate its input', () => {
    const s = [0.3, 0.1, 0.2];
    auroc(s, [true, false, true]);
    expect(s).toEqual([0.3, 0.1, 0.2]);
  });
});
