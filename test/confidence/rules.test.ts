import { describe, expect, it } from 'vitest';
import type { Agreement } from '../../src/confidence/agreement.js';
import { scoreRules, type AnswerEvidence } from '../../src/confidence/rules.js';
import type { RuleName } from '../../src/confidence/types.js';
import { cleanChecks } from './helpers.js';

const agree = (agreeing: number, k = 5): Agreement => ({ defined: true, value: agreeing / k, lowerBound: agreeing / k, agreeing, undetermined: 0, k });

function evidence(overrides: Partial<AnswerEvidence> = {}): AnswerEvidence {
  return { agreement: agree(5), designedEntropy: 1, strictEntropy: 1, relaxedEntropy: 1, checks: cleanChecks(), hasResult: true, hasText: false, ...overrides };
}

function rule(e: AnswerEvidence, name: RuleName, options: Parameters<typeof scoreRules>[1] = {}) {
  const s = scoreRules(e, options).scores.find((x) => x.rule === name);
  if (s === undefined) throw new Error(`no ${name}`);
  return s;
}

const fired = (check: 'missing_table' | 'bad_join' | 'stand_in' | 'uncited_number' | 'empty_result', detail: string) =>
  ({ check, status: 'fired', detail }) as const;

describe('agreement-first (eq. 5)', () => {
  it('is A when nothing fires, and passes at 0.8', () => {
    expect(rule(evidence({ agreement: agree(4) }), 'agreement-first')).toEqual({ rule: 'agreement-first', score: 0.8, gate: 'pass', reasons: [] });
  });

  it('a veto (missing table, bad join, stand-in) caps at 0.59 → abstain, naming the check', () => {
    for (const [key, check] of [
      ['missingTable', 'missing_table'],
      ['badJoin', 'bad_join'],
      ['standIn', 'stand_in'],
    ] as const) {
      const s = rule(evidence({ checks: cleanChecks({ [key]: fired(check, `${check} detail`) }) }), 'agreement-first');
      expect(s.score).toBe(0.59);
      expect(s.gate).toBe('abstain');
      expect(s.reasons).toEqual([{ code: check, detail: `${check} detail` }]);
    }
  });

  it('an uncited number caps at 0.79 → flag', () => {
    const s = rule(evidence({ hasText: true, checks: cleanChecks({ uncitedNumber: fired('uncited_number', '1 number … 42'), citedNumbers: 1 }) }), 'agreement-first');
    expect(s).toMatchObject({ score: 0.79, gate: 'flag', reasons: [{ code: 'uncited_number' }] });
  });

  it('low agreement is itself a named reason', () => {
    const s = rule(evidence({ agreement: agree(3) }), 'agreement-first');
    expect(s).toMatchObject({ score: 0.6, gate: 'flag' });
    expect(s.reasons).toEqual([{ code: 'low_agreement', detail: '3 of 5 samples agree with the shown answer (A = 0.60)' }]);
  });

  it('no result: A = 0, abstain with reason no_result', () => {
    const s = rule(evidence({ agreement: agree(0), hasResult: false, noResultDetail: 'no such table: x' }), 'agreement-first');
    expect(s).toMatchObject({ score: 0, gate: 'abstain', reasons: [{ code: 'no_result', detail: 'the shown answer has no result: no such table: x' }] });
  });

  it('judge evidence, when recorded: an unsupported claim about the answer or COMPLETE < 0.5 caps at 0.79', () => {
    expect(rule(evidence({ judge: { unsupportedAboutAnswer: true } }), 'agreement-first').score).toBe(0.79);
    expect(rule(evidence({ judge: { complete: 0.4 } }), 'agreement-first').score).toBe(0.79);
    expect(rule(evidence({ judge: { complete: 0.9, unsupportedInCommentary: true } }), 'agreement-first').score).toBe(1);
  });

  it('thin evidence: SQL the parser cannot read leaves GROUNDED unmeasured → cap 0.79, stated', () => {
    const unread = { check: 'missing_table', status: 'unmeasured', detail: 'SQL parser could not read the statement (…)' } as const;
    const s = rule(evidence({ checks: cleanChecks({ missingTable: unread, gTab: undefined }) }), 'agreement-first');
    expect(s.score).toBe(0.79);
    expect(s.reasons[0]).toEqual({ code: 'thin_evidence', detail: 'GROUNDED is not measured (SQL parser could not read the statement (…))' });
  });

  it("the paper's literal thin-evidence rule caps every answer without text and judge at 0.79", () => {
    const s = rule(evidence(), 'agreement-first', { thinEvidence: 'paper' });
    expect(s.score).toBe(0.79);
    expect(s.reasons[0]?.detail).toMatch(/2 of the terms measured \(GROUNDED, SAFETY\); 3 needed; SCHEMA needs a written answer; COMPLETE needs a judge/);
  });
});

describe('v3', () => {
  it('the empty-result signal caps at 0.79', () => {
    const s = rule(evidence({ checks: cleanChecks({ emptyResult: fired('empty_result', 'the final query returned no rows') }) }), 'v3');
    expect(s).toMatchObject({ score: 0.79, gate: 'flag', reasons: [{ code: 'empty_result' }] });
    expect(rule(evidence({ checks: cleanChecks({ emptyResult: fired('empty_result', 'x') }) }), 'agreement-first').score).toBe(1);
  });
});

describe('designed score (eq. 1) and v2', () => {
  it('weights 0.30 / 0.20 over the measured terms, renormalised', () => {
    // GROUNDED = mean(g_tab 1, g_join 0.5) = 0.75; SAFETY = min(L1 = 1, L2 = 0.6) = 0.6
    // (0.3 × 0.75 + 0.2 × 0.6) / 0.5 = 0.69
    const e = evidence({ designedEntropy: 0.6, checks: cleanChecks({ gJoin: 0.5 }) });
    expect(rule(e, 'designed').score).toBeCloseTo(0.69, 12);
    // with SCHEMA measured (a cited number): (0.225 + 0.2 + 0.12) / 0.7 = 0.7785714285714286
    const withText = evidence({ designedEntropy: 0.6, hasText: true, checks: cleanChecks({ gJoin: 0.5, citedNumbers: 2 }) });
    expect(rule(withText, 'designed').score).toBeCloseTo(0.7785714285714286, 12);
    // with COMPLETE 0.5 from a judge: (0.225 + 0.2 + 0.12 + 0.05) / 0.8 = 0.74375
    expect(rule({ ...withText, judge: { complete: 0.5 } }, 'designed').score).toBeCloseTo(0.74375, 12);
  });

  it('a deterministic tag zeroes L1 and fires the hard cap 0.59', () => {
    const e = evidence({ checks: cleanChecks({ badJoin: fired('bad_join', 'T1.a = T2.b (ρ = 0.10)'), gJoin: 0 }) });
    const s = rule(e, 'designed');
    // GROUNDED = mean(1, 0) = 0.5; SAFETY = min(0, 1) = 0 → 0.15 / 0.5 = 0.3
    expect(s.score).toBeCloseTo(0.3, 12);
    expect(s.reasons.map((r) => r.code)).toEqual(['low_score', 'bad_join']);
  });

  it('an unsupported claim in commentary caps the designed score but not v2 (§3.4)', () => {
    const e = evidence({ judge: { complete: 1, unsupportedInCommentary: true } });
    expect(rule(e, 'designed').score).toBe(0.59);
    expect(rule(e, 'v2').score).toBe(1);
  });

  it('v2 replaces L2 by A: the entropy blind spot of Proposition 1 disappears', () => {
    // Shown answer alone against four agreeing samples: L2 ≈ 0.69 but A = 0.2.
    const e = evidence({ agreement: agree(1), designedEntropy: 0.6890824929174288 });
    // designed: (0.3 + 0.2 × 0.689) / 0.5 = 0.8756
    expect(rule(e, 'designed').score).toBeCloseTo(0.87563299716697, 10);
    expect(rule(e, 'designed').gate).toBe('pass');
    // v2: (0.3 + 0.2 × 0.2) / 0.5 = 0.68
    expect(rule(e, 'v2').score).toBeCloseTo(0.68, 12);
  });

  it('no result: the designed score takes the hard cap with reason no_result', () => {
    const s = rule(evidence({ hasResult: false, agreement: agree(0) }), 'designed');
    expect(s.score).toBe(0.59);
    expect(s.reasons.map((r) => r.code)).toContain('no_result');
  });

  it('every flag and abstain lists at least one reason', () => {
    const cases = [
      evidence({ agreement: agree(2), designedEntropy: 0.3, strictEntropy: 0.3 }),
      evidence({ agreement: agree(3), designedEntropy: 0.5, strictEntropy: 0.5, checks: cleanChecks({ emptyResult: fired('empty_result', 'x') }) }),
      evidence({ checks: cleanChecks({ standIn: fired('stand_in', 'x') }) }),
    ];
    for (const e of cases) {
      for (const s of scoreRules(e).scores) {
        if (s.gate !== 'pass') expect(s.reasons.length, `${s.rule} ${s.gate}`).toBeGreaterThan(0);
      }
    }
  });
});
