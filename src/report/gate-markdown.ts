/**
 * Markdown rendering of the gate's result (`replaygate gate --markdown FILE`, the PR comment's
 * gate section). Pure: `(result) => string`, no I/O.
 */
import { AMBIGUOUS_GOLDEN_MARK, formatFraction, formatIds, formatP, formatSigned, markAmbiguous } from '../gate/format.js';
import type { GateResult } from '../gate/gate-result.js';
import type { QuestionComparison, SeedOutcome } from '../gate/types.js';
import type { Outcome } from '../scoring/types.js';
import { inlineCodeCell, plainText } from './inert-markdown.js';
import { perSeedChart, type SeedCount } from './pull-request/charts.js';
import { REPORT_MARKER } from './score-markdown.js';
import { naturalIdOrder } from '../util/natural-order.js';

/** One-character symbols of outcomes in the per-seed columns (the legend is printed below the table). */
export const OUTCOME_SYMBOLS: Readonly<Record<Outcome, string>> = {
  correct: '✓',
  wrong_number: '✗',
  declined: 'D',
  asked_back: '?',
  error: 'E',
  step_limit: 'L',
  missing_recording: 'M',
};

/** Options of {@link renderGateMarkdown}. */
export interface GateMarkdownOptions {
  /** Most moved questions listed in the table (default 200); the rest are counted. */
  readonly maxMovedRows?: number;
  /** Heading level of the title (default 2: `##`). */
  readonly headingLevel?: number;
  /** Start with the hidden `<!-- replaygate-report -->` marker, as the score Markdown does (default true). */
  readonly marker?: boolean;
}

/** Agent names, ids and messages come from configs, golden files and models: inert. */
function escapeCell(text: string): string {
  return plainText(text);
}

function seedSymbols(outcomes: readonly SeedOutcome[]): string {
  return outcomes.map((o) => OUTCOME_SYMBOLS[o.outcome]).join('');
}

/** Moved questions, stable breaks first, then the other breaks (largest drop first), then fixes (largest gain first). */
function movedInOrder(questions: readonly QuestionComparison[]): QuestionComparison[] {
  const rank = (q: QuestionComparison): number => (q.stableBreak ? 0 : q.movement === 'broken' ? 1 : 2);
  return questions
    .filter((q) => q.movement !== 'unchanged')
    // Ties by id in natural order: the same list whatever order the questions came in (files, shards).
    .sort((a, b) => rank(a) - rank(b) || Math.abs(b.difference) - Math.abs(a.difference) || naturalIdOrder(a.questionId, b.questionId));
}

/** Share correct per seed of one side, over the compared questions (null: no run with that seed). */
function perSeedCount(result: GateResult, which: 'base' | 'candidate', seed: number): SeedCount {
  let correct = 0;
  let runs = 0;
  for (const q of result.questions) {
    const o = q[which].outcomes.find((x) => x.seed === seed);
    if (o === undefined) continue;
    runs += 1;
    if (o.outcome === 'correct') correct += 1;
  }
  return { seed, correct, runs };
}

function side(result: GateResult, which: 'base' | 'candidate'): string {
  const s = result[which];
  const correct = result.questions.reduce((sum, q) => sum + q[which].correct, 0);
  const runs = result.questions.reduce((sum, q) => sum + q[which].runs, 0);
  const share = runs === 0 ? '—' : (correct / runs).toFixed(2);
  const perQ = s.runsPerQuestion.min === s.runsPerQuestion.max ? `${s.runsPerQuestion.min}` : `${s.runsPerQuestion.min}–${s.runsPerQuestion.max}`;
  return (
    `| ${which} | ${escapeCell(s.label)} | ${escapeCell(s.recordings.join(', '))} | ${escapeCell(s.seeds.join(', '))} | ${perQ} | ` +
    `${correct} of ${runs} (${share}) | ${s.missingRecordings.length} | ${s.unpaired.length} |`
  );
}

/**
 * Renders a gate result as GitHub Markdown: the verdict and its named reasons first, then the
 * notes, the comparison table (mean paired difference with its t interval, fixed / broken,
 * sign test, stable breaks, smallest detectable change, missing recordings), the two sides,
 * the moved questions with their per-seed outcomes, and with several seeds a Mermaid
 * `xychart-beta` of the share correct per seed (base bars, candidate line). Text from configs,
 * golden files and models is inert (src/report/inert-markdown.ts). Numbers use the same rounding as the gate's messages. Questions whose
 * golden result is ambiguous (golden `ORDER BY … LIMIT` cuts through ties) are marked in the
 * tables and listed with their tied rows. The first line is the hidden marker
 * `<!-- replaygate-report -->` (unless `marker: false`).
 *
 * @param result - from `gateResult` / `runGate`
 * @param options - table and chart caps, heading level, marker
 * @example renderGateMarkdown(runGate(chapterBase, chapterCandidate)).split('\n')[1] // "## Gate: ❌ fail"
 */
export function renderGateMarkdown(result: GateResult, options: GateMarkdownOptions = {}): string {
  const maxMovedRows = options.maxMovedRows ?? 200;
  const h = '#'.repeat(options.headingLevel ?? 2);
  const ambiguous = new Set(result.ambiguousGolden.map((a) => a.id));
  const lines: string[] = options.marker === false ? [] : [REPORT_MARKER];
  lines.push(`${h} Gate: ${result.verdict === 'pass' ? '✅ pass' : '❌ fail'}`, '');
  lines.push(
    `**base** ${escapeCell(result.base.label)} vs **candidate** ${escapeCell(result.candidate.label)}: ` +
      `${result.n} question${result.n === 1 ? '' : 's'} compared, paired question by question.`,
    '',
  );
  if (result.reasons.length > 0) {
    lines.push('**Reasons**', '');
    for (const r of result.reasons) lines.push(`- \`${r.code}\`: ${escapeCell(r.message)}`);
    lines.push('');
  }
  if (result.notes.length > 0) {
    lines.push('**Notes**', '');
    for (const n of result.notes) lines.push(`- \`${n.code}\`: ${escapeCell(n.message)}`);
    lines.push('');
  }

  const level = Math.round(result.rules.confidence * 100);
  const interval =
    result.interval === null
      ? `none: ${result.intervalNote ?? 'no interval'}`
      : `${formatSigned(result.interval.low)} to ${formatSigned(result.interval.high)}${result.interval.clipped ? ' (clipped to [−1, 1])' : ''} ` +
        `(t multiplier ${result.interval.tMultiplier.toFixed(2)}, ${result.interval.degreesOfFreedom} df, half-width ${result.interval.halfWidth.toFixed(2)})`;
  const detectable =
    result.smallestDetectable === null
      ? `none (${result.n === 0 ? 'no question compared' : 'one question'})`
      : `${result.smallestDetectable.flips} of ${result.n} clean flips (mean change ${formatFraction(result.smallestDetectable.meanChange)})`;
  const stable =
    result.stableBreaks.length === 0
      ? '0'
      : `${result.stableBreaks.length} (${formatIds(result.stableBreaks.map((id) => markAmbiguous(id, ambiguous)), 10)})`;
  const rule = result.rules.stableBreak;
  lines.push(
    `${h}# Comparison`,
    '',
    '| measure | value |',
    '|---|---|',
    `| questions compared | ${result.n} |`,
    `| mean paired difference (candidate − base) | ${formatSigned(result.meanDifference)} |`,
    `| ${level}% interval | ${interval} |`,
    `| fixed / broken | ${result.fixed.length} / ${result.broken.length} |`,
    `| sign test p (exact, two-sided) | ${formatP(result.signTestP)} |`,
    `| stable breaks (base ≥ ${rule.baseMin}, candidate ≤ ${rule.candidateMax}) | ${escapeCell(stable)} |`,
    `| smallest change the interval rule detects | ${detectable} |`,
    `| missing recordings | base ${result.missingRecordings.base.length}, candidate ${result.missingRecordings.candidate.length} |`,
    '',
    '| side | agent | recording | seeds | runs per question | correct runs | missing recordings | in this side only |',
    '|---|---|---|---|---|---|---|---|',
    side(result, 'base'),
    side(result, 'candidate'),
    '',
  );

  const moved = movedInOrder(result.questions);
  lines.push(`${h}# Moved questions (${moved.length})`, '');
  if (moved.length === 0) {
    lines.push('No question moved.', '');
  } else {
    lines.push(
      `Per-seed outcomes in seed order (base ${escapeCell(result.base.seeds.join(', '))}; candidate ${escapeCell(result.candidate.seeds.join(', '))}): ` +
        '✓ correct, ✗ wrong number, D declined, ? asked back, E error, L step limit, M missing recording.',
      '',
      '| question | base | candidate | d | base per seed | candidate per seed | |',
      '|---|---|---|---|---|---|---|',
    );
    for (const q of moved.slice(0, maxMovedRows)) {
      const tag = (q.stableBreak ? 'stable break' : q.movement) + (ambiguous.has(q.questionId) ? ` (${AMBIGUOUS_GOLDEN_MARK})` : '');
      lines.push(
        `| ${inlineCodeCell(q.questionId)} | ${q.base.correct} of ${q.base.runs} | ${q.candidate.correct} of ${q.candidate.runs} | ` +
          `${formatSigned(q.difference)} | ${seedSymbols(q.base.outcomes)} | ${seedSymbols(q.candidate.outcomes)} | ${tag} |`,
      );
    }
    if (moved.length > maxMovedRows) lines.push('', `… ${moved.length - maxMovedRows} more moved questions in the JSON report.`);
    lines.push('');
  }
  // One chart where it helps: with several seeds, the share correct per seed of both sides
  // (bars vs a line, seed numbers as labels). Per-question bars with question ids as labels
  // were unreadable past a dozen questions; the moved table above says the same legibly.
  const chart = perSeedChart(
    result.base.seeds.map((s) => perSeedCount(result, 'base', s)),
    result.candidate.seeds.map((s) => perSeedCount(result, 'candidate', s)),
  );
  if (chart.lines.length > 0 && moved.length > 0) {
    lines.push(`${h}# Run to run`, '', ...chart.lines, '', 'Bars: base · line: candidate.', '');
  }
  if (result.ambiguousGolden.length > 0) {
    lines.push(
      `${h}# Ambiguous golden questions (${result.ambiguousGolden.length})`,
      '',
      'Their golden SQL ends in `ORDER BY … LIMIT` that cuts through tied rows: another correct query may return another tied row, ' +
        'so a move of these questions may be a different tie-break rather than a real change. Add a tie-breaker to the golden ORDER BY.',
      '',
      ...result.ambiguousGolden.map((a) => `- ${inlineCodeCell(a.id)}: ${escapeCell(a.reason)}`),
      '',
    );
  }
  const unpaired = [...result.base.unpaired.map((id) => `${id} (base)`), ...result.candidate.unpaired.map((id) => `${id} (candidate)`)];
  if (unpaired.length > 0) {
    lines.push(`${h}# Questions in one side only (${unpaired.length})`, '', escapeCell(formatIds(unpaired, 50)), '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
