import { describe, expect, it } from 'vitest';
import { agreement } from '../../src/confidence/agreement.js';
import { relaxedAgreementMatch } from '../../src/confidence/assess.js';
import { strictClusterSizes } from '../../src/confidence/clusters.js';
import { entropyTerm } from '../../src/confidence/entropy.js';
import { gateMetrics } from '../../src/confidence/gate-table.js';
import { scoreRules } from '../../src/confidence/rules.js';
import { cleanChecks, sample } from './helpers.js';

describe("the paper's printed numbers", () => {
  it('Table 8, agreement-first on Spider (692/31, 138/16, 80/26) → Table 4: 95.7%, 73.6%, 8.8%, 35.6%', () => {
    const m = gateMetrics({ pass: { right: 692, wrong: 31 }, flag: { right: 138, wrong: 16 }, abstain: { right: 80, wrong: 26 } });
    expect(m.n).toBe(983);
    expect(m.wrong).toBe(73);
    expect(((m.passAccuracy ?? 0) * 100).toFixed(1)).toBe('95.7');
    expect(((m.correctWithheld ?? 0) * 100).toFixed(1)).toBe('8.8');
    expect(((m.wrongWithheld ?? 0) * 100).toFixed(1)).toBe('35.6');
    expect(((m.passShare ?? 0) * 100).toFixed(1)).toBe('73.6');
  });

  it('Table 8, designed on Spider (459/30, 5/3, 446/40) → Table 4: 93.9%, 49.7%, 49.0%, 54.8%', () => {
    const m = gateMetrics({ pass: { right: 459, wrong: 30 }, flag: { right: 5, wrong: 3 }, abstain: { right: 446, wrong: 40 } });
    expect([m.passAccuracy, m.passShare, m.correctWithheld, m.wrongWithheld].map((x) => ((x ?? 0) * 100).toFixed(1))).toEqual([
      '93.9',
      '49.7',
      '49.0',
      '54.8',
    ]);
  });

  it('Table 8, agreement alone on Spider (849/40, 27/7, 34/26) → Table 4: 95.5%, 90.4%, 3.7%, 35.6%', () => {
    const m = gateMetrics({ pass: { right: 849, wrong: 40 }, flag: { right: 27, wrong: 7 }, abstain: { right: 34, wrong: 26 } });
    expect([m.passAccuracy, m.passShare, m.correctWithheld, m.wrongWithheld].map((x) => ((x ?? 0) * 100).toFixed(1))).toEqual([
      '95.5',
      '90.4',
      '3.7',
      '35.6',
    ]);
  });

  it('a table with no passes has no pass accuracy (undefined, never NaN)', () => {
    const m = gateMetrics({ pass: { right: 0, wrong: 0 }, flag: { right: 1, wrong: 0 }, abstain: { right: 0, wrong: 0 } });
    expect(m.passAccuracy).toBeUndefined();
    expect(m.wrongWithheld).toBeUndefined();
    expect(m.passShare).toBe(0);
  });

  it('Proposition 1: K = 5, clusters (4, 1): entropy ≈ 0.69 either way, while A is 0.8 vs 0.2', () => {
    // python: p = [.8, .2]; 1 - (-sum(x * log(x) for x in p)) / log(5) = 0.6890824929174288
    const four = [[1]];
    const one = [[2]];
    const withTheFour = [sample('0', four), sample('1', four), sample('2', four), sample('3', four), sample('4', one)];
    const alone = [sample('0', one), sample('1', four), sample('2', four), sample('3', four), sample('4', four)];
    for (const samples of [withTheFour, alone]) {
      const sizes = strictClusterSizes(samples, 6);
      expect(entropyTerm(sizes)).toBeCloseTo(0.6890824929174288, 14);
      expect((entropyTerm(sizes) ?? 0).toFixed(2)).toBe('0.69');
    }
    const a1 = agreement(withTheFour, relaxedAgreementMatch);
    const a2 = agreement(alone, relaxedAgreementMatch);
    expect(a1).toMatchObject({ defined: true, value: 0.8, agreeing: 4 });
    expect(a2).toMatchObject({ defined: true, value: 0.2, agreeing: 1 });
  });

  it('K = 1: agreement is undefined and says why; the agreement rules are listed as undefined', () => {
    const a = agreement([sample('0', [[1]])], relaxedAgreementMatch);
    expect(a).toEqual({ defined: false, reason: 'K = 1: agreement needs at least two samples (one sample only agrees with itself)', k: 1 });
    const scored = scoreRules({
      agreement: a,
      designedEntropy: entropyTerm([1]),
      strictEntropy: entropyTerm([1]),
      relaxedEntropy: undefined,
      checks: cleanChecks(),
      hasResult: true,
      hasText: false,
    });
    expect(scored.undefinedRules.map((u) => u.rule).sort()).toEqual(['agreement', 'agreement-first', 'entropy', 'v2', 'v3']);
    expect(scored.undefinedRules[0]?.reason).toMatch(/K = 1/);
    expect(scored.scores.map((s) => s.rule)).toEqual(['designed']);
  });

  it('eq. 5 with K = 5: four agreeing samples pass, three flag, two abstain', () => {
    const gates = [4, 3, 2].map((n) => {
      const samples = Array.from({ length: 5 }, (_, i) => sample(String(i), i < n ? [[1]] : [[i + 10]]));
      const scored = scoreRules({
        agreement: agreement(samples, relaxedAgreementMatch),
        designedEntropy: 0.5,
        strictEntropy: 0.5,
        relaxedEntropy: 0.5,
        checks: cleanChecks(),
        hasResult: true,
        hasText: false,
      });
      return scored.scores.find((s) => s.rule === 'agreement-first')?.gate;
    });
    expect(gates).toEqual(['pass', 'flag', 'abstain']);
  });
});
