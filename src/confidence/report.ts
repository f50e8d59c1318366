import { auroc } from '../stats/auroc.js';
import type { AnswerAssessment } from './assess.js';
import { evaluateRules, type Evaluation, type EvaluationOptions, type LabelledAnswer } from './evaluate.js';
import type { PlantReport } from './plant-report.js';
import type { LabelPolicy, MatchPolicy } from './policy.js';
import type { GateThresholds, ThinEvidencePolicy } from './rules.js';
import type { DefinitionFinding } from '../definitions/types.js';
import { gateTable, type GateTable } from './gate-table.js';
import type { CheckStatus, GateState, Reason, RuleName } from './types.js';

/** Version of the JSON written by `replaygate confidence --json`. */
export const CONFIDENCE_SCHEMA_VERSION = 1;

/** What the K samples are: seeds of one recording, different systems, or one call's candidate list. */
export type SamplesKind = 'seeds' | 'systems' | 'candidates';

/** One answer's row in the report. */
export interface AnswerRow {
  readonly questionId: string;
  readonly question: string;
  readonly db?: string;
  /** The correctness label under the report's (first) label policy, when labels are known. */
  readonly label?: boolean;
  /** The label under each label policy of the report, when it has more than one (policy → label). */
  readonly labels?: Readonly<Record<string, boolean>>;
  /** A (undetermined pairs agreeing), its bound (them disagreeing), agreeing count, K; null when undefined (K = 1). */
  readonly agreement: { readonly value: number; readonly lowerBound: number; readonly agreeing: number; readonly k: number } | null;
  readonly entropy: { readonly designed: number | null; readonly strict: number | null; readonly relaxed: number | null };
  readonly checks: Readonly<Record<'missingTable' | 'badJoin' | 'standIn' | 'uncitedNumber' | 'emptyResult', { readonly status: CheckStatus; readonly detail: string }>>;
  readonly scores: Readonly<Partial<Record<RuleName, { readonly score: number; readonly gate: GateState; readonly reasons: readonly Reason[] }>>>;
  /** Approved definitions that apply to the answer, with their findings. */
  readonly definitions?: readonly DefinitionFinding[];
  readonly sql?: string;
}

/** One approved definition over the report's answers. */
export interface DefinitionSummary {
  readonly id: string;
  readonly effect: 'veto' | 'cap';
  readonly approver: string;
  readonly approved: string;
  /** Answers it applies to. */
  readonly applied: number;
  readonly kept: number;
  readonly broken: number;
  readonly unmeasured: number;
  /** Broken on answers labelled right / wrong (under the first label policy). */
  readonly brokenRight: number;
  readonly brokenWrong: number;
}

/**
 * The checking-only experiment (paper §10): the same answers and traces, the definitions only
 * in the checker; agreement-first's gate (the designed score's when K = 1) before (no
 * definitions) and after.
 */
export interface DefinitionsExperiment {
  readonly rule: RuleName;
  readonly before: GateTable;
  readonly after: GateTable;
  /** Wrong answers passed before and flagged or withheld after. */
  readonly wrongMovedFromPass: number;
  /** Wrong answers not withheld before and withheld after. */
  readonly wrongNewlyWithheld: number;
  /** Right answers passed before and not after. */
  readonly correctMovedFromPass: number;
  /** Right answers not withheld before and withheld after. */
  readonly correctNewlyWithheld: number;
  /** Wrong answers with full agreement (every sample agrees), and how many of them pass before and after. */
  readonly fullAgreementWrong: number;
  readonly fullAgreementWrongPassedBefore: number;
  readonly fullAgreementWrongPassedAfter: number;
}

/** Approved definitions in a report. */
export interface DefinitionsReport {
  readonly sources: readonly string[];
  readonly dialect: string;
  readonly rules: readonly DefinitionSummary[];
  /** Null without labels or without the baseline assessment. */
  readonly experiment: DefinitionsExperiment | null;
}

/** The `replaygate confidence` report (JSON and the source of every rendering). */
export interface ConfidenceReport {
  readonly schemaVersion: typeof CONFIDENCE_SCHEMA_VERSION;
  readonly kind: 'confidence';
  readonly title: string;
  readonly samplesKind: SamplesKind;
  /** Labels of the K samples in order; the first is the shown answer. */
  readonly sampleLabels: readonly string[];
  readonly k: number;
  readonly labelsSource: string | null;
  /** Where the labels of `evaluation` come from: execution match under a matching policy, or a labels file; null without labels. */
  readonly labelPolicy: LabelPolicy | null;
  /** The matching policy of agreement between samples. */
  readonly agreementPolicy: MatchPolicy;
  /** Where the gate thresholds come from: the paper's design, the command line, or a thresholds file written by `confidence calibrate`. */
  readonly gateSource: string;
  /** The evaluation under every label policy asked for, side by side; the first is `evaluation`. Empty without labels. */
  readonly byLabelPolicy: readonly LabelPolicyEvaluation[];
  readonly gate: GateThresholds;
  /** Thresholds of single rules (from a thresholds file: its rule only), overriding `gate` for them; `passAt` null in JSON = nothing passes. */
  readonly ruleGates?: Readonly<Partial<Record<RuleName, GateThresholds>>>;
  readonly thinEvidence: ThinEvidencePolicy;
  /** Statements about what is measured here and what is not (unmeasured terms, K = 1, samples kind). */
  readonly notes: readonly string[];
  readonly answers: readonly AnswerRow[];
  readonly evaluation: Evaluation | null;
  /** Truncation policy (paper §3.3): pairs undetermined, and agreement-first's AUROC with them counted as disagreeing. */
  readonly truncation: { readonly undeterminedPairs: number; readonly answersAffected: number; readonly agreementFirstAurocBound: number | null };
  /**
   * The empty-result signal (v3; the paper's H3): answers it fired on, how many of those have a
   * label, and how many of the labelled ones were right (null when none of them has a label).
   */
  readonly emptyResult: { readonly fired: number; readonly labelled: number; readonly right: number | null };
  /** Answers left out of the evaluation because they have no label (labels given but not for them); empty without labels. */
  readonly unlabelled: readonly string[];
  readonly plant: PlantReport | null;
  /** Approved definitions checked, their findings and the checking-only experiment; null without definitions. */
  readonly definitions: DefinitionsReport | null;
  /** Wall-clock milliseconds of the stages, when measured. */
  readonly timingMs: Readonly<Record<string, number>>;
}

/** The evaluation of the rules under one label policy. */
export interface LabelPolicyEvaluation {
  readonly labelPolicy: LabelPolicy;
  readonly labelsSource: string;
  readonly evaluation: Evaluation | null;
  readonly unlabelled: readonly string[];
  readonly emptyResult: ConfidenceReport['emptyResult'];
  /** Agreement-first's AUROC with undetermined pairs counted as disagreeing. */
  readonly agreementFirstAurocBound: number | null;
}

/** One set of labels: its policy, a description of its source, the labels. */
export interface LabelSet {
  readonly policy: LabelPolicy;
  readonly source: string;
  readonly labels: ReadonlyMap<string, boolean>;
}

export interface BuildReportOptions {
  readonly title: string;
  readonly samplesKind: SamplesKind;
  readonly sampleLabels: readonly string[];
  /** Question id → label; answers without a label are left out of the evaluation. */
  readonly labels?: ReadonlyMap<string, boolean>;
  readonly labelsSource?: string;
  /** The policy of `labels` (default: `relaxed` execution match). */
  readonly labelPolicy?: LabelPolicy;
  /** Further label sets evaluated side by side with `labels`. */
  readonly moreLabelSets?: readonly LabelSet[];
  /** Matching policy of agreement (default `relaxed`, the paper's). */
  readonly agreementPolicy?: MatchPolicy;
  /** Where the gate thresholds come from (default: the paper's design thresholds). */
  readonly gateSource?: string;
  readonly gate: GateThresholds;
  /** Thresholds of single rules (a thresholds file's rule), overriding `gate` for them. */
  readonly ruleGates?: Readonly<Partial<Record<RuleName, GateThresholds>>>;
  readonly thinEvidence: ThinEvidencePolicy;
  readonly judgeRecordings: boolean;
  readonly evaluation?: EvaluationOptions;
  readonly plant?: PlantReport;
  readonly timingMs?: Readonly<Record<string, number>>;
  /** Approved definitions checked (their list, sources and dialect), and the same answers assessed without them (the experiment's "before"). */
  readonly definitions?: {
    readonly list: readonly { readonly id: string; readonly effect: 'veto' | 'cap'; readonly approver: string; readonly approved: string }[];
    readonly sources: readonly string[];
    readonly dialect: string;
    readonly baseline?: readonly AnswerAssessment[];
  };
}

/**
 * Builds the confidence report from assessed answers and (optionally) labels: per-answer rows,
 * the evaluation of every rule, the truncation bound, the empty-result signal and the notes
 * that say what is unmeasured. Pure.
 *
 * @example buildConfidenceReport(assessments, { title: 'Spider, K = 5', samplesKind: 'seeds', ... }).evaluation?.rules[0].auroc
 */
export function buildConfidenceReport(assessments: readonly AnswerAssessment[], options: BuildReportOptions): ConfidenceReport {
  const k = assessments[0]?.k ?? options.sampleLabels.length;
  const labels = options.labels;
  const sets: LabelSet[] =
    labels === undefined
      ? []
      : [{ policy: options.labelPolicy ?? 'relaxed', source: options.labelsSource ?? 'labels', labels }, ...(options.moreLabelSets ?? [])];
  const rows: AnswerRow[] = assessments.map((a) => {
    const label = labels?.get(a.questionId);
    const perPolicy: Record<string, boolean> = {};
    for (const set of sets) {
      const y = set.labels.get(a.questionId);
      if (y !== undefined) perPolicy[set.policy] = y;
    }
    const scores: Partial<Record<RuleName, { score: number; gate: GateState; reasons: readonly Reason[] }>> = {};
    for (const s of a.rules.scores) scores[s.rule] = { score: s.score, gate: s.gate, reasons: s.reasons };
    const c = a.checks;
    return {
      questionId: a.questionId,
      question: a.question,
      ...(a.db !== undefined ? { db: a.db } : {}),
      ...(label !== undefined ? { label } : {}),
      ...(sets.length > 1 ? { labels: perPolicy } : {}),
      agreement: a.agreement.defined
        ? { value: a.agreement.value, lowerBound: a.agreement.lowerBound, agreeing: a.agreement.agreeing, k: a.agreement.k }
        : null,
      entropy: { designed: a.entropy.designed ?? null, strict: a.entropy.strict ?? null, relaxed: a.entropy.relaxed ?? null },
      checks: {
        missingTable: pick(c.missingTable),
        badJoin: pick(c.badJoin),
        standIn: pick(c.standIn),
        uncitedNumber: pick(c.uncitedNumber),
        emptyResult: pick(c.emptyResult),
      },
      scores,
      ...(a.definitions.length > 0 ? { definitions: a.definitions } : {}),
      ...(a.shownSql !== undefined ? { sql: a.shownSql } : {}),
    };
  });

  const byLabelPolicy = sets.map((set) => evaluateLabelSet(assessments, set, options.evaluation ?? {}));
  const primary = byLabelPolicy[0];
  const undeterminedPairs = assessments.reduce((s, a) => s + (a.agreement.defined ? a.agreement.undetermined : 0), 0);
  const emptyFired = assessments.filter((a) => a.checks.emptyResult.status === 'fired').length;
  const unlabelled = primary?.unlabelled ?? [];

  return {
    schemaVersion: CONFIDENCE_SCHEMA_VERSION,
    kind: 'confidence',
    title: options.title,
    samplesKind: options.samplesKind,
    sampleLabels: options.sampleLabels,
    k,
    labelsSource: labels === undefined ? null : (options.labelsSource ?? null),
    labelPolicy: sets[0]?.policy ?? null,
    agreementPolicy: options.agreementPolicy ?? 'relaxed',
    gateSource: options.gateSource ?? DESIGN_GATE_SOURCE,
    byLabelPolicy,
    gate: options.gate,
    ...(options.ruleGates !== undefined ? { ruleGates: options.ruleGates } : {}),
    thinEvidence: options.thinEvidence,
    notes: [...notesFor(assessments, options, k), ...(labels === undefined ? [] : [unlabelledNote(unlabelled, assessments.length)].filter((n): n is string => n !== undefined))],
    answers: rows,
    evaluation: primary?.evaluation ?? null,
    truncation: {
      undeterminedPairs,
      answersAffected: assessments.filter((a) => a.agreement.defined && a.agreement.undetermined > 0).length,
      agreementFirstAurocBound: primary?.agreementFirstAurocBound ?? null,
    },
    emptyResult: primary?.emptyResult ?? { fired: emptyFired, labelled: 0, right: null },
    unlabelled,
    plant: options.plant ?? null,
    definitions: options.definitions === undefined ? null : definitionsReport(assessments, options.definitions, sets[0]?.labels),
    timingMs: options.timingMs ?? {},
  };
}

/** The definitions' findings over the answers, and the checking-only experiment when labels and the baseline are known. */
function definitionsReport(
  assessments: readonly AnswerAssessment[],
  definitions: NonNullable<BuildReportOptions['definitions']>,
  labels: ReadonlyMap<string, boolean> | undefined,
): DefinitionsReport {
  const rules = definitions.list.map((d): DefinitionSummary => {
    const findings = assessments.flatMap((a) => a.definitions.filter((f) => f.id === d.id).map((f) => ({ f, label: labels?.get(a.questionId) })));
    const broken = findings.filter((x) => x.f.status === 'broken');
    return {
      ...d,
      applied: findings.length,
      kept: findings.filter((x) => x.f.status === 'kept').length,
      broken: broken.length,
      unmeasured: findings.filter((x) => x.f.status === 'unmeasured').length,
      brokenRight: broken.filter((x) => x.label === true).length,
      brokenWrong: broken.filter((x) => x.label === false).length,
    };
  });
  let experiment: DefinitionsExperiment | null = null;
  const baseline = definitions.baseline;
  if (labels !== undefined && baseline !== undefined) {
    // Agreement-first is the primary rule; with K = 1 it is undefined and the designed score stands in.
    const rule: RuleName = assessments.some((a) => a.rules.scores.some((s) => s.rule === 'agreement-first')) ? 'agreement-first' : 'designed';
    const before = new Map(baseline.map((a) => [a.questionId, a.rules.scores.find((s) => s.rule === rule)?.gate]));
    const rows = assessments.flatMap((a) => {
      const label = labels.get(a.questionId);
      const after = a.rules.scores.find((s) => s.rule === rule)?.gate;
      const was = before.get(a.questionId);
      return label === undefined || after === undefined || was === undefined ? [] : [{ label, was, after, full: a.agreement.defined && a.agreement.agreeing === a.agreement.k }];
    });
    const count = (f: (r: (typeof rows)[number]) => boolean): number => rows.filter(f).length;
    experiment = {
      rule,
      before: gateTable(rows.map((r) => r.was), rows.map((r) => r.label)),
      after: gateTable(rows.map((r) => r.after), rows.map((r) => r.label)),
      wrongMovedFromPass: count((r) => !r.label && r.was === 'pass' && r.after !== 'pass'),
      wrongNewlyWithheld: count((r) => !r.label && r.was !== 'abstain' && r.after === 'abstain'),
      correctMovedFromPass: count((r) => r.label && r.was === 'pass' && r.after !== 'pass'),
      correctNewlyWithheld: count((r) => r.label && r.was !== 'abstain' && r.after === 'abstain'),
      fullAgreementWrong: count((r) => !r.label && r.full),
      fullAgreementWrongPassedBefore: count((r) => !r.label && r.full && r.was === 'pass'),
      fullAgreementWrongPassedAfter: count((r) => !r.label && r.full && r.after === 'pass'),
    };
  }
  return { sources: definitions.sources, dialect: definitions.dialect, rules, experiment };
}

/** The gate source of a report whose thresholds are the paper's. */
export const DESIGN_GATE_SOURCE = "the paper's design thresholds (pass ≥ 0.80, flag ≥ 0.60; not fitted)";

/** The evaluation, truncation bound and empty-result signal of the rules under one label set. */
function evaluateLabelSet(assessments: readonly AnswerAssessment[], set: LabelSet, evaluationOptions: EvaluationOptions): LabelPolicyEvaluation {
  const labelled: LabelledAnswer[] = [];
  const boundScores: number[] = [];
  const boundLabels: boolean[] = [];
  for (const a of assessments) {
    const label = set.labels.get(a.questionId);
    if (label === undefined) continue;
    labelled.push({ questionId: a.questionId, label, scores: a.rules.scores });
    const af = a.rules.scores.find((s) => s.rule === 'agreement-first');
    if (af !== undefined && a.agreement.defined) {
      boundScores.push(Math.min(af.score, a.agreement.lowerBound));
      boundLabels.push(label);
    }
  }
  // No labelled answer: nothing to evaluate (stated in the notes), never an evaluation of zero answers.
  const evaluation = labelled.length === 0 ? null : evaluateRules(labelled, evaluationOptions);
  const bound = auroc(boundScores, boundLabels);
  const emptyFired = assessments.filter((a) => a.checks.emptyResult.status === 'fired');
  const emptyLabelled = emptyFired.map((a) => set.labels.get(a.questionId)).filter((y): y is boolean => y !== undefined);
  return {
    labelPolicy: set.policy,
    labelsSource: set.source,
    evaluation,
    unlabelled: assessments.filter((a) => !set.labels.has(a.questionId)).map((a) => a.questionId),
    emptyResult: { fired: emptyFired.length, labelled: emptyLabelled.length, right: emptyLabelled.length === 0 ? null : emptyLabelled.filter((y) => y).length },
    agreementFirstAurocBound: bound.defined ? bound.value : null,
  };
}

/** Ids listed in a note before "…". */
const LISTED_IDS = 10;

/**
 * The note about answers without a label, when labels were given: how many are left out of the
 * evaluation and which (the first ten ids), or "nothing to evaluate" when none has a label;
 * undefined when every answer has one. Also printed as a warning by the CLI.
 *
 * @param unlabelled - ids of the answers without a label.
 * @param answers - the number of answers in the report.
 * @example unlabelledNote(['dev-7'], 656) // '1 answer has no label and is left out of the evaluation: dev-7.'
 */
export function unlabelledNote(unlabelled: readonly string[], answers: number): string | undefined {
  if (unlabelled.length === 0) return undefined;
  if (unlabelled.length === answers) {
    return `No answer has a label (${answers} answer${answers === 1 ? '' : 's'}): there is nothing to evaluate; the scores and gate decisions are listed without an evaluation.`;
  }
  const ids = unlabelled.slice(0, LISTED_IDS).join(', ') + (unlabelled.length > LISTED_IDS ? `, … (${unlabelled.length - LISTED_IDS} more in the JSON report)` : '');
  return `${unlabelled.length} answer${unlabelled.length === 1 ? ' has' : 's have'} no label and ${unlabelled.length === 1 ? 'is' : 'are'} left out of the evaluation: ${ids}.`;
}

function pick(c: { status: CheckStatus; detail: string }): { status: CheckStatus; detail: string } {
  return { status: c.status, detail: c.detail };
}

function notesFor(assessments: readonly AnswerAssessment[], options: BuildReportOptions, k: number): string[] {
  const notes: string[] = [];
  if (options.samplesKind === 'systems') {
    notes.push(`The ${k} samples are different systems' predictions (${options.sampleLabels.join(', ')}), not seeds of one system: agreement here is agreement between systems; the shown answer is ${options.sampleLabels[0] ?? 'the first'}.`);
  } else if (options.samplesKind === 'candidates') {
    notes.push(`The ${k} samples are one model call's list of candidates, not independent samples: the candidates were asked to differ, so agreement is lower than between independent samples.`);
  } else {
    notes.push(`The ${k} samples are seeds ${options.sampleLabels.join(', ')} of one recording; seed ${options.sampleLabels[0] ?? '0'} is the shown answer.`);
  }
  if (k < 2) notes.push('K = 1: agreement is undefined (a single sample only agrees with itself); agreement, agreement-first, v3 and v2 are not computed, and the entropy term is undefined.');
  if (!options.judgeRecordings) {
    notes.push('No judge recordings: COMPLETE and the judge tags (unsupported claims, intent) are unmeasured; L1 counts deterministic tags only; RETRIEVE is unmeasured (every value is a database cell).');
  }
  const withText = assessments.filter((a) => a.checks.uncitedNumber.status !== 'unmeasured').length;
  if (withText === 0) notes.push('No shown answer has written text: SCHEMA and the uncited-number check are unmeasured.');
  notes.push(
    options.thinEvidence === 'available'
      ? 'Thin evidence counts the terms this setting can measure (GROUNDED and SAFETY, plus SCHEMA with written text and COMPLETE with a judge): an answer is thin when GROUNDED is unmeasured or fewer than min(3, measurable) terms are measured. The paper\'s literal rule (--thin-evidence paper) caps every answer here at 0.79.'
      : 'Thin evidence is the paper\'s literal rule (fewer than three terms measured, or GROUNDED not measured).',
  );
  const unparsed = assessments.filter((a) => a.checks.missingTable.status === 'unmeasured' && a.shownSql !== undefined).length;
  if (unparsed > 0) notes.push(`${unparsed} shown ${unparsed === 1 ? 'answer has' : 'answers have'} SQL the parser could not read: its SQL checks are unmeasured (stated per answer), and GROUNDED is unmeasured (thin evidence).`);
  return notes;
}
