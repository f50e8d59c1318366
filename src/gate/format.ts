/**
 * Number formatting shared by the gate's messages and the Markdown renderer, so that both
 * print the same digits.
 */

/**
 * A signed number with `digits` decimals and a real minus sign; values that round to zero
 * print without a sign.
 *
 * @example formatSigned(0.016666) // "+0.02"
 * @example formatSigned(-0.2284) // "−0.23"
 */
export function formatSigned(value: number, digits = 2): string {
  const rounded = value.toFixed(digits);
  if (Number(rounded) === 0) return (0).toFixed(digits);
  return value > 0 ? `+${rounded}` : `−${rounded.slice(1)}`;
}

/**
 * A p-value with two decimals, or in scientific notation below 0.01 (so that a tiny p is not
 * printed as 0.00).
 *
 * @example formatP(1) // "1.00"
 * @example formatP(0.000488) // "4.9e-4"
 */
export function formatP(p: number): string {
  if (p >= 0.01 || p === 0) return p.toFixed(2);
  const [mantissa, exponent] = p.toExponential(1).split('e');
  return `${mantissa}e${exponent === undefined ? '' : exponent.replace('+', '')}`;
}

/**
 * A list of ids for a message: all of them up to `max`, then "… (N in all)".
 *
 * @example formatIds(['gq-008']) // "gq-008"
 */
export function formatIds(ids: readonly string[], max = 10): string {
  if (ids.length <= max) return ids.join(', ');
  return `${ids.slice(0, max).join(', ')}, … (${ids.length} in all)`;
}

/**
 * A small fraction with enough digits to be non-zero: two decimals from 0.1 up, else two
 * significant digits (so 4 of 972 prints 0.0041, not 0.00).
 *
 * @example formatFraction(4 / 12) // "0.33"
 * @example formatFraction(4 / 972) // "0.0041"
 */
export function formatFraction(value: number): string {
  if (value === 0 || Math.abs(value) >= 0.1) return value.toFixed(2);
  return value.toPrecision(2);
}

/**
 * The words that mark a question whose golden result is ambiguous (its golden `ORDER BY … LIMIT`
 * cuts through ties), wherever the gate lists it: reasons, notes, text and Markdown.
 */
export const AMBIGUOUS_GOLDEN_MARK = 'golden LIMIT cuts through ties: the golden result is ambiguous';

/**
 * A question id, followed by {@link AMBIGUOUS_GOLDEN_MARK} in parentheses when it is in `ambiguous`.
 *
 * @example markAmbiguous('spider-dev-0845', new Set(['spider-dev-0845'])) // "spider-dev-0845 (golden LIMIT cuts through ties: the golden result is ambiguous)"
 * @example markAmbiguous('q1', new Set()) // "q1"
 */
export function markAmbiguous(id: string, ambiguous: ReadonlySet<string>): string {
  return ambiguous.has(id) ? `${id} (${AMBIGUOUS_GOLDEN_MARK})` : id;
}
