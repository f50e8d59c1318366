import type { AgreementSummary, CalibrationReport } from '../judge/calibration.js';
import type { PairwiseReport } from '../judge/pairwise.js';
import type { ChanceCorrectedAgreement } from '../stats/cohens-kappa.js';

const fixed = (x: number | null): string => (x === null ? '–' : x.toFixed(2));
const stat = (s: ChanceCorrectedAgreement): string => (s.value === null ? `undefined (${s.reason ?? ''})` : s.value.toFixed(2));

function summaryLines(name: string, s: AgreementSummary): string[] {
  const range = s.kappaRange.low === null || s.kappaRange.high === null ? '–' : `${fixed(s.kappaRange.low)} to ${fixed(s.kappaRange.high)}`;
  return [
    `${name}: cases ${s.cases}, reference correct ${s.referenceCorrect}, judge correct ${s.judgeCorrect}, unparsed ${s.unparsed}`,
    `  observed agreement ${fixed(s.observed)}, Cohen's kappa ${stat(s.kappa)}, Scott's pi ${stat(s.pi)}, kappa with any one verdict changed ${range}`,
    `  wrong answers called correct ${s.wrongCalledCorrect} of ${s.referenceIncorrect}, right answers called incorrect ${s.rightCalledIncorrect} of ${s.referenceCorrect}`,
  ];
}

/**
 * A judge calibration as plain text for a terminal (same numbers as the Markdown and JSON).
 * @example calibrationText(report) // 'judge: gpt-4o\nall: cases 56, reference correct 26, …'
 */
export function calibrationText(report: CalibrationReport, maxIds = 10): string {
  const list = (ids: readonly string[]): string => (ids.length === 0 ? 'none' : ids.slice(0, maxIds).join(', ') + (ids.length > maxIds ? `, … (${ids.length - maxIds} more)` : ''));
  return [
    `judge: ${report.judge}`,
    `reference: ${report.reference}`,
    `label policy: ${report.labelPolicy}`,
    `agreement policy: ${report.agreementPolicy}`,
    ...summaryLines('all', report.overall),
    ...(report.byAgent.length > 1 ? report.byAgent.flatMap((a) => summaryLines(a.agent, a)) : []),
    `wrong answers the judge called correct: ${list(report.wrongCalledCorrect)}`,
    `right answers the judge called incorrect: ${list(report.rightCalledIncorrect)}`,
    ...(report.unparsedCases.length ? [`unparsed: ${list(report.unparsedCases.map((u) => `${u.caseId} (${u.problem})`))}`] : []),
    report.advice,
    '',
  ].join('\n');
}

/**
 * Pairwise judging in both orders as plain text.
 * @example pairsText(report) // 'pairs: 8 (base metrics-first, candidate declining)\nsame verdict in both orders: 7 of 8\n…'
 */
export function pairsText(report: PairwiseReport): string {
  const t = report.totals;
  const lines = [
    `pairs: ${t.pairs} (base ${report.base}, candidate ${report.candidate}); skipped ${report.skipped.length}; with an unparsed verdict ${t.unparsed}`,
    `same verdict in both orders: ${t.sameVerdict} of ${t.pairs}`,
    `first shown won in both orders: ${t.firstPositionBoth} of ${t.pairs}`,
    `second shown won in both orders: ${t.secondPositionBoth} of ${t.pairs}`,
    `${report.base} (base) won in both orders: ${t.baseWins}`,
    `${report.candidate} (candidate) won in both orders: ${t.candidateWins}`,
    `tie in both orders: ${t.ties}`,
    ...report.byKind.map((k) => `${k.kind} questions: ${k.pairs} pairs, same verdict ${k.sameVerdict}, base won ${k.baseWins}, candidate won ${k.candidateWins}, position bias ${k.firstPositionBoth + k.secondPositionBoth}`),
    `consistent winner was the longer text: ${t.longerWon} of ${t.consistentSideWins}`,
    ...report.skipped.map((s) => `skipped ${s.questionId}: ${s.reason}`),
    'Information only: a judge never passes or fails a release on its own.',
    '',
  ];
  return lines.join('\n');
}
