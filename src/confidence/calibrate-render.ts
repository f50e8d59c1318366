import type { WilsonInterval } from '../stats/wilson-interval.js';
import type { AnswerAssessment } from './assess.js';
import { fittedScore, thresholdGate, type CalibrationResult, type GateCounts } from './calibrate.js';
import { heldOutText, passText, RULE_TERMS, sha256Text, type ThresholdsFile } from './thresholds-file.js';
import type { RuleName } from './types.js';

export { RULE_TERMS };

/**
 * The terms of a rule for one answer: agreement A (0 without a result), whether a veto fired
 * (missing table, bad join, stand-in, a broken approved definition with effect veto), whether a
 * cap fired (uncited number, thin evidence, a broken definition with effect cap), and for v3
 * whether the empty-result signal fired; indicators are 0 or 1.
 *
 * @example ruleTerms(assessment, 'agreement-first') // [0.8, 0, 0]
 */
export function ruleTerms(a: AnswerAssessment, rule: RuleName): number[] {
  const fired = (s: { status: string }): number => (s.status === 'fired' ? 1 : 0);
  const brokenDefinition = (effect: 'veto' | 'cap'): boolean => a.definitions.some((f) => f.status === 'broken' && f.effect === effect);
  const agreementValue = a.agreement.defined ? a.agreement.value : 0;
  const veto = Math.max(fired(a.checks.missingTable), fired(a.checks.badJoin), fired(a.checks.standIn), brokenDefinition('veto') ? 1 : 0);
  const cap = Math.max(fired(a.checks.uncitedNumber), a.rules.terms.thin ? 1 : 0, brokenDefinition('cap') ? 1 : 0);
  const all: Record<string, number> = { agreement: agreementValue, veto, cap, empty_result: fired(a.checks.emptyResult) };
  return (RULE_TERMS[rule] ?? ['agreement']).map((t) => all[t] ?? 0);
}

const pct = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : `${(x * 100).toFixed(1)}%`);
const share = (w: WilsonInterval | null): string => (w === null ? '– (nothing passed)' : `${pct(w.estimate)} (95% CI ${pct(w.low)}–${pct(w.high)})`);
const threshold = (x: number | null): string => (x === null ? 'none' : x.toFixed(3));
const counts = (c: GateCounts, digits = 0): string =>
  `pass ${c.pass.right.toFixed(digits)} / ${c.pass.wrong.toFixed(digits)}, flag ${c.flag.right.toFixed(digits)} / ${c.flag.wrong.toFixed(digits)}, abstain ${c.abstain.right.toFixed(digits)} / ${c.abstain.wrong.toFixed(digits)}`;

/** Lines shared by the text and Markdown renderings. */
function summaryLines(result: CalibrationResult, rule: RuleName): string[] {
  const h = result.heldOut;
  const inPass = result.inSample.pass.right + result.inSample.pass.wrong;
  const coef =
    result.fit.coefficients === undefined
      ? []
      : [`coefficients (logistic regression, ridge λ = ${result.ridge}): intercept ${result.fit.coefficients[0]?.toFixed(3)}, ${result.termNames.map((t, i) => `${t} ${result.fit.coefficients?.[i + 1]?.toFixed(3)}`).join(', ')}`];
  return [
    `rule: ${rule}${result.variant === 'fitted' ? ` (fitted variant: logistic regression of the label on ${result.termNames.join(', ')})` : ''}; target pass accuracy ${result.targetPassAccuracy}, flagged band at least ${result.targetFlagAccuracy}`,
    `thresholds (fitted on all ${result.n} answers, ${result.right} right, ${result.databases.length} databases): ${passText(result.fit.passAt, 3)}, ${result.fit.flagAt === null ? 'nothing flagged' : `flag ≥ ${threshold(result.fit.flagAt)}`}`,
    ...coef,
    `in sample (optimistic): ${counts(result.inSample)}; pass accuracy ${pct(inPass === 0 ? null : result.inSample.pass.right / inPass)}, coverage ${pct(inPass / result.n)}`,
    `held out (cross-fitted by database, ${result.splits.length} splits, seed ${result.seed}): target ${result.targetPassAccuracy} ${h.passAccuracy !== null && h.passAccuracy.estimate >= result.targetPassAccuracy ? 'reached' : 'not reached'}; pass accuracy ${share(h.passAccuracy)}, coverage ${share(h.coverage)}, shown (pass or flag) ${share(h.shown)}`,
    `  range over the splits: pass accuracy ${h.range.passAccuracy === null ? '–' : `${pct(h.range.passAccuracy[0])}–${pct(h.range.passAccuracy[1])}`}, coverage ${pct(h.range.coverage[0])}–${pct(h.range.coverage[1])}; target reached in ${h.splitsReachingTarget} of ${result.splits.length} splits`,
    `  mean held-out counts (right / wrong): ${counts(h.meanCounts, 1)}; correct withheld ${pct(h.correctWithheld)}`,
    `  intervals: ${h.method}`,
  ];
}

/**
 * A calibration as plain text.
 *
 * @example renderCalibrationText(result, 'agreement-first', ['label policy: …']).startsWith('Confidence calibration') // true
 */
export function renderCalibrationText(result: CalibrationResult, rule: RuleName, header: readonly string[]): string {
  return [`Confidence calibration`, ...header.map((l) => `  ${l}`), ...summaryLines(result, rule), ''].join('\n');
}

/**
 * A calibration as Markdown, with one row per split.
 *
 * @example renderCalibrationMarkdown(result, 'agreement-first', []).startsWith('## Confidence calibration') // true
 */
export function renderCalibrationMarkdownReport(result: CalibrationResult, rule: RuleName, header: readonly string[]): string {
  const out = ['## Confidence calibration', '', ...header.map((l) => `- ${l}`), '', ...summaryLines(result, rule).map((l) => (l.startsWith('  ') ? `  - ${l.trim()}` : `- ${l}`)), ''];
  out.push('| split | databases fitted first | pass ≥ (fit on A / on B) | held-out pass (right / wrong) | held-out pass accuracy | coverage |', '|---|---|---|---|---|---|');
  result.splits.forEach((s, i) => {
    const p = s.heldOut.pass.right + s.heldOut.pass.wrong;
    out.push(
      `| ${i + 1} | ${s.databasesA.join(', ')} | ${threshold(s.fits[0].passAt)} / ${threshold(s.fits[1].passAt)} | ${s.heldOut.pass.right} / ${s.heldOut.pass.wrong} | ${pct(p === 0 ? null : s.heldOut.pass.right / p)} | ${pct(p / result.n)} |`,
    );
  });
  return `${out.join('\n')}\n`;
}

/**
 * What the thresholds of a thresholds file decide on a report's answers, as one note: the
 * file's rule scored (for the fitted variant, the fitted probability σ(β · terms) with the
 * file's coefficients), gated at its pass / flag thresholds, and counted by label; whether these
 * are the very answers the thresholds were fitted on (in sample: the pass accuracy is optimistic)
 * and whether the target was reached held out.
 *
 * @param assessments - the report's answers.
 * @param labels - question id → label (the report's first label policy), when known.
 * @param file - the thresholds file.
 * @param name - its name, for the note.
 * @param defaultDb - the database of answers without one (a one-database warehouse's).
 * @example calibratedGateNote(assessments, labels, file, 'confidence-thresholds.yml')
 * // 'Calibrated gate (confidence-thresholds.yml: agreement-first only, thresholds, pass ≥ 0.80, flag ≥ 0.60) on these 656 answers, in sample (the answers it was fitted on: optimistic): pass 393 / 39, … pass accuracy 91.0% in sample; target pass accuracy 0.9 reached held out: …'
 */
export function calibratedGateNote(
  assessments: readonly AnswerAssessment[],
  labels: ReadonlyMap<string, boolean> | undefined,
  file: ThresholdsFile,
  name: string,
  defaultDb = 'main',
): string {
  const terms = RULE_TERMS[file.rule] ?? ['agreement'];
  const coefficients = file.coefficients === null ? undefined : [file.coefficients['intercept'] ?? 0, ...terms.map((t) => file.coefficients?.[t] ?? 0)];
  const counts = { pass: { right: 0, wrong: 0, unlabelled: 0 }, flag: { right: 0, wrong: 0, unlabelled: 0 }, abstain: { right: 0, wrong: 0, unlabelled: 0 } };
  let scored = 0;
  const lines: string[] = [];
  for (const a of assessments) {
    const s = a.rules.scores.find((x) => x.rule === file.rule);
    if (s === undefined) continue;
    scored += 1;
    const t = ruleTerms(a, file.rule);
    const score = fittedScore({ variant: file.variant, ...(coefficients !== undefined ? { coefficients } : {}) }, { score: s.score, terms: t });
    const gate = thresholdGate(score, file);
    const y = labels?.get(a.questionId);
    counts[gate][y === undefined ? 'unlabelled' : y ? 'right' : 'wrong'] += 1;
    if (y !== undefined) lines.push(`${a.questionId} ${a.db ?? defaultDb} ${y} ${s.score} ${t.join(',')}`);
  }
  const head = `Calibrated gate (${name}: ${file.rule} only, ${file.variant === 'fitted' ? 'fitted variant' : 'thresholds'}, ${passText(file.passAt, 3)}, ${file.flagAt === null ? 'nothing flagged' : `flag ≥ ${file.flagAt.toFixed(3)}`})`;
  if (scored === 0) return `${head}: the rule is undefined for every answer here (K = 1), nothing to gate.`;
  const inSample = lines.length === file.data.answers && sha256Text(lines.sort().join('\n')) === file.data.answersSha256;
  const where = inSample
    ? `on these ${scored} answers, in sample (the answers it was fitted on: optimistic)`
    : `on these ${scored} answers (not the ${file.data.answers} it was fitted on)`;
  const c = (g: keyof typeof counts): string => `${counts[g].right} / ${counts[g].wrong}${counts[g].unlabelled > 0 ? ` (+${counts[g].unlabelled} unlabelled)` : ''}`;
  const passed = counts.pass.right + counts.pass.wrong;
  return (
    `${head} ${where}: pass ${c('pass')}, flag ${c('flag')}, abstain ${c('abstain')} (right / wrong); ` +
    `pass accuracy ${pct(passed === 0 ? null : counts.pass.right / passed)}${inSample ? ' in sample' : ''}; ${heldOutText(file)}.`
  );
}
