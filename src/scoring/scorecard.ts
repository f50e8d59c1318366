import { wilsonInterval } from '../stats/wilson-interval.js';
import { gaveNumber } from './outcome.js';
import type { RunRecord } from './types.js';

/**
 * A scorecard for one agent on one split (SPEC §6; the chapter's "Score more than accuracy").
 * Counts are runs (one question × one seed). Ratios whose denominator is 0 are `null`,
 * with the reason in `notes`, never NaN.
 */
export interface Scorecard {
  readonly agent: string;
  readonly split: string;
  /** Runs scored. */
  readonly n: number;
  /** Distinct questions. */
  readonly questions: number;
  readonly seeds: number;
  readonly correct: number;
  /** correct / n in [0, 1]. */
  readonly accuracy: number;
  /** 95% Wilson interval of accuracy, [low, high] in [0, 1]. */
  readonly interval: readonly [number, number];
  readonly wrongNumbers: number;
  /** Declines on questions that expected an answer. */
  readonly declines: number;
  readonly askedBack: number;
  readonly errors: number;
  readonly stepLimits: number;
  readonly missingRecordings: number;
  /** Correct declines / runs on decline or forbidden questions. */
  readonly declineRecall: number | null;
  /** Correct declines / all declines. */
  readonly declinePrecision: number | null;
  /** Runs that gave a number / n. */
  readonly coverage: number;
  /** Wrong numbers / numbers given. */
  readonly selectiveRisk: number | null;
  /** Model calls, prompt and completion tokens per run. */
  readonly callsPerQuestion: number;
  readonly promptTokensPerQuestion: number;
  readonly completionTokensPerQuestion: number;
  readonly notes: readonly string[];
}

/**
 * Scores runs of one agent on one split.
 * @throws RangeError when `runs` is empty (no scorecard exists for zero runs).
 * @example scorecard(runs).accuracy // 0.714… for 15 correct of 21 (the chapter's metrics-first agent)
 */
export function scorecard(runs: readonly RunRecord[], agent = runs[0]?.agent ?? '', split = runs[0]?.split ?? ''): Scorecard {
  const n = runs.length;
  if (n === 0) throw new RangeError(`scorecard: no runs for agent '${agent}' on split '${split}'`);
  // One pass over the runs (a scorecard reads each run's outcome, kind and usage once).
  const byOutcome: Record<RunRecord['outcome'], number> = { correct: 0, wrong_number: 0, declined: 0, asked_back: 0, error: 0, step_limit: 0, missing_recording: 0 };
  let declineQuestions = 0;
  let correctDeclines = 0;
  let numbers = 0;
  let calls = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  const questions = new Set<string>();
  const seeds = new Set<number>();
  for (const r of runs) {
    byOutcome[r.outcome] += 1;
    if (r.kind !== 'answer') {
      declineQuestions += 1;
      if (r.outcome === 'correct') correctDeclines += 1;
    }
    if (gaveNumber(r)) numbers += 1;
    calls += r.calls;
    promptTokens += r.promptTokens;
    completionTokens += r.completionTokens;
    questions.add(r.questionId);
    seeds.add(r.seed);
  }
  const correct = byOutcome.correct;
  const wrongNumbers = byOutcome.wrong_number;
  const allDeclines = correctDeclines + byOutcome.declined;
  const notes: string[] = [];
  const ratio = (num: number, den: number, note: string): number | null => {
    if (den === 0) {
      notes.push(note);
      return null;
    }
    return num / den;
  };
  const w = wilsonInterval(correct, n);
  return {
    agent,
    split,
    n,
    questions: questions.size,
    seeds: seeds.size,
    correct,
    accuracy: correct / n,
    interval: [w.low, w.high],
    wrongNumbers,
    declines: byOutcome.declined,
    askedBack: byOutcome.asked_back,
    errors: byOutcome.error,
    stepLimits: byOutcome.step_limit,
    missingRecordings: byOutcome.missing_recording,
    declineRecall: ratio(correctDeclines, declineQuestions, 'decline recall: no decline questions'),
    declinePrecision: ratio(correctDeclines, allDeclines, 'decline precision: no declines'),
    coverage: numbers / n,
    selectiveRisk: ratio(wrongNumbers, numbers, 'selective risk: no numbers given'),
    callsPerQuestion: calls / n,
    promptTokensPerQuestion: promptTokens / n,
    completionTokensPerQuestion: completionTokens / n,
    notes,
  };
}

/** Scorecards per (agent, split), agents in first-seen order, dev before test. */
export function scorecards(runs: readonly RunRecord[]): Scorecard[] {
  const groups = new Map<string, RunRecord[]>();
  for (const r of runs) {
    const key = `${r.agent}\u0000${r.split}`;
    const list = groups.get(key);
    if (list) list.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.values()]
    .sort((a, b) => ((a[0]?.split ?? '') < (b[0]?.split ?? '') ? -1 : (a[0]?.split ?? '') > (b[0]?.split ?? '') ? 1 : 0))
    .map((list) => scorecard(list));
}
