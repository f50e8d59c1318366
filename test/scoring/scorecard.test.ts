import { describe, expect, it } from 'vitest';
import { scorecard } from '../../src/scoring/scorecard.js';
import type { Outcome, RunRecord } from '../../src/scoring/types.js';

const run = (i: number, kind: RunRecord['kind'], outcome: Outcome, calls = 2, promptTokens = 2000): RunRecord => ({
  agent: 'metrics-first', recording: 'r', questionId: `gq-${i}`, split: 'dev', kind, seed: 0, outcome, keys: [], calls, promptTokens, completionTokens: 50,
});

describe('scorecard', () => {
  // The chapter's dev scorecard for the metrics-first agent: 21 questions (17 answer, 4 decline);
  // 15 correct (12 answers + 3 declines), 5 wrong numbers (4 + 1 on a decline question), 1 error.
  const runs: RunRecord[] = [
    ...Array.from({ length: 12 }, (_, i) => run(i, 'answer', 'correct')),
    ...Array.from({ length: 4 }, (_, i) => run(12 + i, 'answer', 'wrong_number')),
    run(16, 'answer', 'error'),
    ...Array.from({ length: 3 }, (_, i) => run(17 + i, 'decline', 'correct')),
    run(20, 'decline', 'wrong_number'),
  ];
  const card = scorecard(runs);
  it('reproduces the chapter: 15 of 21 → 0.71 (0.50 to 0.86), coverage 0.81, selective risk 0.29', () => {
    expect(card.correct).toBe(15);
    expect(card.accuracy.toFixed(2)).toBe('0.71');
    expect(card.interval.map((x) => x.toFixed(2))).toEqual(['0.50', '0.86']);
    expect(card.wrongNumbers).toBe(5);
    expect(card.coverage.toFixed(2)).toBe('0.81');
    expect(card.selectiveRisk?.toFixed(2)).toBe('0.29');
    expect(card.declineRecall?.toFixed(2)).toBe('0.75');
    expect(card.declinePrecision?.toFixed(2)).toBe('1.00');
    expect(card.errors).toBe(1);
  });
  it('reports calls and tokens per question', () => {
    expect(card.callsPerQuestion).toBe(2);
    expect(card.promptTokensPerQuestion).toBe(2000);
  });
  it('gives null, with a note, for ratios with nothing to divide by', () => {
    const c = scorecard([run(0, 'answer', 'error')]);
    expect(c.selectiveRisk).toBeNull();
    expect(c.declineRecall).toBeNull();
    expect(c.declinePrecision).toBeNull();
    expect(c.notes).toEqual(['decline recall: no decline questions', 'decline precision: no declines', 'selective risk: no numbers given']);
  });
  it('refuses zero runs', () => {
    expect(() => scorecard([])).toThrow(RangeError);
  });
});
