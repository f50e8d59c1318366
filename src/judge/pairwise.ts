import type { RunRecord } from '../scoring/types.js';
import type { JudgePair, JudgedPair, PairVerdict, Side, SkippedPair } from './types.js';

/**
 * How a run ended without a number, or undefined when it gave one (or failed): a decline —
 * `declined` on an answer question, `correct` on a decline/forbidden question (where a decline
 * is the right reply) — or a question back.
 */
function textEnd(run: RunRecord): 'declined' | 'asked_back' | undefined {
  if (run.outcome === 'declined' || (run.outcome === 'correct' && run.kind !== 'answer')) return 'declined';
  if (run.outcome === 'asked_back') return 'asked_back';
  return undefined;
}

/** The question text and kind of a golden question, for building pairs. */
export interface PairQuestion {
  readonly question: string;
  readonly kind: string;
}

/**
 * Builds the pairs to judge from two configurations' scored runs: every question on which
 * both the base and the candidate declined (outcome `declined`, or `correct` on a decline
 * question) or asked back, on their shown answers (the run with the smallest seed of each
 * question). A pair where one side has no reason text is
 * skipped with a stated reason, never judged.
 *
 * @param base - the base configuration's runs (one agent).
 * @param candidate - the candidate configuration's runs (one agent).
 * @param questions - question id → text and kind (from the golden questions).
 * @returns pairs in the base runs' question order, and the skipped ones with reasons.
 * @example pairsFromRuns(baseRuns, candidateRuns, questions) // { pairs: [{ questionId: 'gq-021', … }], skipped: [] }
 */
export function pairsFromRuns(
  base: readonly RunRecord[],
  candidate: readonly RunRecord[],
  questions: ReadonlyMap<string, PairQuestion>,
): { pairs: JudgePair[]; skipped: SkippedPair[] } {
  const shownBase = shownRuns(base);
  const shownCandidate = shownRuns(candidate);
  const pairs: JudgePair[] = [];
  const skipped: SkippedPair[] = [];
  for (const [questionId, b] of shownBase) {
    const c = shownCandidate.get(questionId);
    const bEnd = textEnd(b);
    const cEnd = c === undefined ? undefined : textEnd(c);
    if (c === undefined || bEnd === undefined || cEnd === undefined) continue;
    const q = questions.get(questionId);
    if (q === undefined) {
      skipped.push({ questionId, reason: `question ${questionId} is not among the golden questions, so the judge has no question text` });
      continue;
    }
    const missing = [
      ...(isBlank(b.text) ? [`base (${b.agent}) ${bEnd.replace('_', ' ')} with no reason text`] : []),
      ...(isBlank(c.text) ? [`candidate (${c.agent}) ${cEnd.replace('_', ' ')} with no reason text`] : []),
    ];
    if (missing.length > 0) {
      skipped.push({ questionId, reason: `${missing.join('; ')}: nothing to compare` });
      continue;
    }
    pairs.push({
      questionId,
      question: q.question,
      kind: q.kind,
      base: { name: b.agent, outcome: bEnd, text: b.text!.trim() },
      candidate: { name: c.agent, outcome: cEnd, text: c.text!.trim() },
    });
  }
  return { pairs, skipped };
}

function isBlank(text: string | undefined): boolean {
  return text === undefined || text.trim() === '';
}

/** Question id → the run with the smallest seed (the shown answer), in first-seen order. */
function shownRuns(runs: readonly RunRecord[]): Map<string, RunRecord> {
  const out = new Map<string, RunRecord>();
  for (const run of runs) {
    const seen = out.get(run.questionId);
    if (seen === undefined || run.seed < seen.seed) out.set(run.questionId, run);
  }
  return out;
}

/** Who a verdict favours: the side whose text won, a tie, or null when unparsed. */
export type Winner = Side | 'tie' | null;

/** One pair's verdicts in both orders, read out (see {@link analysePairs}). */
export interface PairResult {
  readonly questionId: string;
  readonly kind: string;
  /** Verdict label with the base text first (A = base) and with the candidate first (A = candidate). */
  readonly baseFirst: PairVerdict['label'];
  readonly candidateFirst: PairVerdict['label'];
  /** The judge's reasons in the two orders ('' when unparsed). */
  readonly baseFirstReason: string;
  readonly candidateFirstReason: string;
  /** The winner each order names. */
  readonly winnerBaseFirst: Winner;
  readonly winnerCandidateFirst: Winner;
  /** Both orders parsed and name the same winner (or both tie). */
  readonly sameVerdict: boolean;
  /** Both orders chose the text shown first (A, A) or shown second (B, B); null otherwise. */
  readonly position: 'first' | 'second' | null;
  /** The winner when both orders agree, else null. */
  readonly consistentWinner: Winner;
  /** Lengths of the two texts in characters (Unicode code points). */
  readonly baseChars: number;
  readonly candidateChars: number;
  /** Whether the consistent winner's text was strictly longer; null without a consistent side winner. */
  readonly longerWon: boolean | null;
  /** The pair had an unparsed verdict in at least one order. */
  readonly unparsed: boolean;
}

/** Counts of a set of judged pairs (all, or one question kind). */
export interface PairCounts {
  readonly pairs: number;
  /** Pairs with an unparsed verdict in at least one order. */
  readonly unparsed: number;
  readonly sameVerdict: number;
  readonly firstPositionBoth: number;
  readonly secondPositionBoth: number;
  /** Consistent winners: base text won in both orders, candidate text won in both, tie in both. */
  readonly baseWins: number;
  readonly candidateWins: number;
  readonly ties: number;
  /** Pairs with a consistent side winner, and of them how many the longer text won. */
  readonly consistentSideWins: number;
  readonly longerWon: number;
}

/** The pairwise report (see {@link analysePairs}). */
export interface PairwiseReport {
  readonly base: string;
  readonly candidate: string;
  readonly totals: PairCounts;
  /** Per question kind, kinds in first-seen order. */
  readonly byKind: readonly ({ readonly kind: string } & PairCounts)[];
  readonly results: readonly PairResult[];
  readonly skipped: readonly SkippedPair[];
  /** Judge calls whose reply was unparsed: question id, order and the problem. */
  readonly unparsedCalls: readonly { readonly questionId: string; readonly order: 'base-first' | 'candidate-first'; readonly problem: string }[];
}

function winnerOf(label: PairVerdict['label'], first: Side): Winner {
  if (label === 'unparsed') return null;
  if (label === 'tie') return 'tie';
  const second: Side = first === 'base' ? 'candidate' : 'base';
  return label === 'A' ? first : second;
}

/**
 * Reads pairs judged in both orders: per pair the winner in each order, whether the verdict
 * held when the order was swapped, position bias (the text shown first, or second, won in
 * both orders), the consistent winner and whether it was the longer text (verbosity bias);
 * and the counts over all pairs and per question kind.
 *
 * Source: the regression-gate chapter, "Judge only what can't be compared" (8 pairs: same
 * verdict in both orders 7 of 8, first reason won in both orders 1 of 8, second 0; the
 * consistent winner was the longer reason 6 times); Zheng et al. (2023), "Judging
 * LLM-as-a-judge with MT-Bench and Chatbot Arena" (position and verbosity bias).
 *
 * @param judged - pairs with their verdicts in both orders.
 * @param skipped - pairs that could not be judged, carried into the report.
 * @param names - the two configurations' names (default: from the first pair).
 * @example analysePairs([{ pair, baseFirst: { label: 'A', reason: '' }, candidateFirst: { label: 'A', reason: '' } }]).totals.firstPositionBoth // 1
 */
export function analysePairs(
  judged: readonly JudgedPair[],
  skipped: readonly SkippedPair[] = [],
  names?: { readonly base: string; readonly candidate: string },
): PairwiseReport {
  const results: PairResult[] = judged.map(({ pair, baseFirst, candidateFirst }) => {
    const winnerBaseFirst = winnerOf(baseFirst.label, 'base');
    const winnerCandidateFirst = winnerOf(candidateFirst.label, 'candidate');
    const unparsed = winnerBaseFirst === null || winnerCandidateFirst === null;
    const sameVerdict = !unparsed && winnerBaseFirst === winnerCandidateFirst;
    const position =
      baseFirst.label === 'A' && candidateFirst.label === 'A' ? 'first' : baseFirst.label === 'B' && candidateFirst.label === 'B' ? 'second' : null;
    const consistentWinner = sameVerdict ? winnerBaseFirst : null;
    const baseChars = [...pair.base.text].length;
    const candidateChars = [...pair.candidate.text].length;
    const longerWon =
      consistentWinner === 'base' ? baseChars > candidateChars : consistentWinner === 'candidate' ? candidateChars > baseChars : null;
    return {
      questionId: pair.questionId,
      kind: pair.kind,
      baseFirst: baseFirst.label,
      candidateFirst: candidateFirst.label,
      baseFirstReason: baseFirst.label === 'unparsed' ? '' : baseFirst.reason,
      candidateFirstReason: candidateFirst.label === 'unparsed' ? '' : candidateFirst.reason,
      winnerBaseFirst,
      winnerCandidateFirst,
      sameVerdict,
      position,
      consistentWinner,
      baseChars,
      candidateChars,
      longerWon,
      unparsed,
    };
  });
  const kinds = [...new Set(results.map((r) => r.kind))];
  const unparsedCalls = judged.flatMap(({ pair, baseFirst, candidateFirst }) => [
    ...(baseFirst.label === 'unparsed' ? [{ questionId: pair.questionId, order: 'base-first' as const, problem: baseFirst.problem }] : []),
    ...(candidateFirst.label === 'unparsed' ? [{ questionId: pair.questionId, order: 'candidate-first' as const, problem: candidateFirst.problem }] : []),
  ]);
  return {
    base: names?.base ?? judged[0]?.pair.base.name ?? 'base',
    candidate: names?.candidate ?? judged[0]?.pair.candidate.name ?? 'candidate',
    totals: countPairs(results),
    byKind: kinds.map((kind) => ({ kind, ...countPairs(results.filter((r) => r.kind === kind)) })),
    results,
    skipped,
    unparsedCalls,
  };
}

function countPairs(results: readonly PairResult[]): PairCounts {
  const count = (test: (r: PairResult) => boolean): number => results.reduce((n, r) => n + (test(r) ? 1 : 0), 0);
  return {
    pairs: results.length,
    unparsed: count((r) => r.unparsed),
    sameVerdict: count((r) => r.sameVerdict),
    firstPositionBoth: count((r) => r.position === 'first'),
    secondPositionBoth: count((r) => r.position === 'second'),
    baseWins: count((r) => r.consistentWinner === 'base'),
    candidateWins: count((r) => r.consistentWinner === 'candidate'),
    ties: count((r) => r.consistentWinner === 'tie'),
    consistentSideWins: count((r) => r.longerWon !== null),
    longerWon: count((r) => r.longerWon === true),
  };
}
