import type { MatchMode } from '../config/types.js';
import { matchResults } from '../matching/index.js';
import type { Cell } from '../warehouse/types.js';
import type { ResultMatcher } from './types.js';

/**
 * A matching policy: how two results are compared (src/matching, docs/matching.md). The
 * confidence report states one for its **labels** (is the shown answer the golden answer?) and
 * one for **agreement** (does a sample's result match the shown answer's?), separately: the
 * paper's figures move with both (§7, §8).
 */
export type MatchPolicy = MatchMode;

/** The matching policies, in the order reports list them (strictest first). */
export const MATCH_POLICIES: readonly MatchPolicy[] = ['exact', 'relaxed', 'spider'];

/**
 * Where a report's correctness labels come from: execution match of the shown answer under a
 * matching policy, or a labels file (reviewers' approvals, a model's labels, …).
 */
export type LabelPolicy = MatchPolicy | 'file';

/** What each matching policy means, in one line, for reports. */
export const POLICY_MEANING: Readonly<Record<MatchPolicy, string>> = {
  exact: 'same columns by position, rows as a bag, values as the engine returns them',
  relaxed: "the paper's projection match: the narrower result is a projection of the wider, floats to 4 places, numeric text as numbers",
  spider: "the official Spider evaluator's result_eq: same column count in any permutation, rows as a bag, Python equality",
};

/**
 * The result matcher of an agreement policy: two samples' results, unordered, duplicates kept
 * (no golden SQL is involved, so spider mode's row-order test is off and its SQL rewriting is
 * not applied: the results are compared as the samples ran).
 *
 * @example agreementMatcher('exact')({ columns: ['n'], rows: [[6]], rowCount: 1, truncated: false },
 *   { columns: ['name', 'n'], rows: [['x', 6]], rowCount: 1, truncated: false }) // false (relaxed: true)
 */
export function agreementMatcher(policy: MatchPolicy): ResultMatcher {
  return (a, b) =>
    matchResults(
      { columns: a.columns, rows: a.rows as readonly (readonly Cell[])[], truncated: a.truncated },
      { columns: b.columns, rows: b.rows as readonly (readonly Cell[])[], truncated: b.truncated },
      { mode: policy, ordered: false, set: false },
    ).match;
}

/**
 * The sentence a report prints for its agreement policy.
 *
 * @example agreementPolicyText('relaxed') // "agreement policy: relaxed (the paper's projection match: …)"
 */
export function agreementPolicyText(policy: MatchPolicy): string {
  return `agreement policy: ${policy} (${POLICY_MEANING[policy]})`;
}

/**
 * The sentence a report prints for a label policy.
 *
 * @param policy - the label policy.
 * @param file - the labels file, for `file`.
 * @example labelPolicyText('spider') // "label policy: spider execution match of the shown answer against the golden answer (…)"
 */
export function labelPolicyText(policy: LabelPolicy, file?: string): string {
  return policy === 'file'
    ? `label policy: labels file ${file ?? ''} (no execution match)`.replace('  ', ' ')
    : `label policy: ${policy} execution match of the shown answer against the golden answer (${POLICY_MEANING[policy]})`;
}

/**
 * Parses a comma-separated list of matching policies (`exact,relaxed,spider`).
 *
 * @throws RangeError naming the unknown policy or the policy given twice.
 * @example parsePolicyList('exact, relaxed') // ['exact', 'relaxed']
 */
export function parsePolicyList(value: string): MatchPolicy[] {
  const names = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (names.length === 0) throw new RangeError(`expected one or more of ${MATCH_POLICIES.join(', ')} (comma-separated)`);
  const out: MatchPolicy[] = [];
  for (const n of names) {
    if (!(MATCH_POLICIES as readonly string[]).includes(n)) throw new RangeError(`unknown matching policy "${n}"; expected ${MATCH_POLICIES.join(', ')}`);
    if (out.includes(n as MatchPolicy)) throw new RangeError(`matching policy ${n} is listed twice`);
    out.push(n as MatchPolicy);
  }
  return out;
}
