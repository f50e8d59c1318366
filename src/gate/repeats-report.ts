import type { RunRecord } from '../scoring/types.js';
import { DataError } from '../util/errors.js';
import type { MissingSeeds, SeedOutcome } from './types.js';
import { RunsByQuestion } from './runs-by-question.js';
import { seedOutcome } from './seed-outcome.js';

/** Correct runs under one seed. */
export interface SeedScore {
  readonly seed: number;
  readonly correct: number;
  readonly runs: number;
}

/** One question's runs across seeds. */
export interface QuestionRepeats {
  readonly questionId: string;
  readonly correct: number;
  readonly runs: number;
  /** In seed order. */
  readonly outcomes: readonly SeedOutcome[];
}

/** What repeated (seeded) runs of one configuration show (see {@link repeatsReport}). */
export interface RepeatsReport {
  readonly label: string;
  /** Every seed seen, in order of first appearance (the first is the shown answer's). */
  readonly seeds: readonly number[];
  readonly questions: number;
  readonly runs: number;
  readonly perSeed: readonly SeedScore[];
  /** In order of first appearance. */
  readonly perQuestion: readonly QuestionRepeats[];
  /** Questions correct in some runs but not all (0 < correct < runs). */
  readonly flipping: readonly QuestionRepeats[];
  readonly alwaysCorrect: number;
  readonly neverCorrect: number;
  /** Fewest and most correct over the seeds. */
  readonly spread: { readonly min: number; readonly max: number };
  /** Questions lacking some seed that other questions have. */
  readonly missingSeeds: readonly MissingSeeds[];
}

/**
 * Summarises K seeded runs per question of one configuration (SPEC §7 "Repeats"; the
 * regression-gate chapter, "Repeat runs to see the variance"): correct per seed, per-question
 * correct counts, the questions that flip across seeds, always/never correct counts, the spread
 * of the per-seed totals, and per question the seeds it lacks.
 *
 * @param runs - one configuration's scored runs, one per question and seed (at least one)
 * @throws DataError when `runs` is empty or holds two runs of one question with the same seed
 * @example repeatsReport(chapterBase).flipping // [{ questionId: 'gq-008', correct: 4, runs: 5, … }]
 */
export function repeatsReport(runs: readonly RunRecord[]): RepeatsReport {
  if (runs.length === 0) throw new DataError('repeats: no runs to report on');
  const byQuestion = new RunsByQuestion(runs);
  const repeated = byQuestion.firstRepeatedSeed();
  if (repeated !== undefined) {
    throw new DataError(`two runs of question ${repeated.questionId} with seed ${repeated.seed}; use the determinism check to compare replays of one seed`);
  }
  const agents = new Set<string>();
  // Correct and all runs per seed, seeds in order of first appearance.
  const bySeed = new Map<number, { seed: number; correct: number; runs: number }>();
  for (const run of runs) {
    agents.add(run.agent);
    let score = bySeed.get(run.seed);
    if (score === undefined) bySeed.set(run.seed, (score = { seed: run.seed, correct: 0, runs: 0 }));
    score.runs += 1;
    if (run.outcome === 'correct') score.correct += 1;
  }
  const seeds = [...bySeed.keys()];
  const order = new Map(seeds.map((seed, i) => [seed, i]));
  const perSeed = [...bySeed.values()];
  const perQuestion: QuestionRepeats[] = byQuestion.ids.map((questionId, q) => {
    const outcomes = byQuestion
      .runsOf(q)
      .sort((a, b) => (order.get(a.seed) ?? 0) - (order.get(b.seed) ?? 0))
      .map((r) => seedOutcome(r.seed, r.outcome));
    return { questionId, correct: outcomes.filter((o) => o.outcome === 'correct').length, runs: outcomes.length, outcomes };
  });
  const missingSeeds: MissingSeeds[] = [];
  byQuestion.ids.forEach((questionId, q) => {
    const absent = byQuestion.absentSeeds(q, seeds);
    if (absent.length > 0) missingSeeds.push({ questionId, seeds: absent });
  });
  const totals = perSeed.map((s) => s.correct);
  return {
    label: [...agents].join('+'),
    seeds,
    questions: byQuestion.size,
    runs: runs.length,
    perSeed,
    perQuestion,
    flipping: perQuestion.filter((q) => q.correct > 0 && q.correct < q.runs),
    alwaysCorrect: perQuestion.filter((q) => q.correct === q.runs).length,
    neverCorrect: perQuestion.filter((q) => q.correct === 0).length,
    spread: { min: totals.reduce((m, v) => Math.min(m, v), Infinity), max: totals.reduce((m, v) => Math.max(m, v), 0) },
    missingSeeds,
  };
}
