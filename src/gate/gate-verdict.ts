import { AMBIGUOUS_GOLDEN_MARK, formatIds, formatSigned, markAmbiguous } from './format.js';
import { rerecordCommands, type RerecordContext } from './rerecord.js';
import { couldNotRun } from './agent-failures.js';
import { DEFAULT_GATE_RULES } from './rules.js';
import type { Comparison, GateNote, GateReason, GateRules, GateVerdict, GoldenAmbiguity, QuestionComparison } from './types.js';

function breakLabel(q: QuestionComparison, ambiguous: ReadonlySet<string>): string {
  const mark = ambiguous.has(q.questionId) ? `; ${AMBIGUOUS_GOLDEN_MARK}` : '';
  return `${q.questionId} (base ${q.base.correct} of ${q.base.runs}, candidate ${q.candidate.correct} of ${q.candidate.runs}${mark})`;
}

/** Ids of the compared questions whose golden result is ambiguous (empty when not checked). */
export function ambiguousComparedIds(comparison: Comparison, ambiguity: GoldenAmbiguity | undefined): Set<string> {
  if (ambiguity?.checked !== true) return new Set();
  const compared = new Set(comparison.questions.map((q) => q.questionId));
  return new Set(ambiguity.ambiguous.map((a) => a.id).filter((id) => compared.has(id)));
}

/** The last lines of a run's detail (the end of standard error), on one line, bounded. */
function detailTail(detail: string | undefined, max = 400): string {
  const text = (detail ?? 'none').split('\n').map((l) => l.trim()).filter(Boolean).slice(-6).join(' ⏎ ');
  return text.length > max ? `…${text.slice(-max)}` : text;
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
 * - `unpaired_question` (off by default): a question in one side only;
 * - `agent_failure`: the agent of one side could not run — its program failed with one cause
 *   (crashed, timed out, printed no answer: `RunRecord.failure`) in two or more runs, or in all
 *   of a side's runs when it has fewer — unless the other side failed alike on those same runs.
 *   Such runs count as not correct, so without this rule a base whose agent cannot start (a
 *   dependency that is not committed) would make any candidate read as an improvement.
 *
 * Notes, which never fail the gate by themselves, say what the reader must know: one run per
 * question (every flip then counts as stable), one question (no interval exists), questions in
 * one side only, seeds missing per question, missing recordings when that rule is off, moved
 * questions whose golden result is ambiguous, and that ambiguity was not checked.
 *
 * Questions whose golden result is ambiguous (golden `ORDER BY … LIMIT` cutting through ties)
 * are marked "golden LIMIT cuts through ties: the golden result is ambiguous" wherever a reason
 * lists them. They still fail the gate, unless `rules.ignoreAmbiguousGolden` is set (then their
 * stable breaks are listed in a note instead).
 *
 * @param comparison - from `compareRuns`
 * @param rules - which rules fail the gate; default {@link DEFAULT_GATE_RULES} (thresholds and
 *   confidence were already applied by `compareRuns`)
 * @param ambiguity - the golden questions with an ambiguous result (from `goldenAmbiguities`),
 *   or why that was not checked; omitted: nothing is said about ambiguity
 * @param rerecord - how the gate was called (config path, split), so that the missing-recording
 *   reason ends with the one command per agent that records exactly what is missing
 * @example gateVerdict(compareRuns(chapterBase, chapterCandidate)) // { verdict: 'fail', reasons: [{ code: 'stable_break', questions: ['gq-008'], … }], … }
 */
export function gateVerdict(comparison: Comparison, rules: GateRules = DEFAULT_GATE_RULES, ambiguity?: GoldenAmbiguity, rerecord: RerecordContext = {}): GateVerdict {
  const reasons: GateReason[] = [];
  const notes: GateNote[] = [];
  const ambiguous = ambiguousComparedIds(comparison, ambiguity);
  const byTieBreak = ambiguity?.checked === true && ambiguity.gradedByTieBreak === true;
  // Graded by the engine's tie-break (spider mode), a break on an ambiguous question may be a
  // tie-break: never report it as a stable break (listed in the note instead).
  const ignoreAmbiguous = (rules.ignoreAmbiguousGolden || byTieBreak) && ambiguity?.checked === true;
  const singleRunNote =
    'with one run per question every flip counts as stable; record several seeds to tell a stable break from sampling noise';

  const missing = [
    ...comparison.base.missingRecordings.map((m) => ({ side: 'base', ...m })),
    ...comparison.candidate.missingRecordings.map((m) => ({ side: 'candidate', ...m })),
  ];
  if (missing.length > 0) {
    const questions = unique(missing.map((m) => m.questionId));
    const counts = `${comparison.base.missingRecordings.length} run(s) in base, ${comparison.candidate.missingRecordings.length} in candidate`;
    const excluded = comparison.excluded.length;
    const commands = missingRecordingCommands(comparison, rerecord);
    const message =
      `missing recording: ${counts} (${formatIds(missing.map((m) => `${m.questionId} seed ${m.seed} [${m.side}]`), 5)}); ` +
      (excluded > 0 ? `${excluded} question(s) left out of the paired statistics; ` : '') +
      `a changed prompt or setting needs a new recording. Record exactly what is missing: ${commands.map((c) => `\`${c}\``).join(' and ')}`;
    if (rules.failOnMissingRecording) reasons.push({ code: 'missing_recording', message, questions });
    else notes.push({ code: 'missing_recording', message, questions });
  }

  for (const [side, summary] of [['base', comparison.base], ['candidate', comparison.candidate]] as const) {
    for (const failure of summary.agentFailures.filter((f) => couldNotRun(f, summary.runs))) {
      const runs = failure.runs.map((r) => `${r.questionId} seed ${r.seed}`);
      const message =
        `the ${side}'s agent could not run: ${failure.runs.length} of its ${summary.runs} run(s) failed the same way — ${failure.cause} ` +
        `(${formatIds(runs, 5)})` +
        (failure.inBothSides
          ? '; the other side failed alike on the same runs'
          : `; those runs say nothing about the ${side === 'base' ? 'candidate' : 'base'}: fix the cause and gate again (the first run's detail: ${detailTail(failure.detail)})`);
      const questions = unique(failure.runs.map((r) => r.questionId));
      if (rules.failOnAgentFailure && !failure.inBothSides) reasons.push({ code: 'agent_failure', message, questions });
      else notes.push({ code: 'agent_failure', message, questions });
    }
  }

  const allBreaks = comparison.questions.filter((q) => q.stableBreak);
  const breaks = ignoreAmbiguous ? allBreaks.filter((q) => !ambiguous.has(q.questionId)) : allBreaks;
  if (rules.failOnStableBreak && breaks.length > 0) {
    const suffix = comparison.singleRun ? ' (one run per question: every flip counts as stable)' : '';
    reasons.push({
      code: 'stable_break',
      message: `stable break: ${formatIds(breaks.map((q) => breakLabel(q, ambiguous)), 10)}${suffix}`,
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
        `${formatSigned(interval.high)} lies wholly below zero (broken: ${formatIds(comparison.broken.map((id) => markAmbiguous(id, ambiguous)), 10)})`,
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

  if (comparison.excluded.length > 0) {
    notes.push({
      code: 'excluded_questions',
      message:
        `${comparison.excluded.length} question(s) excluded from the paired statistics (mean, interval, sign test, fixed/broken, stable breaks): ` +
        `a run has no recording (${formatIds(comparison.excluded.map((e) => e.questionId), 10)}); ${comparison.questions.length} compared`,
      questions: comparison.excluded.map((e) => e.questionId),
    });
  }
  if (comparison.singleRun) {
    notes.push({ code: 'single_run', message: singleRunNote, questions: [] });
  }
  if (interval.kind === 'interval' && (interval.low < -1 || interval.high > 1)) {
    notes.push({
      code: 'interval_clipped',
      message:
        `the t interval ${formatSigned(interval.low)} to ${formatSigned(interval.high)} reaches past [−1, 1], where every paired difference lies; ` +
        `it is shown clipped (${formatSigned(Math.max(-1, interval.low))} to ${formatSigned(Math.min(1, interval.high))}): too few questions for a t interval to say much`,
      questions: [],
    });
  }
  if (interval.kind === 'none' && interval.n === 1) {
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
  const movedAmbiguous = comparison.questions.filter((q) => q.movement !== 'unchanged' && ambiguous.has(q.questionId));
  if (movedAmbiguous.length > 0) {
    const ignored = ignoreAmbiguous && rules.failOnStableBreak ? allBreaks.filter((q) => ambiguous.has(q.questionId)) : [];
    notes.push({
      code: 'ambiguous_golden',
      message:
        `the golden result is ambiguous (golden LIMIT cuts through ties) for ${movedAmbiguous.length} moved question(s): ` +
        `${formatIds(movedAmbiguous.map((q) => `${q.questionId} [${q.stableBreak ? 'stable break' : q.movement}]`), 10)}; ` +
        (byTieBreak
          ? 'spider mode grades by the engine\'s tie-break, as the official evaluator does, so a move may be a different tie-break rather than a real change: gate in relaxed or exact mode (which accept any tied row) for a verdict, or add a tie-breaker to the golden ORDER BY'
          : 'both sides were graded under any admissible tie-break (any of the tied rows is correct), so the move is a real change; a tie-breaker in the golden ORDER BY would make the golden answer unique') +
        (ignored.length > 0
          ? ` (${byTieBreak && !rules.ignoreAmbiguousGolden ? 'graded by tie-break' : 'gate.ignore_ambiguous_golden'}: the stable break of ${formatIds(ignored.map((q) => q.questionId), 10)} does not fail the gate)`
          : ''),
      questions: movedAmbiguous.map((q) => q.questionId),
    });
  }
  if (ambiguity?.checked === false) {
    notes.push({
      code: 'ambiguity_not_checked',
      message:
        `golden results not checked for ambiguity (ORDER BY … LIMIT cutting through ties): ${ambiguity.why}` +
        (rules.ignoreAmbiguousGolden ? '; gate.ignore_ambiguous_golden cannot apply' : ''),
      questions: [],
    });
  }
  return { verdict: reasons.length === 0 ? 'pass' : 'fail', reasons, notes };
}

/**
 * The `replaygate record` commands (one per side's agent, candidate first) that record every
 * run the comparison found without a recording, seeds included.
 * @example missingRecordingCommands(comparison) // ['replaygate record --agent candidate --questions q5 --seeds 2']
 */
export function missingRecordingCommands(comparison: Comparison, context: RerecordContext = {}): string[] {
  const sideQuestions = (unpaired: readonly string[]): string[] => [
    ...comparison.questions.map((q) => q.questionId),
    ...comparison.excluded.map((e) => e.questionId),
    ...unpaired,
  ];
  return [
    ...rerecordCommands(
      comparison.candidate.missingRecordings.map((m) => ({ agent: comparison.candidate.label, questionId: m.questionId, seed: m.seed })),
      { ...context, questions: sideQuestions(comparison.candidate.unpaired) },
    ),
    ...rerecordCommands(
      comparison.base.missingRecordings.map((m) => ({ agent: comparison.base.label, questionId: m.questionId, seed: m.seed })),
      { ...context, questions: sideQuestions(comparison.base.unpaired) },
    ),
  ];
}
