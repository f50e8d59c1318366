/**
 * CONSTRUCTED data (not a real recording): RunRecords that reproduce the regression-gate
 * chapter's 12-question, 5-seed example ("Repeat runs to see the variance" and "Gate a change in
 * CI"): base = chapter 6's metrics-first agent, candidate = chapter 8's declining agent, seeds
 * 2718 (the original recording, listed first) and 1–4. Only the per-question, per-seed
 * correctness is from the chapter; SQL, keys and tokens are placeholders.
 */
import type { Outcome, RunRecord } from '../../src/scoring/types.js';

export const CHAPTER_QUESTIONS = [
  'gq-001', 'gq-002', 'gq-003', 'gq-004', 'gq-005', 'gq-007',
  'gq-008', 'gq-012', 'gq-016', 'gq-017', 'gq-018', 'gq-020',
] as const;
export const CHAPTER_SEEDS = [2718, 1, 2, 3, 4] as const;
/** Per-question correct counts of 5 seeds, in CHAPTER_QUESTIONS order. */
export const BASE_COUNTS = [5, 5, 5, 5, 5, 0, 4, 0, 0, 0, 0, 0] as const;
export const CANDIDATE_COUNTS = [5, 5, 5, 5, 5, 0, 0, 0, 0, 0, 0, 5] as const;

export function run(agent: string, questionId: string, seed: number, outcome: Outcome, extra: Partial<RunRecord> = {}): RunRecord {
  return {
    agent,
    recording: `${agent}-constructed`,
    questionId,
    split: 'dev',
    kind: 'answer',
    seed,
    outcome,
    keys: [`sha256:constructed-${agent}-${questionId}-${seed}`],
    calls: 1,
    promptTokens: 0,
    completionTokens: 0,
    ...extra,
  };
}

/**
 * Runs of one agent with `counts[i]` correct runs of question i: the first `count` seeds are
 * correct, the rest `wrong_number` (so gq-008's base miss is seed 4, as the chapter's
 * "metrics-first seed 4: 5 of 12 correct").
 */
export function runsFromCounts(agent: string, counts: readonly number[], questions: readonly string[] = CHAPTER_QUESTIONS, seeds: readonly number[] = CHAPTER_SEEDS): RunRecord[] {
  const runs: RunRecord[] = [];
  for (const [s, seed] of seeds.entries()) {
    for (const [i, questionId] of questions.entries()) {
      runs.push(run(agent, questionId, seed, s < (counts[i] ?? 0) ? 'correct' : 'wrong_number'));
    }
  }
  return runs;
}

export const chapterBase = (): RunRecord[] => runsFromCounts('metrics-first', BASE_COUNTS);
export const chapterCandidate = (): RunRecord[] => runsFromCounts('declining', CANDIDATE_COUNTS);
