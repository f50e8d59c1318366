import type { DefinitionFinding } from '../definitions/types.js';
import type { Agreement } from './agreement.js';
import type { AnswerChecks, CheckResult, GateState, Reason, RuleName, RuleScore } from './types.js';

/** Gate thresholds (paper §3.2): pass at or above `passAt`, flag at or above `flagAt`, else abstain. */
export interface GateThresholds {
  readonly passAt: number;
  readonly flagAt: number;
}

export const DEFAULT_GATE: GateThresholds = { passAt: 0.8, flagAt: 0.6 };
/** The hard cap / veto level (paper eq. 1 and 5). */
export const HARD_CAP = 0.59;
/** The thin-evidence / soft cap level (paper eq. 1 and 5). */
export const SOFT_CAP = 0.79;
/** Weights of the designed score bench-1.0 (paper §3.2). */
export const DESIGNED_WEIGHTS = { grounded: 0.3, schema: 0.2, safety: 0.2, retrieve: 0.2, complete: 0.1 } as const;

/**
 * Judge recordings for an answer, when they exist (none of the built-in imports have them).
 * Without them COMPLETE and the judge tags are unmeasured.
 */
export interface JudgeEvidence {
  /** COMPLETE: share of the question's parts the answer covers, in [0, 1]. */
  readonly complete?: number;
  /** The judge found an unsupported claim about the answer itself. */
  readonly unsupportedAboutAnswer?: boolean;
  /** The judge found an unsupported claim in the commentary around the answer. */
  readonly unsupportedInCommentary?: boolean;
  /** Another judge or heuristic tag fired (r1 = ½ in L1). */
  readonly otherTag?: boolean;
}

/**
 * How "thin evidence" counts measured terms.
 * - `paper`: literally eq. (1): fewer than three terms measured, or GROUNDED not measured. With
 *   no written answers and no judge only GROUNDED and SAFETY can be measured, so every answer is
 *   capped at 0.79 and nothing passes.
 * - `available` (default): fewer than min(3, terms this setting can measure) — GROUNDED and
 *   SAFETY always, SCHEMA when the answer has written text, COMPLETE when a judge ran — or
 *   GROUNDED not measured. Equal to `paper` whenever three terms can be measured (the paper's
 *   own setting: a judge always ran).
 */
export type ThinEvidencePolicy = 'available' | 'paper';

/** Everything the rules read about one answer. */
export interface AnswerEvidence {
  readonly agreement: Agreement;
  /** Designed L2: 1 − H/log K over strict clusters with floats to 6 places; undefined for K = 1. */
  readonly designedEntropy: number | undefined;
  /** L2 over strict clusters with floats to 4 places (the §8 comparison at one matching policy). */
  readonly strictEntropy: number | undefined;
  /** L2 over greedy relaxed clusters (secondary, §8). */
  readonly relaxedEntropy: number | undefined;
  readonly checks: AnswerChecks;
  readonly hasResult: boolean;
  /** The shown answer carries written text (SCHEMA can be measured). */
  readonly hasText: boolean;
  /** Why the shown answer has no result, for the `no_result` reason. */
  readonly noResultDetail?: string;
  readonly judge?: JudgeEvidence;
  /** Findings of the approved definitions that apply to the answer; a broken one acts as a veto or a cap. */
  readonly definitions?: readonly DefinitionFinding[];
}

/** The reason code of a broken approved definition: `definition:<id>`. */
export function definitionReason(finding: DefinitionFinding): Reason {
  return { code: `definition:${finding.id}`, detail: `approved definition ${finding.id} (${finding.effect}) is broken: ${finding.detail}` };
}

/** Options of {@link scoreRules}. */
export interface RuleOptions {
  /** Gate thresholds of every rule without its own in `ruleGates` (default 0.80 / 0.60). */
  readonly gate?: GateThresholds;
  /**
   * Thresholds for one rule only (a thresholds file fitted for agreement-first gates
   * agreement-first, not the other rules); `passAt: Infinity` = nothing passes.
   */
  readonly ruleGates?: Readonly<Partial<Record<RuleName, GateThresholds>>>;
  readonly thinEvidence?: ThinEvidencePolicy;
}

/** The designed score's terms for one answer (`undefined` = unmeasured). */
export interface DesignedTerms {
  readonly grounded: number | undefined;
  readonly schema: number | undefined;
  readonly safety: number | undefined;
  readonly retrieve: undefined;
  readonly complete: number | undefined;
  /** Names of the measured terms. */
  readonly measured: readonly string[];
  readonly thin: boolean;
  /** Why evidence is thin, when it is. */
  readonly thinDetail: string;
}

/** Scores of one answer under every rule, and the rules that are undefined for it. */
export interface AnswerRuleScores {
  readonly scores: readonly RuleScore[];
  readonly undefinedRules: readonly { readonly rule: RuleName; readonly reason: string }[];
  /** Terms of the designed score (with L2) for reports. */
  readonly terms: DesignedTerms;
}

const VETO_CHECKS = ['missingTable', 'badJoin', 'standIn'] as const;

/**
 * Scores one answer under every rule of the paper and gates each score.
 *
 * - **agreement**: A alone.
 * - **entropy**: L2 over strict clusters (4 places), alone — the §8 comparison with A.
 * - **agreement-first** (the primary rule, eq. 5): A, min(A, 0.59) when a veto fires (missing
 *   table, bad join, stand-in), min(A, 0.79) when a cap fires (uncited number, a judge issue
 *   about the answer, COMPLETE < 0.5, thin evidence).
 * - **v3**: agreement-first, then one firing zero-cost signal caps at 0.79, two or more at 0.59;
 *   the only signal frozen is the empty result.
 * - **v2**: the designed score with L2 replaced by A, only judge issues about the answer counted,
 *   and COMPLETE < 0.5 capped at 0.79.
 * - **designed** (bench-1.0, eq. 1): the weighted mean of the measured terms (GROUNDED 0.30,
 *   SCHEMA 0.20, SAFETY 0.20, RETRIEVE 0.20, COMPLETE 0.10), renormalised; hard cap 0.59 (a
 *   missing table, bad join, stand-in, uncited number or judge-reported unsupported claim);
 *   thin-evidence cap 0.79. SAFETY = min(L1, L2), L1 = 1 − r1 (r1 = 1 if a deterministic tag
 *   fires or the judge reports an unsupported claim, ½ for another tag).
 *
 * Approved definitions (paper §10): a broken definition with effect `veto` joins the vetoes
 * (hard cap 0.59 under every rule), one with effect `cap` joins the caps (0.79); the reason
 * names the definition (`definition:<id>`).
 *
 * Additions, stated: an answer with no result (every query failed, or it declined) gets the
 * hard cap under designed and v2 with reason `no_result` (A is already 0 under the agreement
 * rules); with K = 1 the agreement-based rules are undefined and listed in `undefinedRules`,
 * and SAFETY is L1 alone.
 *
 * Source: the confidence-score paper §3.2 (eq. 1, 3), §3.4 (eq. 5) and §6.1.
 *
 * @param evidence - agreement, entropy terms and checks of the answer.
 * @param options - gate thresholds (default 0.80 / 0.60) and the thin-evidence policy (default `available`).
 * @example
 * // evidence: 4 of 5 samples agree with the shown answer, no check fired
 * scoreRules(evidence).scores.find((s) => s.rule === 'agreement-first')
 * // { rule: 'agreement-first', score: 0.8, gate: 'pass', reasons: [] }
 */
export function scoreRules(evidence: AnswerEvidence, options: RuleOptions = {}): AnswerRuleScores {
  const gate = options.gate ?? DEFAULT_GATE;
  const gateFor = (rule: RuleName): GateThresholds => options.ruleGates?.[rule] ?? gate;
  const policy = options.thinEvidence ?? 'available';
  const { checks, agreement } = evidence;
  const scores: RuleScore[] = [];
  const undefinedRules: { rule: RuleName; reason: string }[] = [];
  const fired = (c: CheckResult): boolean => c.status === 'fired';
  const checkReason = (c: CheckResult): Reason => ({ code: c.check, detail: c.detail });
  const noResult: Reason = {
    code: 'no_result',
    detail: `the shown answer has no result${evidence.noResultDetail === undefined ? '' : `: ${evidence.noResultDetail}`}`,
  };
  const broken = (evidence.definitions ?? []).filter((f) => f.status === 'broken');
  const definitionCaps = broken.filter((f) => f.effect === 'cap').map(definitionReason);
  const vetoes = [...VETO_CHECKS.map((k) => checks[k]).filter(fired).map(checkReason), ...broken.filter((f) => f.effect === 'veto').map(definitionReason)];
  const judge = evidence.judge;

  const designedTerms = terms(evidence, evidence.designedEntropy, policy, false);
  const agreementDefined = agreement.defined;
  const a = agreement.defined ? agreement.value : undefined;

  // Caps shared by agreement-first and v3 (eq. 5).
  const softCaps: Reason[] = [];
  if (fired(checks.uncitedNumber)) softCaps.push(checkReason(checks.uncitedNumber));
  if (judge?.unsupportedAboutAnswer === true) softCaps.push({ code: 'judge_claim', detail: 'the judge reports an unsupported claim about the answer' });
  if (judge?.complete !== undefined && judge.complete < 0.5) softCaps.push({ code: 'incomplete', detail: `COMPLETE = ${judge.complete.toFixed(2)} < 0.5` });
  if (designedTerms.thin) softCaps.push({ code: 'thin_evidence', detail: designedTerms.thinDetail });
  softCaps.push(...definitionCaps);

  if (a === undefined || !agreementDefined) {
    const reason = agreement.defined ? '' : agreement.reason;
    for (const rule of ['agreement', 'agreement-first', 'v3', 'v2'] as const) undefinedRules.push({ rule, reason: `agreement undefined: ${reason}` });
  } else {
    const k = agreement.k;
    const lowFor = (rule: RuleName): Reason[] => {
      if (!evidence.hasResult) return [noResult];
      if (a < gateFor(rule).passAt) return [{ code: 'low_agreement', detail: `${agreement.agreeing} of ${k} samples agree with the shown answer (A = ${a.toFixed(2)})` }];
      return [];
    };
    scores.push(gated('agreement', a, lowFor('agreement'), gateFor('agreement')));

    let af = a;
    if (vetoes.length > 0) af = Math.min(af, HARD_CAP);
    if (softCaps.length > 0) af = Math.min(af, SOFT_CAP);
    scores.push(gated('agreement-first', af, [...lowFor('agreement-first'), ...vetoes, ...softCaps], gateFor('agreement-first')));

    const signals: Reason[] = fired(checks.emptyResult) ? [checkReason(checks.emptyResult)] : [];
    let v3 = af;
    if (signals.length === 1) v3 = Math.min(v3, SOFT_CAP);
    if (signals.length >= 2) v3 = Math.min(v3, HARD_CAP);
    scores.push(gated('v3', v3, [...lowFor('v3'), ...vetoes, ...softCaps, ...signals], gateFor('v3')));

    const v2Terms = terms(evidence, a, policy, true);
    const v2Caps: Reason[] = [...vetoes];
    if (fired(checks.uncitedNumber)) v2Caps.push(checkReason(checks.uncitedNumber));
    if (judge?.unsupportedAboutAnswer === true) v2Caps.push({ code: 'judge_claim', detail: 'the judge reports an unsupported claim about the answer' });
    if (!evidence.hasResult) v2Caps.push(noResult);
    const v2Soft: Reason[] = [];
    if (v2Terms.thin) v2Soft.push({ code: 'thin_evidence', detail: v2Terms.thinDetail });
    if (judge?.complete !== undefined && judge.complete < 0.5) v2Soft.push({ code: 'incomplete', detail: `COMPLETE = ${judge.complete.toFixed(2)} < 0.5` });
    v2Soft.push(...definitionCaps);
    scores.push(weighted('v2', v2Terms, v2Caps, v2Soft, gateFor('v2')));
  }

  if (evidence.strictEntropy === undefined) {
    undefinedRules.push({ rule: 'entropy', reason: 'entropy term undefined: K = 1 (log K = 0)' });
  } else {
    const low: Reason[] = evidence.strictEntropy < gateFor('entropy').passAt ? [{ code: 'low_score', detail: `entropy term ${evidence.strictEntropy.toFixed(2)}` }] : [];
    scores.push(gated('entropy', evidence.strictEntropy, low, gateFor('entropy')));
  }

  const designedCaps: Reason[] = [...vetoes];
  if (fired(checks.uncitedNumber)) designedCaps.push(checkReason(checks.uncitedNumber));
  if (judge?.unsupportedAboutAnswer === true || judge?.unsupportedInCommentary === true) {
    designedCaps.push({ code: 'judge_claim', detail: 'the judge reports an unsupported claim' });
  }
  if (!evidence.hasResult) designedCaps.push(noResult);
  const designedSoft: Reason[] = [...(designedTerms.thin ? [{ code: 'thin_evidence', detail: designedTerms.thinDetail }] : []), ...definitionCaps];
  scores.push(weighted('designed', designedTerms, designedCaps, designedSoft, gateFor('designed')));

  return { scores, undefinedRules, terms: designedTerms };
}

/** The designed score's terms, with `agreementTerm` in SAFETY (L2 for designed, A for v2). */
function terms(evidence: AnswerEvidence, agreementTerm: number | undefined, policy: ThinEvidencePolicy, v2: boolean): DesignedTerms {
  const { checks, judge } = evidence;
  const parts = [checks.gTab, checks.gJoin, checks.gVal].filter((x): x is number => x !== undefined);
  const grounded = parts.length === 0 ? undefined : parts.reduce((s, x) => s + x, 0) / parts.length;
  const schema = checks.citedNumbers >= 1 ? 1 : undefined;
  const deterministic = [checks.missingTable, checks.badJoin, checks.standIn, checks.uncitedNumber].some((c) => c.status === 'fired');
  const claim = v2 ? judge?.unsupportedAboutAnswer === true : judge?.unsupportedAboutAnswer === true || judge?.unsupportedInCommentary === true;
  const r1 = deterministic || claim ? 1 : judge?.otherTag === true ? 0.5 : 0;
  const l1 = 1 - r1;
  const safety = agreementTerm === undefined ? l1 : Math.min(l1, agreementTerm);
  const complete = judge?.complete;
  const measured = [
    grounded === undefined ? undefined : 'GROUNDED',
    schema === undefined ? undefined : 'SCHEMA',
    'SAFETY',
    complete === undefined ? undefined : 'COMPLETE',
  ].filter((x): x is string => x !== undefined);
  const measurable = 2 + (evidence.hasText ? 1 : 0) + (complete !== undefined ? 1 : 0);
  const required = policy === 'paper' ? 3 : Math.min(3, measurable);
  const thin = grounded === undefined || measured.length < required;
  const unmeasurable = [evidence.hasText ? '' : 'SCHEMA needs a written answer', complete !== undefined ? '' : 'COMPLETE needs a judge (no judge recordings)']
    .filter((s) => s !== '')
    .join('; ');
  const thinDetail = !thin
    ? ''
    : grounded === undefined
      ? `GROUNDED is not measured (${checks.missingTable.detail})`
      : `${measured.length} of the terms measured (${measured.join(', ')}); ${required} needed${unmeasurable === '' ? '' : `; ${unmeasurable}`}`;
  return { grounded, schema, safety, retrieve: undefined, complete, measured, thin, thinDetail };
}

function weighted(rule: 'designed' | 'v2', t: DesignedTerms, hardCaps: Reason[], softCaps: Reason[], gate: GateThresholds): RuleScore {
  const w = DESIGNED_WEIGHTS;
  const entries: [number, number | undefined][] = [
    [w.grounded, t.grounded],
    [w.schema, t.schema],
    [w.safety, t.safety],
    [w.complete, t.complete],
  ];
  let num = 0;
  let den = 0;
  for (const [weight, value] of entries) {
    if (value === undefined) continue;
    num += weight * value;
    den += weight;
  }
  const ies0 = den === 0 ? 0 : num / den;
  let score = ies0;
  if (hardCaps.length > 0) score = Math.min(score, HARD_CAP);
  if (softCaps.length > 0) score = Math.min(score, SOFT_CAP);
  const parts = [
    t.grounded === undefined ? '' : `GROUNDED ${t.grounded.toFixed(2)}`,
    t.schema === undefined ? '' : `SCHEMA ${t.schema.toFixed(2)}`,
    t.safety === undefined ? '' : `SAFETY ${t.safety.toFixed(2)}`,
    t.complete === undefined ? '' : `COMPLETE ${t.complete.toFixed(2)}`,
  ].filter((s) => s !== '');
  const low: Reason[] = ies0 < gate.passAt ? [{ code: 'low_score', detail: `weighted score ${ies0.toFixed(2)} (${parts.join(', ')})` }] : [];
  return gated(rule, score, [...low, ...hardCaps, ...softCaps], gate);
}

/**
 * The gate state of a score: pass ≥ `passAt`, flag ≥ `flagAt`, else abstain (paper §3.2).
 *
 * @example gateState(0.6, DEFAULT_GATE) // 'flag'
 */
export function gateState(score: number, gate: GateThresholds = DEFAULT_GATE): GateState {
  return score >= gate.passAt ? 'pass' : score >= gate.flagAt ? 'flag' : 'abstain';
}

function gated(rule: RuleName, score: number, reasons: Reason[], gate: GateThresholds): RuleScore {
  const state = gateState(score, gate);
  return { rule, score, gate: state, reasons: state === 'pass' ? [] : reasons };
}
