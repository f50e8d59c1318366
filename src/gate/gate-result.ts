import type { RunRecord } from '../scoring/types.js';
import type { SignTestResult } from '../stats/sign-test.js';
import { compareRuns, type CompareOptions } from './compare-runs.js';
import { ambiguousComparedIds, gateVerdict } from './gate-verdict.js';
import type { RerecordContext } from './rerecord.js';
import { DEFAULT_GATE_RULES } from './rules.js';
import type {
  AmbiguousGolden,
  Comparison,
  ExcludedQuestion,
  GateNote,
  GateReason,
  GateRules,
  GoldenAmbiguity,
  MissingRun,
  QuestionComparison,
  SideSummary,
} from './types.js';

/** Version of the gate's JSON report; bumped on any incompatible change of {@link GateResult}. */
export const GATE_SCHEMA_VERSION = 1;

/**
 * The gate's JSON report (`replaygate gate --json FILE`) and the input of the Markdown
 * renderer. Plain JSON: no NaN, no undefined; `interval` and `smallestDetectable` are `null`
 * when they do not exist (one question), with the reason in `intervalNote`.
 */
export interface GateResult {
  readonly schemaVersion: typeof GATE_SCHEMA_VERSION;
  readonly verdict: 'pass' | 'fail';
  readonly reasons: readonly GateReason[];
  readonly notes: readonly GateNote[];
  /** Questions compared: covered by both sides, every run recorded. */
  readonly n: number;
  /** Questions covered by both sides but left out of the statistics: a run has no recording. */
  readonly excluded: readonly ExcludedQuestion[];
  readonly meanDifference: number;
  /**
   * The t interval of the mean paired difference, clipped to [−1, 1] (no paired difference lies
   * outside it); `clipped` says when the t interval reached past either end (its raw ends are
   * `rawLow`, `rawHigh`).
   */
  readonly interval: {
    readonly low: number;
    readonly high: number;
    readonly clipped: boolean;
    readonly rawLow: number;
    readonly rawHigh: number;
    readonly halfWidth: number;
    readonly tMultiplier: number;
    readonly degreesOfFreedom: number;
    readonly confidence: number;
  } | null;
  readonly intervalNote: string | null;
  readonly signTestP: number;
  readonly signTest: SignTestResult;
  readonly fixed: readonly string[];
  readonly broken: readonly string[];
  readonly stableBreaks: readonly string[];
  readonly missingRecordings: { readonly base: readonly MissingRun[]; readonly candidate: readonly MissingRun[] };
  readonly smallestDetectable: { readonly flips: number; readonly meanChange: number } | null;
  /** True when every compared question has one run per side (every flip counts as stable). */
  readonly singleRun: boolean;
  /**
   * Compared questions whose golden result is ambiguous (golden `ORDER BY … LIMIT` cuts through
   * ties), in comparison order; empty when none or when not checked (see `ambiguityChecked`).
   */
  readonly ambiguousGolden: readonly AmbiguousGolden[];
  /** Whether golden ambiguity was checked (false with runs files: no golden SQL to re-run). */
  readonly ambiguityChecked: boolean;
  readonly base: SideSummary;
  readonly candidate: SideSummary;
  readonly rules: GateRules;
  readonly questions: readonly QuestionComparison[];
}

/**
 * Assembles the JSON report from a comparison and its rules (runs {@link gateVerdict}).
 *
 * @param comparison - from `compareRuns`
 * @param rules - the gate rules (default {@link DEFAULT_GATE_RULES})
 * @param ambiguity - golden questions with an ambiguous result (`goldenAmbiguities` in
 *   src/pipeline), or why that was not checked; omitted: not checked, nothing said
 * @param rerecord - how the gate was called, for the re-record command of missing recordings
 * @example gateResult(compareRuns(chapterBase, chapterCandidate)).signTestP // 1
 */
export function gateResult(comparison: Comparison, rules: GateRules = DEFAULT_GATE_RULES, ambiguity?: GoldenAmbiguity, rerecord: RerecordContext = {}): GateResult {
  const verdict = gateVerdict(comparison, rules, ambiguity, rerecord);
  const ambiguousIds = ambiguousComparedIds(comparison, ambiguity);
  const reasonOf = new Map(ambiguity?.checked === true ? ambiguity.ambiguous.map((a) => [a.id, a.reason]) : []);
  const t = comparison.interval;
  const s = comparison.smallestDetectable;
  return {
    schemaVersion: GATE_SCHEMA_VERSION,
    verdict: verdict.verdict,
    reasons: verdict.reasons,
    notes: verdict.notes,
    n: comparison.questions.length,
    excluded: comparison.excluded,
    meanDifference: comparison.meanDifference,
    interval:
      t.kind === 'interval'
        ? {
            low: Math.max(-1, t.low),
            high: Math.min(1, t.high),
            clipped: t.low < -1 || t.high > 1,
            rawLow: t.low,
            rawHigh: t.high,
            halfWidth: t.halfWidth,
            tMultiplier: t.tMultiplier,
            degreesOfFreedom: t.degreesOfFreedom,
            confidence: t.confidence,
          }
        : null,
    intervalNote: t.kind === 'none' ? t.reason : null,
    signTestP: comparison.signTest.p,
    signTest: comparison.signTest,
    fixed: comparison.fixed,
    broken: comparison.broken,
    // Graded by the engine's tie-break (spider mode), a break on an ambiguous golden question may
    // be a tie-break: it is not reported as a stable break (the ambiguous_golden note lists it).
    stableBreaks: ambiguity?.checked === true && ambiguity.gradedByTieBreak === true ? comparison.stableBreaks.filter((id) => !ambiguousIds.has(id)) : comparison.stableBreaks,
    missingRecordings: { base: comparison.base.missingRecordings, candidate: comparison.candidate.missingRecordings },
    smallestDetectable: s.kind === 'detectable' ? { flips: s.flips, meanChange: s.meanChange } : null,
    singleRun: comparison.singleRun,
    ambiguousGolden: comparison.questions
      .filter((q) => ambiguousIds.has(q.questionId))
      .map((q) => ({ id: q.questionId, reason: reasonOf.get(q.questionId) ?? '' })),
    ambiguityChecked: ambiguity?.checked === true,
    base: comparison.base,
    candidate: comparison.candidate,
    rules: comparison.rules,
    questions: comparison.questions,
  };
}

/**
 * Compares base and candidate runs and applies the gate: `compareRuns` then `gateResult`.
 *
 * @param ambiguity - as {@link gateResult}
 * @throws DataError as `compareRuns`
 * @example runGate(chapterBase, chapterCandidate).verdict // 'fail'
 */
export function runGate(
  base: readonly RunRecord[],
  candidate: readonly RunRecord[],
  rules: GateRules = DEFAULT_GATE_RULES,
  options: CompareOptions = {},
  ambiguity?: GoldenAmbiguity,
): GateResult {
  return gateResult(compareRuns(base, candidate, rules, options), rules, ambiguity);
}
