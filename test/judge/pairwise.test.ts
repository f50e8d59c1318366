import { describe, expect, it } from 'vitest';
import { analysePairs, pairsFromRuns } from '../../src/judge/pairwise.js';
import type { JudgePair } from '../../src/judge/types.js';
import type { RunRecord } from '../../src/scoring/types.js';
import { chapterJudgedPairs } from './chapter-fixtures.js';

const pair = (id: string, base: string, candidate: string, kind = 'decline'): JudgePair => ({
  questionId: id,
  question: `q ${id}`,
  kind,
  base: { name: 'base-agent', outcome: 'declined', text: base },
  candidate: { name: 'cand-agent', outcome: 'declined', text: candidate },
});

describe('analysePairs', () => {
  it("reproduces the chapter's 8 pairs judged in both orders", () => {
    const report = analysePairs(chapterJudgedPairs());
    expect(report.base).toBe('metrics-first');
    expect(report.candidate).toBe('declining');
    expect(report.totals).toEqual({
      pairs: 8,
      unparsed: 0,
      sameVerdict: 7, // "same verdict in both orders: 7 of 8"
      firstPositionBoth: 1, // "first reason won in both orders: 1 of 8"
      secondPositionBoth: 0, // "second reason won in both orders: 0 of 8"
      baseWins: 5, // "metrics-first reason won in both orders: 5"
      candidateWins: 2, // "declining reason won in both orders: 2"
      ties: 0,
      consistentSideWins: 7,
      longerWon: 6, // "consistent winner was the longer reason: 6"
    });
    const byKind = Object.fromEntries(report.byKind.map((k) => [k.kind, k]));
    expect(byKind['decline']).toMatchObject({ pairs: 3, baseWins: 1, candidateWins: 1, firstPositionBoth: 1 });
    expect(byKind['answer']).toMatchObject({ pairs: 5, baseWins: 4, candidateWins: 1, sameVerdict: 5 });
    const gq021 = report.results.find((r) => r.questionId === 'gq-021')!;
    expect(gq021).toMatchObject({ position: 'first', sameVerdict: false, consistentWinner: null, winnerBaseFirst: 'base', winnerCandidateFirst: 'candidate', longerWon: null });
  });

  it('a position-biased pair (verdict flips with the order) and a consistent pair are counted correctly', () => {
    const report = analysePairs([
      // position bias: the judge picks whatever is shown first
      { pair: pair('p-biased', 'No shipping data.', 'Shipping costs are not recorded.'), baseFirst: { label: 'A', reason: 'clear' }, candidateFirst: { label: 'A', reason: 'clear' } },
      // consistent: the candidate's text wins in both orders (B with base first, A with candidate first)
      { pair: pair('p-consistent', 'Cannot.', 'Refund reasons are not stored; ask for refund counts by month instead.'), baseFirst: { label: 'B', reason: 'offers an alternative' }, candidateFirst: { label: 'A', reason: 'offers an alternative' } },
    ]);
    expect(report.totals).toMatchObject({ pairs: 2, sameVerdict: 1, firstPositionBoth: 1, secondPositionBoth: 0, baseWins: 0, candidateWins: 1, consistentSideWins: 1, longerWon: 1 });
    expect(report.results[0]).toMatchObject({ questionId: 'p-biased', position: 'first', sameVerdict: false, consistentWinner: null });
    expect(report.results[1]).toMatchObject({ questionId: 'p-consistent', position: null, sameVerdict: true, consistentWinner: 'candidate', longerWon: true });
  });

  it('second-position bias, consistent ties and unparsed replies', () => {
    const report = analysePairs([
      { pair: pair('p1', 'a', 'b'), baseFirst: { label: 'B', reason: '' }, candidateFirst: { label: 'B', reason: '' } },
      { pair: pair('p2', 'a', 'b'), baseFirst: { label: 'tie', reason: '' }, candidateFirst: { label: 'tie', reason: '' } },
      { pair: pair('p3', 'a', 'b'), baseFirst: { label: 'unparsed', problem: 'verdict "C" is not one of A, B, tie', raw: '{"verdict":"C"}' }, candidateFirst: { label: 'A', reason: '' } },
    ]);
    expect(report.totals).toMatchObject({ pairs: 3, sameVerdict: 1, secondPositionBoth: 1, ties: 1, unparsed: 1, consistentSideWins: 0 });
    expect(report.unparsedCalls).toEqual([{ questionId: 'p3', order: 'base-first', problem: 'verdict "C" is not one of A, B, tie' }]);
  });

  it('the longer text is measured in characters (code points), equal lengths are not "longer"', () => {
    const report = analysePairs([
      { pair: pair('p1', 'ééé', 'abc'), baseFirst: { label: 'A', reason: '' }, candidateFirst: { label: 'B', reason: '' } },
    ]);
    expect(report.results[0]).toMatchObject({ baseChars: 3, candidateChars: 3, consistentWinner: 'base', longerWon: false });
  });

  it('no pairs: zero counts, names from the options', () => {
    const report = analysePairs([], [], { base: 'b', candidate: 'c' });
    expect(report.totals.pairs).toBe(0);
    expect(report.base).toBe('b');
    expect(report.byKind).toEqual([]);
  });
});

describe('pairsFromRuns', () => {
  const run = (agent: string, questionId: string, outcome: RunRecord['outcome'], text?: string, seed = 0): RunRecord => ({
    agent,
    recording: agent,
    questionId,
    split: 'dev',
    kind: questionId.startsWith('d') ? 'decline' : 'answer',
    seed,
    outcome,
    keys: [],
    calls: 1,
    promptTokens: 0,
    completionTokens: 0,
    ...(text === undefined ? {} : { text }),
  });
  const questions = new Map([
    ['d1', { question: 'Cost of shipping?', kind: 'decline' }],
    ['d2', { question: 'Staff salaries?', kind: 'decline' }],
    ['a1', { question: 'Gross margin?', kind: 'answer' }],
    ['a2', { question: 'Orders in 2025?', kind: 'answer' }],
  ]);

  it('pairs questions both sides declined or asked back; skips a side without reason text, with the reason', () => {
    const { pairs, skipped } = pairsFromRuns(
      [run('base', 'd1', 'correct', 'No shipping data.'), run('base', 'd2', 'declined', '  '), run('base', 'a1', 'asked_back', 'Gross or net?'), run('base', 'a2', 'correct')],
      [run('cand', 'd1', 'declined', 'Shipping is not recorded.'), run('cand', 'd2', 'declined', 'Salaries are private.'), run('cand', 'a1', 'declined', 'No margin metric.'), run('cand', 'a2', 'declined', 'x')],
      questions,
    );
    // d1: a decline on a decline question is scored `correct`, and is still a decline to compare
    expect(pairs.map((p) => p.questionId)).toEqual(['d1', 'a1']);
    expect(pairs[0]!.base.outcome).toBe('declined');
    expect(pairs[1]).toMatchObject({ kind: 'answer', question: 'Gross margin?', base: { outcome: 'asked_back', text: 'Gross or net?' }, candidate: { outcome: 'declined' } });
    expect(skipped).toEqual([{ questionId: 'd2', reason: 'base (base) declined with no reason text: nothing to compare' }]);
  });

  it('uses the shown answer (smallest seed) of each side', () => {
    const { pairs } = pairsFromRuns(
      [run('base', 'd1', 'declined', 'seed 1', 1), run('base', 'd1', 'declined', 'seed 0', 0)],
      [run('cand', 'd1', 'declined', 'seed 0')],
      questions,
    );
    expect(pairs[0]!.base.text).toBe('seed 0');
  });

  it('a question missing from the golden set is skipped with a reason', () => {
    const { skipped } = pairsFromRuns([run('base', 'dx', 'declined', 'a')], [run('cand', 'dx', 'declined', 'b')], questions);
    expect(skipped[0]!.reason).toContain('not among the golden questions');
  });
});
