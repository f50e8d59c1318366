import type { BootstrapInterval } from '../stats/bootstrap.js';
import { coverageMermaid, coverageSvg, type CoverageSeries } from './coverage-chart.js';
import type { Evaluation, RuleEvaluation } from './evaluate.js';
import type { PlantReport } from './plant-report.js';
import { agreementPolicyText, labelPolicyText } from './policy.js';
import type { AnswerRow, ConfidenceReport, LabelPolicyEvaluation } from './report.js';
import type { GateThresholds } from './rules.js';
import { passText } from './thresholds-file.js';
import type { RuleName } from './types.js';

/** Display names of the rules, as in the paper's tables. */
export const RULE_LABELS: Readonly<Record<RuleName, string>> = {
  agreement: 'Agreement alone',
  entropy: 'Entropy term alone (strict)',
  'agreement-first': 'Agreement-first (primary)',
  v3: 'v3 (empty result)',
  v2: 'v2 rule',
  designed: 'Designed (bench-1.0)',
};

/** Rules drawn in the accuracy–coverage chart (the paper's Figure 4 set). */
export const CHART_RULES: readonly RuleName[] = ['agreement-first', 'agreement', 'designed'];

const pct = (x: number | undefined | null): string => (x === undefined || x === null ? '–' : `${(x * 100).toFixed(1)}%`);
const num = (x: number | undefined | null, digits = 3): string => (x === undefined || x === null ? '–' : x.toFixed(digits));
/** A signed difference to 3 places; a value that rounds to zero is +0.000, never −0.000. */
const signed = (x: number): string => `${Number(x.toFixed(3)) < 0 ? '−' : '+'}${Math.abs(x).toFixed(3)}`;

function interval(ci: BootstrapInterval): string {
  return ci.defined ? `${ci.estimate.toFixed(3)} (${ci.low.toFixed(3)}–${ci.high.toFixed(3)})` : `undefined: ${ci.reason}`;
}

function difference(ci: BootstrapInterval): string {
  return ci.defined ? `${signed(ci.estimate)} (95% CI ${signed(ci.low)} to ${signed(ci.high)})` : `undefined: ${ci.reason}`;
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The chart series of a report's evaluation (rules of {@link CHART_RULES} that were evaluated). */
export function chartSeries(report: ConfidenceReport): CoverageSeries[] {
  const rules = report.evaluation?.rules ?? [];
  return CHART_RULES.flatMap((r) => {
    const e = rules.find((x) => x.rule === r);
    return e === undefined ? [] : [{ name: RULE_LABELS[r], points: e.curve }];
  });
}

/**
 * The accuracy–coverage chart of a report as a standalone SVG document.
 *
 * @example confidenceSvg(report).startsWith('<svg') // true
 */
export function confidenceSvg(report: ConfidenceReport): string {
  return coverageSvg(chartSeries(report), `Accuracy–coverage: ${report.title}`);
}

/**
 * The gate thresholds as words: `pass ≥ 0.80, flag ≥ 0.60`, plus each rule with its own
 * thresholds (a thresholds file's rule), where a pass threshold no score reaches is said as
 * "no threshold reaches the target: nothing passes", never a number.
 */
export function gateText(report: Pick<ConfidenceReport, 'gate' | 'ruleGates'>): string {
  const one = (g: GateThresholds): string => `${passText(g.passAt)}, ${Number.isFinite(g.flagAt) ? `flag ≥ ${g.flagAt.toFixed(2)}` : 'nothing flagged'}`;
  const own = Object.entries(report.ruleGates ?? {}) as [RuleName, GateThresholds][];
  return own.length === 0 ? one(report.gate) : `${own.map(([rule, g]) => `${rule}: ${one(g)}`).join('; ')}; other rules: ${one(report.gate)}`;
}

/** Options of the Markdown and text renderings. */
export interface RenderOptions {
  /** Per-answer rows shown (default: all); the rest are summarised in one line. */
  readonly maxAnswers?: number;
}

/**
 * The confidence report as GitHub Markdown: notes, the evaluation table (paper Table 4 layout),
 * paired AUROC differences, the gate table by correctness (Table 8 layout), ECE and Brier
 * (Table 9), the accuracy–coverage chart (Mermaid), planted errors (Table 3 layout) and the
 * per-answer table. Pure.
 *
 * @example renderConfidenceMarkdown(report).startsWith('## Answer confidence') // true
 */
export function renderConfidenceMarkdown(report: ConfidenceReport, options: RenderOptions = {}): string {
  const out: string[] = [`## Answer confidence: ${report.title}`, ''];
  out.push(
    `K = ${report.k} ${report.samplesKind === 'systems' ? 'systems' : report.samplesKind === 'candidates' ? 'candidates' : 'samples'} per question, ` +
      `${report.answers.length} questions; gate: ${gateText(report)}, abstain below.` +
      (report.labelsSource === null ? ' No labels: no evaluation.' : ` Labels: ${report.labelsSource}.`),
    '',
    ...policyLines(report).map((l) => `**${l.slice(0, l.indexOf(':'))}**${l.slice(l.indexOf(':'))}  `),
    '',
  );
  for (const note of report.notes) out.push(`- ${note}`);
  out.push('');
  const ev = report.evaluation;
  if (ev !== null) {
    out.push(
      `### Evaluation (${ev.n} labelled answers, ${ev.right} right = ${pct(ev.accuracy)}; AUROC 95% CI from ${ev.resamples} bootstrap resamples, seed ${ev.seed})`,
      '',
      '| Score | AUROC (95% CI) | pass accuracy | pass share | correct withheld | wrong withheld | ECE | Brier |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const r of ev.rules) {
      out.push(
        `| ${RULE_LABELS[r.rule]} | ${interval(r.auroc)} | ${pct(r.metrics.passAccuracy)} | ${pct(r.metrics.passShare)} | ${pct(r.metrics.correctWithheld)} | ${pct(r.metrics.wrongWithheld)} | ${num(r.ece)} | ${num(r.brier)} |`,
      );
    }
    out.push('');
    if (ev.differences.length > 0) {
      out.push('Paired bootstrap differences of AUROC (same resamples):', '');
      for (const d of ev.differences) out.push(`- ${RULE_LABELS[d.rule]} − ${RULE_LABELS[d.baseline]}: ${difference(d.difference)} (n = ${d.n})`);
      out.push('');
    }
    const t = report.truncation;
    out.push(
      `Truncation policy: ${t.undeterminedPairs} sample pairs undetermined (truncated results with equal row counts) in ${t.answersAffected} answers, counted as agreeing; ` +
        `counted as disagreeing, agreement-first's AUROC is ${num(t.agreementFirstAurocBound)}.`,
      '',
      emptyResultLine(report),
      '',
      '### Gate decisions by correctness (right / wrong)',
      '',
      '| Score | pass | flag | abstain |',
      '|---|---|---|---|',
    );
    for (const r of ev.rules) out.push(gateRow(r));
    out.push('', '### Accuracy and coverage', '', coverageMermaid(chartSeries(report), report.title), '');
    if (report.byLabelPolicy.length > 1) out.push(...sideBySideMarkdown(report.byLabelPolicy), '');
  } else if (report.labelsSource !== null) {
    out.push('### Evaluation', '', 'Nothing to evaluate: no answer has a label.', '');
  }
  if (report.plant !== null) out.push(...plantMarkdown(report.plant), '');
  if (report.definitions !== null) out.push(...definitionsMarkdown(report.definitions, report.k), '');
  out.push(...answersMarkdown(report, options.maxAnswers));
  return `${out.join('\n')}\n`;
}

/** The empty-result signal's line: how often it fired, and how often the labelled answers it fired on were right. */
function emptyResultLine(report: ConfidenceReport): string {
  const e = report.emptyResult;
  const head = `Empty-result signal (v3): fired on ${e.fired} answer${e.fired === 1 ? '' : 's'}`;
  if (e.fired === 0) return `${head}.`;
  if (e.right === null || e.labelled === 0) return `${head}, none of them labelled.`;
  const of = e.labelled < e.fired ? ` (${e.labelled} of them labelled)` : '';
  return `${head}${of}, right ${pct(e.right / e.labelled)} of the time vs ${pct(report.evaluation?.accuracy)} overall.`;
}

/**
 * The lines every rendering starts with: the label policy (or policies), the agreement policy
 * and where the gate thresholds come from.
 */
export function policyLines(report: ConfidenceReport): string[] {
  const labelLines =
    report.byLabelPolicy.length === 0
      ? ['label policy: none (no labels)']
      : report.byLabelPolicy.map((l, i) => {
          const text = labelPolicyText(l.labelPolicy, l.labelPolicy === 'file' ? l.labelsSource.replace(/^labels file /, '').replace(/ \(\d+ labels\)$/, '') : undefined);
          return report.byLabelPolicy.length > 1 ? text.replace('label policy:', i === 0 ? 'label policy (first):' : 'label policy (also):') : text;
        });
  return [...labelLines, agreementPolicyText(report.agreementPolicy), `gate thresholds: ${report.gateSource}`];
}

/** Text lines of one evaluation: a line per rule, then the paired differences. */
function evaluationLines(ev: Evaluation): string[] {
  const out: string[] = [];
  for (const r of ev.rules) {
    const g = r.gate;
    out.push(
      `  ${RULE_LABELS[r.rule].padEnd(28)} AUROC ${interval(r.auroc)}  pass acc ${pct(r.metrics.passAccuracy)}  pass share ${pct(r.metrics.passShare)}  ` +
        `correct withheld ${pct(r.metrics.correctWithheld)}  wrong withheld ${pct(r.metrics.wrongWithheld)}  ECE ${num(r.ece)}  Brier ${num(r.brier)}  ` +
        `pass ${g.pass.right}/${g.pass.wrong} flag ${g.flag.right}/${g.flag.wrong} abstain ${g.abstain.right}/${g.abstain.wrong}`,
    );
  }
  for (const d of ev.differences) out.push(`  ${d.rule} − ${d.baseline}: ${difference(d.difference)}`);
  return out;
}

function policyName(l: LabelPolicyEvaluation): string {
  return l.labelPolicy === 'file' ? 'labels file' : `${l.labelPolicy} labels`;
}

/** The rules under every label policy side by side (AUROC, pass accuracy, pass share, correct withheld). */
function sideBySideMarkdown(sets: readonly LabelPolicyEvaluation[]): string[] {
  const rules = sets[0]?.evaluation?.rules.map((r) => r.rule) ?? [];
  const out = [
    '### Under each label policy (same answers, same scores; only the labels change)',
    '',
    `| Score | ${sets.map((l) => `${policyName(l)}: AUROC (95% CI) | pass accuracy | correct withheld`).join(' | ')} |`,
    `|---|${sets.map(() => '---|---|---|').join('')}`,
    `| accuracy | ${sets.map((l) => `${pct(l.evaluation?.accuracy)} of ${l.evaluation?.n ?? 0} | | `).join(' | ')} |`,
  ];
  for (const rule of rules) {
    const cells = sets.map((l) => {
      const r = l.evaluation?.rules.find((x) => x.rule === rule);
      return r === undefined ? '– | – | –' : `${interval(r.auroc)} | ${pct(r.metrics.passAccuracy)} | ${pct(r.metrics.correctWithheld)}`;
    });
    out.push(`| ${RULE_LABELS[rule]} | ${cells.join(' | ')} |`);
  }
  for (const l of sets) {
    const d = l.evaluation?.differences.find((x) => x.rule === 'agreement-first' && x.baseline === 'designed');
    if (d !== undefined) out.push('', `- ${policyName(l)}: agreement-first − designed ${difference(d.difference)}`);
  }
  return out;
}

function gateRow(r: RuleEvaluation): string {
  const g = r.gate;
  return `| ${RULE_LABELS[r.rule]} | ${g.pass.right} / ${g.pass.wrong} | ${g.flag.right} / ${g.flag.wrong} | ${g.abstain.right} / ${g.abstain.wrong} |`;
}

/** The approved definitions' table and the checking-only experiment (before / after). */
function definitionsMarkdown(d: NonNullable<ConfidenceReport['definitions']>, k: number): string[] {
  const out = [
    `### Approved definitions (${d.rules.length} rules from ${d.sources.join(', ')}; SQL read as ${d.dialect})`,
    '',
    '| rule | effect | approved by | on | applies to | kept | broken (right / wrong) | unmeasured |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of d.rules) {
    out.push(`| ${cell(r.id)} | ${r.effect} | ${cell(r.approver)} | ${r.approved} | ${r.applied} | ${r.kept} | ${r.broken} (${r.brokenRight} / ${r.brokenWrong}) | ${r.unmeasured} |`);
  }
  const e = d.experiment;
  if (e !== null) {
    const g = (t: typeof e.before): string => `${t.pass.right} / ${t.pass.wrong} | ${t.flag.right} / ${t.flag.wrong} | ${t.abstain.right} / ${t.abstain.wrong}`;
    out.push(
      '',
      `Checking only (answers and traces fixed, definitions only in the checker), ${RULE_LABELS[e.rule]}, right / wrong:`,
      '',
      '| | pass | flag | abstain |',
      '|---|---|---|---|',
      `| without definitions | ${g(e.before)} |`,
      `| with definitions | ${g(e.after)} |`,
      '',
      `Wrong answers moved out of pass: ${e.wrongMovedFromPass}; newly withheld: ${e.wrongNewlyWithheld}. ` +
        `Correct answers moved out of pass: ${e.correctMovedFromPass}; newly withheld: ${e.correctNewlyWithheld}. ` +
        (k === 1 ? 'Wrong answers with full agreement: n/a (K = 1: agreement is undefined).' : `Wrong answers with full agreement: ${e.fullAgreementWrong}, passed ${e.fullAgreementWrongPassedBefore} before and ${e.fullAgreementWrongPassedAfter} after.`),
    );
  }
  return out;
}

function plantMarkdown(plant: PlantReport): string[] {
  const out = [
    `### Planted errors (up to ${plant.perKind} per kind from ${plant.correctAnswers} answers labelled correct, seed ${plant.seed})`,
    '',
    `Controls: ${plant.controls.reproduced} of ${plant.controls.tried} unchanged queries written back from the parser's tree reproduced their results.`,
    '',
    '| Error | planted (effective) | agreement-first withheld | agreement-first not passed | designed withheld | designed not passed | own check |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const k of plant.kinds) {
    const af = k.rules['agreement-first'];
    const d = k.rules.designed;
    const share = (x: number | undefined): string => (x === undefined || k.effective === 0 ? '–' : pct(x / k.effective));
    const own = k.ownCheckFired === null ? `unmeasured (${k.ownCheck} check: no judge recordings)` : `${k.ownCheck}: ${share(k.ownCheckFired)}`;
    out.push(`| ${k.kind.replaceAll('_', ' ')} | ${k.planted} (${k.effective}) | ${share(af?.withheld)} | ${share(af?.notPassed)} | ${share(d?.withheld)} | ${share(d?.notPassed)} | ${own} |`);
  }
  out.push('', 'Skipped answers by reason:', '');
  for (const k of plant.kinds) {
    const reasons = Object.entries(k.skipped).map(([r, n]) => `${r} (${n})`).join('; ');
    out.push(`- ${k.kind.replaceAll('_', ' ')}: ${reasons === '' ? 'none' : reasons}${k.examples[0] ? `; e.g. question ${k.examples[0].questionId}: ${k.examples[0].change}` : ''}`);
  }
  return out;
}

function answersMarkdown(report: ConfidenceReport, maxAnswers: number | undefined): string[] {
  const rows = maxAnswers === undefined ? report.answers : report.answers.slice(0, maxAnswers);
  const out = [
    '### Answers',
    '',
    '| Question | label | A | agreement-first | v3 | designed | gate | reasons |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const a of rows) out.push(answerRow(a));
  if (rows.length < report.answers.length) out.push('', `*${report.answers.length - rows.length} more answers in the JSON report.*`);
  return out;
}

function answerRow(a: AnswerRow): string {
  const af = a.scores['agreement-first'];
  const shown = af ?? a.scores.designed;
  const reasons = (shown?.reasons ?? []).map((r) => `${r.code}: ${r.detail}`).join('; ');
  return (
    `| ${cell(`${a.questionId} ${clip(a.question, 60)}`)} | ${a.label === undefined ? '–' : a.label ? 'right' : 'wrong'} | ` +
    `${a.agreement === null ? 'undefined' : `${a.agreement.agreeing}/${a.agreement.k}`} | ${num(af?.score, 2)} | ${num(a.scores.v3?.score, 2)} | ` +
    `${num(a.scores.designed?.score, 2)} | ${shown?.gate ?? '–'}${af === undefined && shown !== undefined ? ' (designed)' : ''} | ${cell(clip(reasons, 200))} |`
  );
}

/**
 * The report as plain text for a terminal: the per-answer table (question, A, rule scores,
 * gate, reasons) then the evaluation. Pure.
 *
 * @example renderConfidenceText(report).split('\n')[0] // 'Answer confidence: Spider dev, genparse Llama-3, K = 5'
 */
export function renderConfidenceText(report: ConfidenceReport, options: RenderOptions = {}): string {
  const out: string[] = [`Answer confidence: ${report.title}`, ...policyLines(report).map((l) => `  ${l}`), ...report.notes.map((n) => `  note: ${n}`), ''];
  const rows = options.maxAnswers === undefined ? report.answers : report.answers.slice(0, options.maxAnswers);
  const table = [['question', 'label', 'A', 'agr-first', 'v3', 'designed', 'gate', 'reasons']];
  for (const a of rows) {
    const af = a.scores['agreement-first'];
    // K = 1: agreement-first is undefined; the gate and reasons shown are the designed score's.
    const shown = af ?? a.scores.designed;
    table.push([
      a.questionId,
      a.label === undefined ? '-' : a.label ? 'right' : 'wrong',
      a.agreement === null ? 'undef' : `${a.agreement.agreeing}/${a.agreement.k}`,
      num(af?.score, 2),
      num(a.scores.v3?.score, 2),
      num(a.scores.designed?.score, 2),
      shown === undefined ? '-' : `${shown.gate}${af === undefined ? ' (designed)' : ''}`,
      clip((shown?.reasons ?? []).map((r) => `${r.code}: ${r.detail}`).join('; '), 120),
    ]);
  }
  const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => (r[c] ?? '').length)));
  for (const r of table) out.push(r.map((v, c) => (c === r.length - 1 ? v : v.padEnd(widths[c] ?? 0))).join('  ').trimEnd());
  if (rows.length < report.answers.length) out.push(`... ${report.answers.length - rows.length} more answers (see --json)`);
  const ev = report.evaluation;
  if (ev !== null) {
    out.push('', `Evaluation: ${ev.n} labelled answers, accuracy ${pct(ev.accuracy)}; AUROC 95% CI from ${ev.resamples} resamples (seed ${ev.seed})`);
    out.push(...evaluationLines(ev));
    for (const l of report.byLabelPolicy.slice(1)) {
      const e = l.evaluation;
      if (e === null) {
        out.push('', `Under ${policyName(l)}: nothing to evaluate (no answer has a label).`);
        continue;
      }
      out.push('', `Under ${policyName(l)} (${l.labelsSource}): ${e.n} labelled answers, accuracy ${pct(e.accuracy)}`);
      out.push(...evaluationLines(e));
    }
  } else if (report.labelsSource !== null) {
    out.push('', 'Evaluation: nothing to evaluate (no answer has a label).');
  }
  if (report.definitions !== null) {
    const d = report.definitions;
    out.push('', `Approved definitions (${d.rules.length} rules from ${d.sources.join(', ')}; SQL read as ${d.dialect}): applies / kept / broken (right, wrong) / unmeasured`);
    for (const r of d.rules) out.push(`  ${r.id.padEnd(36)} ${r.effect.padEnd(4)}  ${r.applied} / ${r.kept} / ${r.broken} (${r.brokenRight}, ${r.brokenWrong}) / ${r.unmeasured}   approved by ${r.approver} on ${r.approved}`);
    const e = d.experiment;
    if (e !== null) {
      const g = (t: typeof e.before): string => `pass ${t.pass.right}/${t.pass.wrong} flag ${t.flag.right}/${t.flag.wrong} abstain ${t.abstain.right}/${t.abstain.wrong}`;
      out.push(
        `  checking only, ${e.rule}: without definitions ${g(e.before)}; with ${g(e.after)}`,
        `  wrong moved out of pass ${e.wrongMovedFromPass}, newly withheld ${e.wrongNewlyWithheld}; correct moved out of pass ${e.correctMovedFromPass}, newly withheld ${e.correctNewlyWithheld}; ` +
          (report.k === 1 ? 'wrong with full agreement n/a (K = 1)' : `wrong with full agreement ${e.fullAgreementWrong}: passed ${e.fullAgreementWrongPassedBefore} before, ${e.fullAgreementWrongPassedAfter} after`),
      );
    }
  }
  if (report.plant !== null) {
    out.push('', 'Planted errors (effective plants; agreement-first withheld / not passed; own check fired):');
    for (const k of report.plant.kinds) {
      const af = k.rules['agreement-first'];
      out.push(
        `  ${k.kind.padEnd(18)} ${String(k.effective).padStart(3)}  ${af?.withheld ?? 0} / ${af?.notPassed ?? 0}  ` +
          `${k.ownCheckFired === null ? `${k.ownCheck} (unmeasured: no judge recordings)` : `${k.ownCheck} ${k.ownCheckFired}/${k.effective}`}`,
      );
    }
  }
  return `${out.join('\n')}\n`;
}
