/**
 * Plain-text rendering of a gate result for the terminal (`replaygate gate` stdout). Pure.
 */
import { formatFraction, formatIds, formatP, formatSigned, markAmbiguous } from '../gate/format.js';
import type { GateResult } from '../gate/gate-result.js';
import type { RepeatsReport } from '../gate/repeats-report.js';

/**
 * The repeats of one side in two lines: correct per seed, and the questions that flip.
 *
 * @example repeatsText('base', repeatsReport(chapterBase)) // "base correct per seed: 6, 6, 6, 6, 5 of 12 (seeds 2718, 1, 2, 3, 4)\nbase questions that flip: 1 (gq-008 4 of 5); always correct 5, never correct 6"
 */
export function repeatsText(label: string, r: RepeatsReport): string {
  const flips = r.flipping.map((q) => `${q.questionId} ${q.correct} of ${q.runs}`);
  return (
    `${label} correct per seed: ${r.perSeed.map((s) => s.correct).join(', ')} of ${r.questions} (seeds ${r.seeds.join(', ')})\n` +
    `${label} questions that flip: ${flips.length}${flips.length ? ` (${formatIds(flips, 10)})` : ''}; ` +
    `always correct ${r.alwaysCorrect}, never correct ${r.neverCorrect}`
  );
}

/**
 * The gate's verdict, reasons, notes and key numbers as terminal lines, in the chapter's
 * wording ("gate: fail", "gate reason: stable break: gq-008 …"). Questions whose golden result
 * is ambiguous are marked where they are listed, and counted in a last line.
 *
 * @example gateText(runGate(chapterBase, chapterCandidate)).split('\n')[0] // "gate: fail"
 */
export function gateText(result: GateResult): string {
  const ambiguous = new Set(result.ambiguousGolden.map((a) => a.id));
  const lines = [`gate: ${result.verdict}`];
  for (const r of result.reasons) lines.push(`gate reason: ${r.message}`);
  for (const n of result.notes) lines.push(`note: ${n.message}`);
  const b = result.base.runsPerQuestion;
  const c = result.candidate.runsPerQuestion;
  const runs = (x: { min: number; max: number }): string => (x.min === x.max ? `${x.min}` : `${x.min}–${x.max}`);
  lines.push(
    `questions compared: ${result.n} (base ${result.base.label}, ${runs(b)} run(s) each; candidate ${result.candidate.label}, ${runs(c)} run(s) each)` +
      ((result.excluded ?? []).length > 0 ? `; ${result.excluded.length} excluded (a run has no recording)` : ''),
    `fixed ${result.fixed.length}${result.fixed.length ? ` (${formatIds(result.fixed, 10)})` : ''}, broken ${result.broken.length}${result.broken.length ? ` (${formatIds(result.broken, 10)})` : ''}`,
    `mean paired difference: ${formatSigned(result.meanDifference)}`,
  );
  if (result.interval) {
    const i = result.interval;
    lines.push(
      `${Math.round(i.confidence * 100)}% interval: ${formatSigned(i.low)} to ${formatSigned(i.high)}${i.clipped ? ' (clipped to [−1, 1])' : ''} ` +
        `(t multiplier ${i.tMultiplier.toFixed(2)}, ${i.degreesOfFreedom} df, half-width ${i.halfWidth.toFixed(2)})`,
    );
  } else {
    lines.push(`interval: none (${result.intervalNote ?? 'no interval'})`);
  }
  lines.push(
    `sign test p: ${formatP(result.signTestP)} (${result.signTest.positive} fixed vs ${result.signTest.negative} broken)`,
    `stable breaks: ${result.stableBreaks.length ? formatIds(result.stableBreaks.map((id) => markAmbiguous(id, ambiguous)), 10) : 'none'}`,
    result.smallestDetectable
      ? `smallest change the interval rule detects: ${result.smallestDetectable.flips} of ${result.n} clean flips (mean change ${formatFraction(result.smallestDetectable.meanChange)})`
      : `smallest change the interval rule detects: none (${result.n === 0 ? 'no question compared' : 'one question'})`,
    `missing recordings: base ${result.missingRecordings.base.length}, candidate ${result.missingRecordings.candidate.length}`,
  );
  if (result.ambiguousGolden.length > 0) {
    lines.push(
      `ambiguous golden results (golden LIMIT cuts through ties): ${result.ambiguousGolden.length} of ${result.n} compared questions ` +
        `(${formatIds(result.ambiguousGolden.map((a) => a.id), 10)})`,
    );
  }
  return `${lines.join('\n')}\n`;
}
