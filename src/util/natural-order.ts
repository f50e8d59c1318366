/**
 * Natural order of identifiers: digit runs compare as numbers (`q-2` before `q-10`), the rest
 * as text, so lists of golden question ids read in the order a person expects.
 */
const COLLATOR = new Intl.Collator('en', { numeric: true, sensitivity: 'variant' });

/**
 * Compares two ids in natural order, for `Array.prototype.sort`; ties (ids equal to the
 * collator) fall back to code-unit order so the result is total.
 * @example ['q-10', 'q-2', 'a'].sort(naturalIdOrder) // ['a', 'q-2', 'q-10']
 */
export function naturalIdOrder(a: string, b: string): number {
  return COLLATOR.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}
