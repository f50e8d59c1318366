import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/gate/compare-runs.js';
import { gateResult } from '../../src/gate/gate-result.js';
import { gateVerdict } from '../../src/gate/gate-verdict.js';
import { DEFAULT_GATE_RULES, parseGateRules } from '../../src/gate/rules.js';
import { DataError } from '../../src/util/errors.js';
import { chapterBase, chapterCandidate, run, runsFromCounts } from './chapter-12.js';

describe("the chapter's 12-question, 5-seed example", () => {
  const comparison = compareRuns(chapterBase(), chapterCandidate());

  it('per-question shares and differences', () => {
    expect(comparison.questions).toHaveLength(12);
    const q8 = comparison.questions[6];
    expect(q8?.questionId).toBe('gq-008');
    expect(q8?.base).toMatchObject({ runs: 5, correct: 4, share: 0.8 });
    expect(q8?.candidate).toMatchObject({ runs: 5, correct: 0, share: 0 });
    expect(q8?.difference).toBeCloseTo(-0.8, 12);
    expect(q8?.base.outcomes.map((o) => o.seed)).toEqual([2718, 1, 2, 3, 4]);
    expect(q8?.base.outcomes[4]).toEqual({ seed: 4, outcome: 'wrong_number' });
    expect(comparison.questions[11]).toMatchObject({ questionId: 'gq-020', difference: 1, movement: 'fixed' });
  });

  it('mean +0.02, interval −0.23 to +0.26, t multiplier 2.20, half-width 0.25', () => {
    // scipy.stats.t.interval(0.95, 11, loc=d.mean(), scale=d.std(ddof=1)/sqrt(12)) = (-0.22841468533903433, 0.26174801867236763)
    const t = comparison.interval;
    if (t.kind !== 'interval') throw new Error('expected an interval');
    expect(comparison.meanDifference).toBeCloseTo(0.016666666666666663, 12);
    expect(t.low).toBeCloseTo(-0.22841468533903433, 7);
    expect(t.high).toBeCloseTo(0.26174801867236763, 7);
    expect([comparison.meanDifference, t.low, t.high, t.tMultiplier, t.halfWidth].map((v) => v.toFixed(2))).toEqual([
      '0.02',
      '-0.23',
      '0.26',
      '2.20',
      '0.25',
    ]);
    expect(t.degreesOfFreedom).toBe(11);
  });

  it('fixed gq-020, broken gq-008, sign test p = 1.00, smallest detectable 4 of 12 (0.33)', () => {
    expect(comparison.fixed).toEqual(['gq-020']);
    expect(comparison.broken).toEqual(['gq-008']);
    // scipy.stats.binomtest(1, 2, 0.5).pvalue = 1.0
    expect(comparison.signTest.p).toBe(1);
    expect(comparison.smallestDetectable).toMatchObject({ kind: 'detectable', flips: 4, n: 12 });
    if (comparison.smallestDetectable.kind === 'detectable') expect(comparison.smallestDetectable.meanChange.toFixed(2)).toBe('0.33');
  });

  it('fails for the stable break of the 7th question, gq-008', () => {
    expect(comparison.stableBreaks).toEqual(['gq-008']);
    const verdict = gateVerdict(comparison);
    expect(verdict.verdict).toBe('fail');
    expect(verdict.reasons).toEqual([
      { code: 'stable_break', message: 'stable break: gq-008 (base 4 of 5, candidate 0 of 5)', questions: ['gq-008'] },
    ]);
    expect(verdict.notes).toEqual([]);
  });

  it('with only the first seed: fixed 1, broken 1, p 1.00, and every flip counts as stable', () => {
    const once = compareRuns(chapterBase(), chapterCandidate(), DEFAULT_GATE_RULES, { seeds: [2718] });
    expect(once.fixed).toEqual(['gq-020']);
    expect(once.broken).toEqual(['gq-008']);
    expect(once.signTest).toMatchObject({ positive: 1, negative: 1, p: 1 });
    expect(once.stableBreaks).toEqual(['gq-008']);
    expect(once.singleRun).toBe(true);
    const verdict = gateVerdict(once);
    expect(verdict.verdict).toBe('fail');
    expect(verdict.reasons[0]?.message).toMatch(/every flip counts as stable/);
    expect(verdict.notes.map((n) => n.code)).toEqual(['single_run']);
  });

  it('the JSON result carries the required fields and no NaN', () => {
    const result = gateResult(comparison);
    expect(result).toMatchObject({
      schemaVersion: 1,
      verdict: 'fail',
      n: 12,
      fixed: ['gq-020'],
      broken: ['gq-008'],
      stableBreaks: ['gq-008'],
      signTestP: 1,
      missingRecordings: { base: [], candidate: [] },
      smallestDetectable: { flips: 4 },
      intervalNote: null,
    });
    expect(result.interval?.tMultiplier.toFixed(2)).toBe('2.20');
    expect(JSON.stringify(result)).not.toMatch(/NaN|Infinity/);
  });
});

describe('edge cases', () => {
  it('zero variance (no question moved): mean 0, interval [0, 0], p = 1, pass', () => {
    const counts = [5, 5, 0, 3, 0];
    const ids = ['a', 'b', 'c', 'd', 'e'];
    const c = compareRuns(runsFromCounts('x', counts, ids), runsFromCounts('y', counts, ids));
    expect(c.meanDifference).toBe(0);
    expect(c.interval).toMatchObject({ kind: 'interval', low: 0, high: 0, halfWidth: 0 });
    expect(c.signTest.p).toBe(1);
    expect(c.fixed).toEqual([]);
    expect(gateVerdict(c)).toEqual({ verdict: 'pass', reasons: [], notes: [] });
    expect(JSON.stringify(gateResult(c))).not.toMatch(/NaN/);
  });

  it('one question: a clear "no interval" message, and the stable-break rule still applies', () => {
    const c = compareRuns(runsFromCounts('x', [5], ['only']), runsFromCounts('y', [1], ['only']));
    expect(c.interval.kind).toBe('none');
    expect(c.smallestDetectable.kind).toBe('none');
    const v = gateVerdict(c);
    expect(v.verdict).toBe('fail');
    expect(v.reasons.map((r) => r.code)).toEqual(['stable_break']);
    expect(v.notes.find((n) => n.code === 'no_interval')?.message).toMatch(/no t interval exists/);
    const result = gateResult(c);
    expect(result.interval).toBeNull();
    expect(result.intervalNote).toMatch(/no interval exists/);
    expect(JSON.stringify(result)).not.toMatch(/NaN/);
  });

  it('one question that did not move passes', () => {
    const c = compareRuns(runsFromCounts('x', [3], ['only']), runsFromCounts('y', [3], ['only']));
    expect(gateVerdict(c).verdict).toBe('pass');
  });

  it('base and candidate with no question in common → DataError naming both sides', () => {
    const call = () => compareRuns(runsFromCounts('x', [5, 5], ['a', 'b']), runsFromCounts('y', [5], ['c']));
    expect(call).toThrow(DataError);
    expect(call).toThrow(/no question in common: base covers 2 \(a, b\), candidate covers 1 \(c\)/);
  });

  it('seeds selecting nothing in common → DataError', () => {
    expect(() => compareRuns(chapterBase(), chapterCandidate(), DEFAULT_GATE_RULES, { seeds: [99] })).toThrow(DataError);
  });

  it('different golden sets (same id, different kind or db) → DataError', () => {
    const base = [run('x', 'q1', 0, 'correct'), run('x', 'q2', 0, 'correct')];
    const cand = [run('y', 'q1', 0, 'correct'), run('y', 'q2', 0, 'correct', { kind: 'decline' })];
    expect(() => compareRuns(base, cand)).toThrow(/q2 is kind answer in base but kind decline in candidate: .*different golden sets/);
    const cand2 = [run('y', 'q1', 0, 'correct', { db: 'pets_1' })];
    expect(() => compareRuns(base, cand2)).toThrow(DataError);
  });

  it('two runs of one question and seed in one side → DataError', () => {
    const base = [run('x', 'q1', 0, 'correct'), run('x', 'q1', 0, 'wrong_number')];
    expect(() => compareRuns(base, [run('y', 'q1', 0, 'correct')])).toThrow(/base has two runs of question q1 with seed 0/);
  });

  it('questions in one side only are listed, not dropped; failing on them is opt-in', () => {
    const base = runsFromCounts('x', [5, 5, 5], ['a', 'b', 'only-base']);
    const cand = runsFromCounts('y', [5, 5, 5], ['a', 'b', 'only-cand']);
    const c = compareRuns(base, cand);
    expect(c.questions.map((q) => q.questionId)).toEqual(['a', 'b']);
    expect(c.base.unpaired).toEqual(['only-base']);
    expect(c.candidate.unpaired).toEqual(['only-cand']);
    const v = gateVerdict(c);
    expect(v.verdict).toBe('pass');
    expect(v.notes).toContainEqual(expect.objectContaining({ code: 'unpaired_question', questions: ['only-base', 'only-cand'] }));
    const strict = parseGateRules({ fail_on_unpaired_question: true });
    expect(gateVerdict(compareRuns(base, cand, strict), strict).reasons.map((r) => r.code)).toEqual(['unpaired_question']);
  });

  it('seeds missing for some questions are reported per question', () => {
    const base = runsFromCounts('x', [5, 5, 5], ['a', 'b', 'c']).filter((r) => !(r.questionId === 'b' && (r.seed === 3 || r.seed === 4)));
    const c = compareRuns(base, runsFromCounts('y', [5, 5, 5], ['a', 'b', 'c']));
    expect(c.base.missingSeeds).toEqual([{ questionId: 'b', seeds: [3, 4] }]);
    expect(c.questions[1]?.base).toMatchObject({ runs: 3, correct: 3, share: 1 });
    expect(c.base.runsPerQuestion).toEqual({ min: 3, max: 5 });
    const v = gateVerdict(c);
    expect(v.verdict).toBe('pass');
    expect(v.notes).toContainEqual(
      expect.objectContaining({ code: 'missing_seeds', message: expect.stringContaining('b [base: seed 3, 4]') as unknown }),
    );
    // With explicit seeds, a question with none of them is listed too.
    const only = compareRuns(base, runsFromCounts('y', [5, 5, 5], ['a', 'b', 'c']), DEFAULT_GATE_RULES, { seeds: [3, 4] });
    expect(only.base.missingSeeds).toEqual([{ questionId: 'b', seeds: [3, 4] }]);
    expect(only.candidate.unpaired).toEqual(['b']);
  });

  it('a missing recording in either side fails the gate, listing the question', () => {
    const cand = chapterCandidate().map((r) =>
      r.questionId === 'gq-001' && r.seed === 3 ? { ...r, outcome: 'missing_recording' as const, detail: 'no recording for key sha256:…' } : r,
    );
    const c = compareRuns(chapterBase(), cand);
    expect(c.candidate.missingRecordings).toEqual([{ questionId: 'gq-001', seed: 3, detail: 'no recording for key sha256:…' }]);
    const v = gateVerdict(c);
    expect(v.reasons.map((r) => r.code)).toEqual(['missing_recording', 'stable_break']);
    expect(v.reasons[0]?.questions).toEqual(['gq-001']);
    expect(v.reasons[0]?.message).toMatch(/gq-001 seed 3 \[candidate\]/);
    const lenient = parseGateRules({ fail_on_missing_recording: false, fail_on_stable_break: false });
    const lv = gateVerdict(compareRuns(chapterBase(), cand, lenient), lenient);
    expect(lv.verdict).toBe('pass');
    expect(lv.notes.map((n) => n.code)).toContain('missing_recording');
  });

  it('an interval wholly below zero fails, listing the broken questions', () => {
    const ids = Array.from({ length: 12 }, (_, i) => `q${i}`);
    const base = runsFromCounts('x', Array(12).fill(5), ids);
    const cand = runsFromCounts('y', [2, 2, 2, 2, 2, 2, 2, 2, 5, 5, 5, 5], ids);
    const c = compareRuns(base, cand);
    expect(c.interval.kind === 'interval' && c.interval.high < 0).toBe(true);
    expect(c.stableBreaks).toEqual([]);
    const v = gateVerdict(c);
    expect(v.reasons.map((r) => r.code)).toEqual(['interval_below_zero']);
    expect(v.reasons[0]?.questions).toEqual(ids.slice(0, 8));
    expect(v.reasons[0]?.message).toMatch(/^mean paired difference −0\.40 with 95% interval −0\.\d\d to −0\.\d\d lies wholly below zero/);
  });

  it('custom stable-break thresholds are applied', () => {
    const rules = parseGateRules({ stable_break: { base_min: 1, candidate_max: 0 } });
    const c = compareRuns(chapterBase(), chapterCandidate(), rules);
    expect(c.stableBreaks).toEqual([]); // gq-008 was 4 of 5 in base, not 5 of 5
    expect(gateVerdict(c, rules).verdict).toBe('pass');
  });
});

describe('missing recordings', () => {
  it('are excluded from the paired statistics and fail the gate by their own reason only', () => {
    const base = ['q1', 'q2', 'q3', 'q4'].map((q) => run('base', q, 0, 'correct'));
    const candidate = [run('cand', 'q1', 0, 'missing_recording'), run('cand', 'q2', 0, 'missing_recording'), run('cand', 'q3', 0, 'wrong_number'), run('cand', 'q4', 0, 'correct')];
    const comparison = compareRuns(base, candidate);
    expect(comparison.excluded).toEqual([
      { questionId: 'q1', baseSeeds: [], candidateSeeds: [0] },
      { questionId: 'q2', baseSeeds: [], candidateSeeds: [0] },
    ]);
    expect(comparison.questions.map((q) => q.questionId)).toEqual(['q3', 'q4']);
    expect(comparison.stableBreaks).toEqual(['q3']);
    expect(comparison.broken).toEqual(['q3']);
    expect(comparison.meanDifference).toBe(-0.5);
    expect(comparison.signTest.negative).toBe(1);
    const verdict = gateVerdict(comparison, DEFAULT_GATE_RULES);
    expect(verdict.verdict).toBe('fail');
    expect(verdict.reasons.map((r) => r.code).sort()).toEqual(['missing_recording', 'stable_break']);
    expect(verdict.reasons.find((r) => r.code === 'stable_break')?.questions).toEqual(['q3']);
    const missing = verdict.reasons.find((r) => r.code === 'missing_recording');
    expect(missing?.message).toContain('2 question(s) left out of the paired statistics');
    expect(missing?.message).toContain('`replaygate record --agent cand --questions q1,q2 --seeds 1`');
    expect(verdict.notes.find((n) => n.code === 'excluded_questions')?.questions).toEqual(['q1', 'q2']);
  });

  it('leave nothing to compare when every question lacks one: n = 0, no interval, never NaN', () => {
    const base = ['q1', 'q2'].map((q) => run('base', q, 0, 'correct'));
    const candidate = ['q1', 'q2'].map((q) => run('cand', q, 3, 'missing_recording'));
    const comparison = compareRuns(base.map((r) => ({ ...r, seed: 3 })), candidate);
    expect(comparison.questions).toEqual([]);
    expect(comparison.meanDifference).toBe(0);
    expect(comparison.interval.kind).toBe('none');
    expect(comparison.signTest.p).toBe(1);
    const result = gateResult(comparison, DEFAULT_GATE_RULES, undefined, { config: 'ci/replaygate.yml', split: 'dev' });
    expect(result.n).toBe(0);
    expect(result.reasons.map((r) => r.code)).toEqual(['missing_recording']);
    // every question of the side is missing: the command records the whole split, seed 3 only
    expect(result.reasons[0]?.message).toContain('`replaygate record --agent cand -c ci/replaygate.yml --split dev --seeds 3,`');
    expect(JSON.stringify(result)).not.toMatch(/NaN|null,"smallestDetectable"|Infinity/);
  });

  it('the interval is clipped to [−1, 1] and marked', () => {
    const base = ['q1', 'q2'].map((q) => run('base', q, 0, 'correct'));
    const candidate = [run('cand', 'q1', 0, 'wrong_number'), run('cand', 'q2', 0, 'correct')];
    const result = gateResult(compareRuns(base, candidate));
    expect(result.interval).toMatchObject({ low: -1, clipped: true });
    expect(result.interval?.rawLow).toBeLessThan(-1);
    expect(result.notes.map((n) => n.code)).toContain('interval_clipped');
  });
});

describe('an agent that could not run', () => {
  const cause = "exited with code 1: ModuleNotFoundError: No module named 'requests'";
  const ids = ['q1', 'q2', 'q3'];
  const failed = (agent: string) =>
    ids.map((q) => run(agent, q, 0, 'error', { failure: cause, detail: `exited with code 1; stderr:\nTraceback…\nModuleNotFoundError: No module named 'requests'` }));

  it('a base whose every run failed alike fails the gate with a reason naming the side and the cause', () => {
    const candidate = ids.map((q) => run('cand', q, 0, 'correct'));
    const comparison = compareRuns(failed('base'), candidate);
    expect(comparison.base.agentFailures).toEqual([
      expect.objectContaining({ cause, runs: ids.map((questionId) => ({ questionId, seed: 0 })), inBothSides: false }),
    ]);
    const verdict = gateVerdict(comparison);
    expect(verdict.verdict).toBe('fail');
    const reason = verdict.reasons.find((r) => r.code === 'agent_failure');
    expect(reason?.message).toMatch(/^the base's agent could not run: 3 of its 3 run\(s\) failed the same way — exited with code 1: ModuleNotFoundError/);
    expect(reason?.message).toContain("No module named 'requests'");
    expect(reason?.questions).toEqual(ids);
    // Switched off, it is still said, as a note.
    const lenient = parseGateRules({ fail_on_agent_failure: false });
    const lv = gateVerdict(compareRuns(failed('base'), candidate, lenient), lenient);
    expect(lv.reasons.map((r) => r.code)).not.toContain('agent_failure');
    expect(lv.notes.map((n) => n.code)).toContain('agent_failure');
  });

  it('a candidate that cannot run fails too; both sides failing alike is a note, not a reason', () => {
    const base = ids.map((q) => run('base', q, 0, 'correct'));
    expect(gateVerdict(compareRuns(base, failed('cand'))).reasons.map((r) => r.code)).toContain('agent_failure');
    const both = gateVerdict(compareRuns(failed('base'), failed('cand')));
    expect(both.reasons.map((r) => r.code)).not.toContain('agent_failure');
    expect(both.notes.filter((n) => n.code === 'agent_failure')).toHaveLength(2);
  });

  it('one run that failed among many working ones is an ordinary error, not an agent that could not run', () => {
    const base = [run('base', 'q1', 0, 'error', { failure: cause }), run('base', 'q2', 0, 'correct'), run('base', 'q3', 0, 'correct')];
    const verdict = gateVerdict(compareRuns(base, ids.map((q) => run('cand', q, 0, 'correct'))));
    expect([...verdict.reasons, ...verdict.notes].map((r) => r.code)).not.toContain('agent_failure');
  });
});
