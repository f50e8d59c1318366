import { describe, expect, it } from 'vitest';
import { agreement } from '../../src/confidence/agreement.js';
import { relaxedAgreementMatch } from '../../src/confidence/assess.js';
import { relaxedClusterSizes, strictClusterSizes, strictSignature } from '../../src/confidence/clusters.js';
import { entropyTerm } from '../../src/confidence/entropy.js';
import type { Sample } from '../../src/confidence/types.js';
import { result, sample } from './helpers.js';

describe('agreement', () => {
  it('uses the relaxed projection match with 4-place rounding and counts the shown answer itself', () => {
    const samples: Sample[] = [
      sample('0', [[6]]),
      sample('1', [['x', 6.00001]]), // projection onto column 2, 4-place rounding
      sample('2', [['6']]), // numeric text read as a number
      sample('3', [[7]]),
      sample('4', undefined), // no result never agrees
    ];
    expect(agreement(samples, relaxedAgreementMatch)).toEqual({ defined: true, value: 0.6, lowerBound: 0.6, agreeing: 3, undetermined: 0, k: 5 });
  });

  it('is 0 when the shown answer has no result', () => {
    const samples = [sample('0', undefined), sample('1', [[1]]), sample('2', [[1]])];
    expect(agreement(samples, relaxedAgreementMatch)).toMatchObject({ defined: true, value: 0, lowerBound: 0, agreeing: 0 });
  });

  it('counts truncated pairs with equal row counts as agreeing and reports the bound', () => {
    const cut = (first: number): Sample => ({ label: 'x', result: result([[first]], { truncated: true, rowCount: 10_000 }) });
    const shorter: Sample = { label: 's', result: result([[1]], { rowCount: 1 }) };
    const a = agreement([cut(1), cut(2), cut(3), shorter], relaxedAgreementMatch);
    // pairs (0,1) and (0,2): undetermined → agreeing; (0,3): row counts differ → disagree
    expect(a).toEqual({ defined: true, value: 0.75, lowerBound: 0.25, agreeing: 3, undetermined: 2, k: 4 });
  });

  it('a result kept only as a prefix of its rows is treated like a truncated one', () => {
    const prefix: Sample = { label: '0', result: result([[1]], { rowCount: 150 }) };
    const other: Sample = { label: '1', result: result([[9]], { rowCount: 150 }) };
    expect(agreement([prefix, other], relaxedAgreementMatch)).toMatchObject({ value: 1, lowerBound: 0.5, undetermined: 1 });
  });

  it('K = 0 and K = 1 are undefined, never NaN', () => {
    expect(agreement([], relaxedAgreementMatch)).toEqual({ defined: false, reason: 'no samples', k: 0 });
    expect(agreement([sample('0', [[1]])], relaxedAgreementMatch).defined).toBe(false);
  });
});

describe('clusters and the entropy term', () => {
  it('strict clusters: full rows, floats rounded, row order and column names ignored; no result is alone', () => {
    const samples: Sample[] = [
      sample('0', [[1, 0.1234567], [2, 3]]),
      { label: '1', result: { columns: ['a', 'b'], rows: [[2, 3], [1, 0.1234571]], rowCount: 2, truncated: false } },
      sample('2', [[1, 0.12346], [2, 3]]),
      sample('3', undefined),
      sample('4', undefined),
    ];
    expect(strictClusterSizes(samples, 6)).toEqual([2, 1, 1, 1]);
    expect(strictClusterSizes(samples, 4)).toEqual([3, 1, 1]);
    expect(strictSignature(result([[0.1234567]]), 6)).toBe('1|n:0.123457');
  });

  it('greedy relaxed clusters join the first cluster whose first member matches (not transitive)', () => {
    // [1] ≃ [1, 2] (projection) and [1, 2] ≃ [2], but [1] ≄ [2]
    const samples = [sample('0', [[1]]), sample('1', [[1, 2]]), sample('2', [[2]]), sample('3', undefined)];
    expect(relaxedClusterSizes(samples, relaxedAgreementMatch)).toEqual([2, 1, 1]);
  });

  it('entropy term: 1 for one cluster, 0 when every sample is alone, undefined for K = 1', () => {
    expect(entropyTerm([5])).toBe(1);
    expect(entropyTerm([1, 1, 1, 1, 1])).toBeCloseTo(0, 15);
    // python: p = [.6, .2, .2]; 1 - H/log(5) = 0.4095637166915911
    expect(entropyTerm([3, 1, 1])).toBeCloseTo(0.4095637166915911, 14);
    expect(entropyTerm([1])).toBeUndefined();
    expect(() => entropyTerm([])).toThrow(RangeError);
    expect(() => entropyTerm([0, 2])).toThrow(/whole numbers ≥ 1/);
  });
});
