import type { RunRecord } from '../scoring/types.js';
import { signTest } from '../stats/sign-test.js';
import { smallestDetectable } from '../stats/smallest-detectable.js';
import { studentTInterval } from '../stats/student-t-interval.js';
import { DataError } from '../util/errors.js';
import { agentFailures } from './agent-failures.js';
import { DEFAULT_GATE_RULES } from './rules.js';
import type { Comparison, ExcludedQuestion, GateRules, MissingRun, MissingSeeds, QuestionComparison, SideQuestion, SideSummary } from './types.js';
import { naturalIdOrder } from '../util/natural-order.js';
import { RunsByQuestion } from './runs-by-question.js';
import { seedOutcome } from './seed-outcome.js';

/** Options of {@link compareRuns}. */
export interface CompareOptions {
  /** Seeds to compare; runs with other seeds are ignored. Default: every seed each side holds. */
  readonly seeds?: readonly number[];
  /**
   * A shard's comparison (`--shard i/n`): sides that share no question of the shard compare none
   * (n = 0) instead of failing, since a shard may hold no question, or only questions one side
   * covers, and `replaygate merge` compares the whole run (and fails as the unsharded run does).
   */
  readonly shard?: boolean;
  /**
   * What each side is called when it holds no run to take its agents' names from (a shard of no
   * question: `--shard i/n`), so that the report still names the agents compared. Default ''.
   */
  readonly labels?: { readonly base: string; readonly candidate: string };
}

/** Tolerance for comparing shares such as 4/5 with thresholds such as 0.8 written in YAML. */
const SHARE_EPSILON = 1e-9;

interface IndexedSide {
  readonly name: 'base' | 'candidate';
  /** The runs of the selected seeds, by question. */
  readonly questions: RunsByQuestion;
  /** Questions that had runs, but none with a selected seed. */
  readonly filteredOut: string[];
  readonly agents: string[];
  readonly recordings: string[];
  readonly seeds: number[];
  readonly runs: number;
}

function indexSide(name: 'base' | 'candidate', runs: readonly RunRecord[], seeds: readonly number[] | undefined): IndexedSide {
  const wanted = seeds === undefined ? undefined : new Set(seeds);
  const questions = new RunsByQuestion(runs, wanted === undefined ? undefined : (run) => wanted.has(run.seed));
  const repeated = questions.firstRepeatedSeed();
  if (repeated !== undefined) {
    throw new DataError(
      `${name} has two runs of question ${repeated.questionId} with seed ${repeated.seed}; a side must hold one run per question and seed ` +
        '(to compare two replays of the same seed, use the determinism check instead)',
    );
  }
  const agents = new Set<string>();
  const recordings = new Set<string>();
  const seedSet = new Set<number>();
  let count = 0;
  for (const run of runs) {
    if (wanted !== undefined && !wanted.has(run.seed)) continue;
    agents.add(run.agent);
    recordings.add(run.recording);
    seedSet.add(run.seed);
    count += 1;
  }
  const filteredOut = wanted === undefined ? [] : [...new Set(runs.map((r) => r.questionId))].filter((id) => !questions.has(id));
  return {
    name,
    questions,
    filteredOut,
    agents: [...agents],
    recordings: [...recordings],
    seeds: [...new Set(seeds ?? seedSet)],
    runs: count,
  };
}

function sideQuestion(side: IndexedSide, q: number, order: ReadonlyMap<number, number>): SideQuestion {
  const outcomes = side.questions
    .runsOf(q)
    .sort((a, b) => (order.get(a.seed) ?? 0) - (order.get(b.seed) ?? 0))
    .map((run) => seedOutcome(run.seed, run.outcome));
  const correct = outcomes.filter((o) => o.outcome === 'correct').length;
  return { runs: outcomes.length, correct, share: correct / outcomes.length, outcomes };
}

function missingRecordings(side: IndexedSide): MissingRun[] {
  const missing: MissingRun[] = [];
  side.questions.ids.forEach((questionId, q) => {
    for (const run of side.questions.runsOf(q)) {
      if (run.outcome !== 'missing_recording') continue;
      missing.push(run.detail === undefined ? { questionId, seed: run.seed } : { questionId, seed: run.seed, detail: run.detail });
    }
  });
  return missing;
}

function missingSeeds(side: IndexedSide): MissingSeeds[] {
  const result: MissingSeeds[] = [];
  side.questions.ids.forEach((questionId, q) => {
    const absent = side.questions.absentSeeds(q, side.seeds);
    if (absent.length > 0) result.push({ questionId, seeds: absent });
  });
  for (const questionId of side.filteredOut) result.push({ questionId, seeds: side.seeds });
  return result;
}

function summary(side: IndexedSide, other: IndexedSide, paired: readonly QuestionComparison[], labels: CompareOptions['labels']): SideSummary {
  const counts = paired.map((q) => (side.name === 'base' ? q.base.runs : q.candidate.runs));
  return {
    label: side.agents.length > 0 ? side.agents.join('+') : (labels?.[side.name] ?? ''),
    recordings: side.recordings,
    seeds: side.seeds,
    runs: side.runs,
    questions: side.questions.size,
    unpaired: side.questions.ids.filter((id) => !other.questions.has(id)),
    missingSeeds: missingSeeds(side),
    missingRecordings: missingRecordings(side),
    runsPerQuestion: { min: counts.length === 0 ? 0 : counts.reduce((m, v) => Math.min(m, v), Infinity), max: counts.reduce((m, v) => Math.max(m, v), 0) },
    agentFailures: agentFailures(side.questions, other.questions),
  };
}

function examples(ids: Iterable<string>): string {
  const list = [...ids];
  if (list.length === 0) return 'none';
  return list.slice(0, 3).join(', ') + (list.length > 3 ? `, … (${list.length} in all)` : '');
}

/**
 * Compares a base and a candidate configuration question by question (SPEC §7; the
 * regression-gate chapter, "Gate a change in CI"). For every question both sides cover: the
 * share of runs correct in each side (per-seed outcomes kept), d = candidate − base, and
 * whether the question is fixed (d > 0), broken (d < 0) or a stable break (base share ≥
 * `rules.stableBreak.baseMin` and candidate share ≤ `rules.stableBreak.candidateMax`). Over
 * the questions: mean paired difference with a Student-t interval at `rules.confidence`
 * (n − 1 degrees of freedom), an exact two-sided sign test on the non-zero d, and the smallest
 * change the mean rule can detect on this many questions.
 *
 * Questions in one side only are listed (`unpaired`), never silently dropped; expected seeds a
 * question lacks are listed per question (`missingSeeds`). A question with a `missing_recording`
 * run on either side is **excluded** from the paired statistics (`excluded`: it is not an
 * answer, so it moves no mean, interval, sign test, fixed/broken count or stable break); its
 * runs are listed per side (`missingRecordings`) and the missing-recording rule fails the gate
 * for it. When every shared question is excluded, nothing is compared: n = 0, mean 0, no
 * interval (`kind: 'none'` with the reason), sign test p = 1.
 *
 * @param base - scored runs of the base configuration, one per question and seed
 * @param candidate - scored runs of the candidate configuration, one per question and seed
 * @param rules - gate rules (thresholds, confidence); default {@link DEFAULT_GATE_RULES}
 * @param options - `seeds` to restrict both sides to
 * @throws DataError when the sides share no question (but for a shard: `options.shard`), a side holds two runs of one question
 *   with the same seed, or a shared question has a different kind or database in the two sides
 *   (the sides were scored on different golden sets)
 * @example compareRuns(chapterBase, chapterCandidate).interval // { kind: 'interval', mean: 0.0167, low: -0.228, high: 0.262, … }
 */
export function compareRuns(
  base: readonly RunRecord[],
  candidate: readonly RunRecord[],
  rules: GateRules = DEFAULT_GATE_RULES,
  options: CompareOptions = {},
): Comparison {
  const b = indexSide('base', base, options.seeds);
  const c = indexSide('candidate', candidate, options.seeds);
  // Natural id order (q-2 before q-10): the lists the gate prints (stable breaks, fixed, broken) read in id order.
  const pairedIds = b.questions.ids.filter((id) => c.questions.has(id)).sort(naturalIdOrder);
  if (pairedIds.length === 0 && options.shard !== true) {
    const seedNote = options.seeds === undefined ? '' : ` with seeds ${options.seeds.join(', ')}`;
    throw new DataError(
      `base and candidate have no question in common${seedNote}: base covers ${b.questions.size} (${examples(b.questions.ids)}), ` +
        `candidate covers ${c.questions.size} (${examples(c.questions.ids)}). Score both on the same golden questions.`,
    );
  }
  // Per-seed outcomes follow the seed order (the `seeds` option, else first appearance in the
  // base, then the candidate), so the first seed (the shown answer's) comes first.
  const seedOrder = new Map<number, number>();
  for (const seed of [...b.seeds, ...c.seeds]) if (!seedOrder.has(seed)) seedOrder.set(seed, seedOrder.size);
  const excluded: ExcludedQuestion[] = [];
  const compared: QuestionComparison[] = pairedIds.map((questionId) => {
    const bIndex = b.questions.indexOf(questionId) as number;
    const cIndex = c.questions.indexOf(questionId) as number;
    // A question's kind and database as its side's first run of it has them.
    const bq = b.questions.firstOf(bIndex);
    const cq = c.questions.firstOf(cIndex);
    if (bq.kind !== cq.kind || bq.db !== cq.db) {
      throw new DataError(
        `question ${questionId} is kind ${bq.kind}${bq.db === undefined ? '' : ` on ${bq.db}`} in base but kind ${cq.kind}` +
          `${cq.db === undefined ? '' : ` on ${cq.db}`} in candidate: the two sides were scored on different golden sets; score both on the same one`,
      );
    }
    const bs = sideQuestion(b, bIndex, seedOrder);
    const cs = sideQuestion(c, cIndex, seedOrder);
    const difference = cs.share - bs.share;
    const movement = difference > 0 ? 'fixed' : difference < 0 ? 'broken' : 'unchanged';
    // A run with no recording is not an answer: the question leaves the statistics (below) and
    // the missing_recording rule fails the gate for it, under its own reason only.
    const unrecorded = (s: SideQuestion): number[] => s.outcomes.filter((o) => o.outcome === 'missing_recording').map((o) => o.seed);
    if (unrecorded(bs).length > 0 || unrecorded(cs).length > 0) excluded.push({ questionId, baseSeeds: unrecorded(bs), candidateSeeds: unrecorded(cs) });
    const stableBreak =
      difference < 0 &&
      bs.share >= rules.stableBreak.baseMin - SHARE_EPSILON &&
      cs.share <= rules.stableBreak.candidateMax + SHARE_EPSILON;
    return { questionId, base: bs, candidate: cs, difference, movement, stableBreak };
  });
  const left = new Set(excluded.map((e) => e.questionId));
  const questions = compared.filter((q) => !left.has(q.questionId));
  const differences = questions.map((q) => q.difference);
  const interval =
    differences.length === 0
      ? ({
          kind: 'none',
          mean: 0,
          n: 0,
          confidence: rules.confidence,
          reason:
            pairedIds.length === 0
              ? 'no question of this shard is covered by both sides: nothing to compare in it (replaygate merge compares every shard\'s questions)'
              : `no question has a recording on both sides (${excluded.length} excluded for missing recordings): nothing to compare`,
          method: 'student-t',
        } as const)
      : studentTInterval(differences, rules.confidence);
  return {
    base: summary(b, c, questions, options.labels),
    candidate: summary(c, b, questions, options.labels),
    questions,
    excluded,
    meanDifference: interval.mean,
    interval,
    fixed: questions.filter((q) => q.movement === 'fixed').map((q) => q.questionId),
    broken: questions.filter((q) => q.movement === 'broken').map((q) => q.questionId),
    signTest: signTest(differences),
    stableBreaks: questions.filter((q) => q.stableBreak).map((q) => q.questionId),
    smallestDetectable:
      questions.length === 0
        ? { kind: 'none', n: 0, confidence: rules.confidence, reason: 'no question compared: the mean rule detects nothing' }
        : smallestDetectable(questions.length, rules.confidence),
    singleRun: questions.length > 0 && questions.every((q) => q.base.runs === 1 && q.candidate.runs === 1),
    rules,
  };
}
