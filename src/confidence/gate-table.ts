import type { GateState } from './types.js';

/** Gate decisions by correctness: right / wrong answers in pass, flag and abstain (paper Table 8). */
export interface GateTable {
  readonly pass: { readonly right: number; readonly wrong: number };
  readonly flag: { readonly right: number; readonly wrong: number };
  readonly abstain: { readonly right: number; readonly wrong: number };
}

/**
 * The paper's gate quantities from a {@link GateTable} (§4.4 and Table 4). Each is a fraction in
 * [0, 1], or `undefined` when its denominator is zero (never NaN):
 * - `passAccuracy` = P(right | pass);
 * - `passShare` = P(pass);
 * - `correctWithheld` = P(abstain | right);
 * - `wrongWithheld` = P(abstain | wrong);
 * - `correctNotPassed` / `wrongNotPassed` = P(flag or abstain | right / wrong).
 */
export interface GateMetrics {
  readonly n: number;
  readonly right: number;
  readonly wrong: number;
  readonly passAccuracy: number | undefined;
  readonly passShare: number | undefined;
  readonly correctWithheld: number | undefined;
  readonly wrongWithheld: number | undefined;
  readonly correctNotPassed: number | undefined;
  readonly wrongNotPassed: number | undefined;
}

/**
 * Counts gate decisions by correctness.
 *
 * @param gates - one gate state per answer.
 * @param labels - one per answer, same order; `true` = right.
 * @throws RangeError when the lengths differ.
 * @example gateTable(['pass', 'flag', 'abstain'], [true, true, false])
 * // { pass: { right: 1, wrong: 0 }, flag: { right: 1, wrong: 0 }, abstain: { right: 0, wrong: 1 } }
 */
export function gateTable(gates: readonly GateState[], labels: readonly boolean[]): GateTable {
  if (gates.length !== labels.length) throw new RangeError(`gateTable: ${gates.length} gate states but ${labels.length} labels`);
  const t = { pass: { right: 0, wrong: 0 }, flag: { right: 0, wrong: 0 }, abstain: { right: 0, wrong: 0 } };
  gates.forEach((g, i) => {
    if (labels[i] === true) t[g].right += 1;
    else t[g].wrong += 1;
  });
  return t;
}

/**
 * The gate quantities of a table of counts.
 *
 * Reference: the paper's Table 8, agreement-first on Spider (pass 692 / 31, flag 138 / 16,
 * abstain 80 / 26) gives pass accuracy 95.7%, correct withheld 8.8%, wrong withheld 35.6% and
 * pass share 73.6% (Table 4).
 *
 * @example gateMetrics({ pass: { right: 692, wrong: 31 }, flag: { right: 138, wrong: 16 }, abstain: { right: 80, wrong: 26 } }).passAccuracy
 * // 0.9571230982019364
 */
export function gateMetrics(table: GateTable): GateMetrics {
  const right = table.pass.right + table.flag.right + table.abstain.right;
  const wrong = table.pass.wrong + table.flag.wrong + table.abstain.wrong;
  const passed = table.pass.right + table.pass.wrong;
  const n = right + wrong;
  const ratio = (a: number, b: number): number | undefined => (b === 0 ? undefined : a / b);
  return {
    n,
    right,
    wrong,
    passAccuracy: ratio(table.pass.right, passed),
    passShare: ratio(passed, n),
    correctWithheld: ratio(table.abstain.right, right),
    wrongWithheld: ratio(table.abstain.wrong, wrong),
    correctNotPassed: ratio(table.flag.right + table.abstain.right, right),
    wrongNotPassed: ratio(table.flag.wrong + table.abstain.wrong, wrong),
  };
}
