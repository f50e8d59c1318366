import { formatIds, formatSigned } from './format.js';
import { DEFAULT_GATE_RULES } from './rules.js';
import type { Comparison, GateNote, GateReason, GateRules, GateVerdict, QuestionComparison } from './types.js';

function breakLabel(q: QuestionComparison): string {
  return `${q.questionId} (base ${q.base.correct} of ${q.base.runs}, candidate ${q.candidate.correct} of ${q.candidate.runs})`;
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

/**
 * Applies the gate's rules to a comparison (SPEC §7; the regression-gate chapter, "Gate a
 * change in CI"). The verdict is `fail` when any enabled rule fires, each as a named reason
 * listing the questions behind it:
 *
 * - `stable_break`: a question the base got right in ≥ `baseMin` of its runs and the candidate
 *   in ≤ `candidateMax` (default 4 of 5 and 1 of 5);
 * - `interval_below_zero`: the whole t interval of the mean paired difference lies below zero
 *   (questions: the broken ones);
 * - `missing_recording`: a run in either side ended in `missing_recording`;
 * - `unpaired_question` (off by default): a question in one side only.
 *
 * Notes, which never fail the gate by themselves, say what the reader must know: one run per
 * question (every flip then counts as stable), one question (no interval exists), questions in
 * one side only, seeds missing per question, and missing recordings when that rule is off.
 *
 * @param comparison - from `compareRuns`
 * @param rules - which rules fail the gate; default {@link DEFAULT_GATE_RULES} (thresholds and
 *   confidence were already applied by `compareRuns`)
 * @example gateVerdict(compareRuns(chapterBase, chapterCandidate)) // { verdict: 'fail', reasons: [{ code: 'stable_break', questions: ['gq-008'], … }], … }
 */
export function gateVerdict(comparison: Comparison, rules: GateRules = DEFAULT_GATE_RULES): GateVerdict {
  const reasons: GateReason[] = [];
  const notes: GateNote[] = [];
  const singleRunNote =
    'with one run per question every flip counts as stable; record several seeds to tell a stable break from sampling noise';

  const missing = [
    ...comparison.base.missingRecordings.map((m) => ({ side: 'base', ...m })),
    ...comparison.candidate.missingRecordings.map((m) => ({ side: 'candidate', ...m })),
  ];
  if (missing.length > 0) {
    const questions = unique(missing.map((m) => m.questionId));
    const counts = `${comparison.base.missingRecordings.length} run(s) in base, ${comparison.candidate.missingRecordings.length} in candidate`;
    const message =
      `missing recording: ${counts} (${formatIds(missing.map((m) => `${m.questionId} seed ${m.seed} [${m.side}]`), 5)}); ` +
      'record them (`replaygate record`) before gating: a changed prompt or setting needs a new recording';
    if (rules.failOnMissingRecording) reasons.push({ code: 'missing_recording', message, questions });
    else notes.push({ code: 'missing_recording', message, questions });
  }

  const breaks = comparison.questions.filter((q) => q.stableBreak);
  if (rules.failOnStableBreak && breaks.length > 0) {
    const suffix = comparison.singleRun ? ' (one run per question: every flip counts as stable)' : '';
    reasons.push({
      code: 'stable_break',
      message: `stable break: ${formatIds(breaks.map(breakLabel), 10)}${suffix}`,
      questions: breaks.map((q) => q.questionId),
    });
  }

  const interval = comparison.interval;
  if (rules.failOnIntervalBelowZero && interval.kind === 'interval' && interval.high < 0) {
    const level = Math.round(interval.confidence * 100);
    reasons.push({
      code: 'interval_below_zero',
      message:
        `mean paired difference ${formatSigned(interval.mean)} with ${level}% interval ${formatSigned(interval.low)} to ` +
        `${formatSigned(interval.high)} lies wholly below zero (broken: ${formatIds(comparison.broken, 10)})`,
      questions: comparison.broken,
    });
  }

  const unpaired = [...comparison.base.unpaired, ...comparison.candidate.unpaired];
  if (unpaired.length > 0) {
    const message =
      `${comparison.base.unpaired.length} question(s) in base only (${formatIds(comparison.base.unpaired, 5) || 'none'}), ` +
      `${comparison.candidate.unpaired.length} in candidate only (${formatIds(comparison.candidate.unpaired, 5) || 'none'}): not compared`;
    if (rules.failOnUnpairedQuestion) reasons.push({ code: 'unpaired_question', message, questions: unpaired });
    else notes.push({ code: 'unpaired_question', message, questions: unpaired });
  }

  if (comparison.singleRun) {
    notes.push({ code: 'single_run', message: singleRunNote, questions: [] });
  }
  if (interval.kind === 'none') {
    notes.push({
      code: 'no_interval',
      message:
        'one question in common: no t interval exists (n − 1 = 0 degrees of freedom), so the interval rule cannot fire; ' +
        'the stable-break and missing-recording rules still apply',
      questions: comparison.questions.map((q) => q.questionId),
    });
  }
  const seedGaps = [
    ...comparison.base.missingSeeds.map((m) => ({ side: 'base', ...m })),
    ...comparison.candidate.missingSeeds.map((m) => ({ side: 'candidate', ...m })),
  ];
  if (seedGaps.length > 0) {
    notes.push({
      code: 'missing_seeds',
      message: `seeds missing: ${formatIds(
        seedGaps.map((g) => `${g.questionId} [${g.side}: seed ${g.seeds.join(', ')}]`),
        5,
      )}; their shares are over the runs present`,
      questions: unique(seedGaps.map((g) => g.questionId)),
    });
  }
  return { verdict: reasons.length === 0 ? 'pass' : 'fail', reasons, notes };
}
