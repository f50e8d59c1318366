import type { AgreementSummary, CalibrationReport } from '../judge/calibration.js';
import type { PairCounts, PairResult, PairwiseReport, Winner } from '../judge/pairwise.js';
import type { ChanceCorrectedAgreement } from '../stats/cohens-kappa.js';

/** Case ids listed per error direction before the list is cut with a count of the rest. */
export const MAX_LISTED_CASES = 40;

/** Pairs listed one by one before the table is cut with a count of the rest. */
export const MAX_LISTED_PAIRS = 50;

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
const fixed = (x: number | null): string => (x === null ? '–' : x.toFixed(2).replace(/^-/, '−'));
const statistic = (s: ChanceCorrectedAgreement): string => (s.value === null ? `undefined (${s.reason ?? ''})` : fixed(s.value));

function idList(ids: readonly string[], max: number): string {
  if (ids.length === 0) return 'none';
  const shown = ids.slice(0, max).map((id) => `\`${id}\``).join(', ');
  return ids.length > max ? `${shown}, … and ${ids.length - max} more` : shown;
}

function agreementRow(name: string, s: AgreementSummary): string {
  const range = s.kappaRange.low === null || s.kappaRange.high === null ? '–' : `${fixed(s.kappaRange.low)} to ${fixed(s.kappaRange.high)}`;
  return `| ${cell(name)} | ${s.cases} | ${s.referenceCorrect} | ${s.judgeCorrect} | ${s.unparsed} | ${fixed(s.observed)} | ${statistic(s.kappa)} | ${statistic(s.pi)} | ${range} | ${s.wrongCalledCorrect} of ${s.referenceIncorrect} | ${s.rightCalledIncorrect} of ${s.referenceCorrect} |`;
}

/**
 * Renders a judge calibration as Markdown: one table (overall and per agent: cases,
 * reference-correct, judge-correct, unparsed, observed agreement, Cohen's kappa, Scott's pi,
 * kappa with any one verdict changed, errors in each direction), the case ids of the errors in
 * each direction (at most `maxIds` each, then a count), the unparsed replies, and the advice
 * that a judge near κ 0.5 never passes a release alone. Pure; same numbers as the JSON.
 *
 * @example renderCalibrationMarkdown(calibrate(cases, 'gpt-4o')) // '### Judge calibration: gpt-4o\n\n| | cases | …'
 */
export function renderCalibrationMarkdown(report: CalibrationReport, maxIds = MAX_LISTED_CASES): string {
  const o = report.overall;
  const lines = [
    `### Judge calibration: ${cell(report.judge)}`,
    '',
    `Reference labels: ${cell(report.reference)}.`,
    '',
    `**label policy**: ${cell(report.labelPolicy)}  `,
    `**agreement policy**: ${cell(report.agreementPolicy)}`,
    '',
    "| | cases | reference correct | judge correct | unparsed | observed agreement | Cohen's κ | Scott's π | κ with any one verdict changed | wrong called correct | right called incorrect |",
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |',
    agreementRow('all', o),
    ...(report.byAgent.length > 1 ? report.byAgent.map((a) => agreementRow(a.agent, a)) : []),
    '',
    `- Wrong answers the judge called correct: ${o.wrongCalledCorrect} of ${o.referenceIncorrect}: ${idList(report.wrongCalledCorrect, maxIds)}`,
    `- Right answers the judge called incorrect: ${o.rightCalledIncorrect} of ${o.referenceCorrect}: ${idList(report.rightCalledIncorrect, maxIds)}`,
  ];
  if (o.unparsed > 0) {
    lines.push(
      `- Unparsed replies: ${o.unparsed} of ${o.cases} (left out of the statistics; counted as disagreements, observed agreement would be ${fixed(o.observedUnparsedAsDisagreement)}): ${idList(report.unparsedCases.map((u) => u.caseId), maxIds)}`,
    );
    const problems = countBy(report.unparsedCases.map((u) => u.problem));
    for (const [problem, n] of problems.slice(0, 5)) lines.push(`  - ${n} × ${cell(problem)}`);
  }
  lines.push('', `> ${report.advice}`, '');
  return lines.join('\n');
}

function countBy(items: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

function countsRow(name: string, c: PairCounts): string {
  return `| ${cell(name)} | ${c.pairs} | ${c.sameVerdict} | ${c.firstPositionBoth} | ${c.secondPositionBoth} | ${c.baseWins} | ${c.candidateWins} | ${c.ties} | ${c.unparsed} |`;
}

function winnerText(w: Winner, report: PairwiseReport): string {
  if (w === null) return 'unparsed';
  if (w === 'tie') return 'tie';
  return w === 'base' ? `base (${report.base})` : `candidate (${report.candidate})`;
}

function pairRow(r: PairResult, report: PairwiseReport): string {
  const reading =
    r.unparsed ? 'unparsed' : r.position === 'first' ? 'first shown won in both orders (position bias)' : r.position === 'second' ? 'second shown won in both orders (position bias)' : r.sameVerdict ? `consistent: ${winnerText(r.consistentWinner, report)}` : 'changed with the order';
  return `| ${cell(r.questionId)} | ${cell(r.kind)} | ${r.baseFirst} → ${winnerText(r.winnerBaseFirst, report)} | ${r.candidateFirst} → ${winnerText(r.winnerCandidateFirst, report)} | ${reading} | ${r.baseChars} / ${r.candidateChars} |`;
}

/**
 * Renders pairwise judging in both orders as Markdown: counts overall and per question kind
 * (same verdict in both orders, first- and second-position wins in both orders, each side's
 * consistent wins, ties, unparsed), how often the consistent winner was the longer text, one
 * row per pair (at most `maxPairs`), skipped pairs with their reasons and unparsed replies. Pure.
 *
 * @example renderPairwiseMarkdown(analysePairs(judged)) // '### Judge: texts compared in both orders …'
 */
export function renderPairwiseMarkdown(report: PairwiseReport, maxPairs = MAX_LISTED_PAIRS): string {
  const t = report.totals;
  const lines = [
    `### Judge: texts compared in both orders (base \`${cell(report.base)}\`, candidate \`${cell(report.candidate)}\`)`,
    '',
    'Each question both configurations declined or asked back on was judged twice, once with each text first; a verdict that follows the position changes with the order.',
    '',
    '| | pairs | same verdict in both orders | first shown won both | second shown won both | base won both | candidate won both | tie both | unparsed |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    countsRow('all', t),
    ...(report.byKind.length > 1 || (report.byKind[0] !== undefined && report.byKind[0].kind !== 'all') ? report.byKind.map((k) => countsRow(`${k.kind} questions`, k)) : []),
    '',
    `Consistent winner was the longer text: ${t.longerWon} of ${t.consistentSideWins}.`,
  ];
  if (report.results.length > 0) {
    lines.push('', '<details><summary>Verdicts per pair</summary>', '', '| question | kind | base first | candidate first | reading | characters (base / candidate) |', '| --- | --- | --- | --- | --- | --- |');
    for (const r of report.results.slice(0, maxPairs)) lines.push(pairRow(r, report));
    if (report.results.length > maxPairs) lines.push('', `… ${report.results.length - maxPairs} more pairs in the JSON report.`);
    lines.push('', '</details>');
  }
  if (report.skipped.length > 0) {
    lines.push('', `Skipped pairs: ${report.skipped.length}`);
    for (const s of report.skipped.slice(0, maxPairs)) lines.push(`- \`${cell(s.questionId)}\`: ${cell(s.reason)}`);
  }
  if (report.unparsedCalls.length > 0) {
    lines.push('', `Unparsed judge replies: ${report.unparsedCalls.length}`);
    for (const u of report.unparsedCalls.slice(0, maxPairs)) lines.push(`- \`${cell(u.questionId)}\` (${u.order}): ${cell(u.problem)}`);
  }
  lines.push('', '> Information only: a judge\'s preference between two texts is not a gate rule and never passes or fails a release on its own.', '');
  return lines.join('\n');
}

/**
 * The judge's section for the gate's Markdown scorecard: information only, never a gate
 * rule. Either part may be absent.
 *
 * @example renderJudgeSection({ calibration }) // '## Judge (information only, not a gate rule)\n\n### Judge calibration: …'
 */
export function renderJudgeSection(parts: { readonly pairs?: PairwiseReport; readonly calibration?: CalibrationReport }): string {
  const body = [
    ...(parts.pairs ? [renderPairwiseMarkdown(parts.pairs)] : []),
    ...(parts.calibration ? [renderCalibrationMarkdown(parts.calibration)] : []),
  ];
  if (body.length === 0) return '';
  return ['## Judge (information only, not a gate rule)', '', ...body].join('\n');
}
