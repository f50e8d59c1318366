import { describe, expect, it } from 'vitest';
import { agreementSummary, calibrate, JUDGE_ADVICE } from '../../src/judge/calibration.js';
import type { CalibrationCase } from '../../src/judge/types.js';
import { chapterCalibrationCases } from './chapter-fixtures.js';

describe('calibrate', () => {
  it("reproduces the chapter's calibration: 56 cases, 26 right, p_o 0.75, κ 0.49, π 0.48, one-verdict range 0.45 to 0.53", () => {
    const report = calibrate(chapterCalibrationCases(), 'the book model, JUDGE_ANSWER');
    const o = report.overall;
    expect(o).toMatchObject({ cases: 56, referenceCorrect: 26, referenceIncorrect: 30, judgeCorrect: 20, judgeIncorrect: 36, unparsed: 0, judged: 56 });
    expect(o.observed).toBe(0.75);
    // sklearn.metrics.cohen_kappa_score on these labels = 0.48958333333333337 (see test/stats/cohens-kappa.test.ts)
    expect(o.kappa.value).toBeCloseTo(0.48958333333333337, 14);
    expect(o.pi.value!.toFixed(2)).toBe('0.48');
    expect([o.kappaRange.low!.toFixed(2), o.kappaRange.high!.toFixed(2)]).toEqual(['0.45', '0.53']);
    expect(o.wrongCalledCorrect).toBe(4);
    expect(o.rightCalledIncorrect).toBe(10);
    expect(report.wrongCalledCorrect).toEqual(['gq-002 schema-only', 'gq-004 schema-only', 'gq-018 metrics-first', 'gq-035 metrics-first']);
    expect(report.rightCalledIncorrect).toHaveLength(10);
    expect(report.rightCalledIncorrect.slice(0, 4)).toEqual(['gq-014 schema-only', 'gq-016 schema-only', 'gq-027 schema-only', 'gq-031 schema-only']);
    expect(report.advice).toBe(JUDGE_ADVICE);
    expect(report.advice).toContain('never passes a release alone');
  });

  it("reproduces the chapter's split: schema-only κ 0.10 (−0.14 to 0.31), metric agents κ 0.51 (0.44 to 0.58)", () => {
    const cases = chapterCalibrationCases().map((c) => ({ ...c, agent: c.agent === 'schema-only' ? 'schema-only' : 'metric agents' }));
    const report = calibrate(cases, 'judge');
    const [schema, metric] = report.byAgent;
    expect(schema).toMatchObject({ agent: 'schema-only', cases: 23, referenceCorrect: 5 });
    expect(schema!.observed!.toFixed(2)).toBe('0.74');
    expect(schema!.kappa.value!.toFixed(2)).toBe('0.10');
    expect(schema!.pi.value!.toFixed(2)).toBe('0.09');
    expect([schema!.kappaRange.low!.toFixed(2), schema!.kappaRange.high!.toFixed(2)]).toEqual(['-0.14', '0.31']);
    expect(metric).toMatchObject({ agent: 'metric agents', cases: 33, referenceCorrect: 21 });
    expect(metric!.observed!.toFixed(2)).toBe('0.76');
    expect(metric!.kappa.value!.toFixed(2)).toBe('0.51');
    expect(metric!.pi.value!.toFixed(2)).toBe('0.50');
    expect([metric!.kappaRange.low!.toFixed(2), metric!.kappaRange.high!.toFixed(2)]).toEqual(['0.44', '0.58']);
  });

  it('unparsed verdicts are counted, left out of the statistics, and bound the observed agreement', () => {
    const cases: CalibrationCase[] = [
      { caseId: 'a', agent: 'x', reference: 'correct', verdict: { label: 'correct', reason: '' } },
      { caseId: 'b', agent: 'x', reference: 'incorrect', verdict: { label: 'incorrect', reason: '' } },
      { caseId: 'c', agent: 'x', reference: 'incorrect', verdict: { label: 'correct', reason: '' } },
      { caseId: 'd', agent: 'x', reference: 'correct', verdict: { label: 'unparsed', problem: 'the reply is not JSON and contains no JSON object', raw: 'yes' } },
    ];
    const report = calibrate(cases, 'j');
    expect(report.overall).toMatchObject({ cases: 4, judged: 3, unparsed: 1, referenceCorrect: 2, judgeCorrect: 2 });
    expect(report.overall.observed).toBeCloseTo(2 / 3, 15);
    expect(report.overall.observedUnparsedAsDisagreement).toBe(0.5);
    expect(report.unparsedCases).toEqual([{ caseId: 'd', problem: 'the reply is not JSON and contains no JSON object' }]);
    expect(report.overall.table.counts).toEqual([[1, 0], [1, 1]]);
  });

  it('one label only: kappa and pi are null with a reason, never NaN', () => {
    const s = agreementSummary([
      { caseId: 'a', agent: 'x', reference: 'incorrect', verdict: { label: 'incorrect', reason: '' } },
      { caseId: 'b', agent: 'x', reference: 'incorrect', verdict: { label: 'incorrect', reason: '' } },
    ]);
    expect(s.observed).toBe(1);
    expect(s.kappa.value).toBeNull();
    expect(s.kappa.reason).toMatch(/^expected agreement is 1 \(one label only/);
    expect(s.pi.value).toBeNull();
    // the one-verdict range: a change gives p_o 0.5, p_e 0.5 → κ 0
    expect(s.kappaRange).toEqual({ low: 0, high: 0, changes: 2, undefinedChanges: 0 });
  });

  it('no cases', () => {
    const s = agreementSummary([]);
    expect(s).toMatchObject({ cases: 0, observed: null, observedUnparsedAsDisagreement: null, kappa: { value: null, reason: 'no cases' } });
  });
});
