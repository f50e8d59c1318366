/**
 * Natural order of identifiers: digit runs compare as numbers (`q-2` before `q-10`), the rest
 * as text, so lists of golden question ids read in the order a person expects.
 */
let collator: Intl.Collator | undefined;

/**
 * Compares two ids in natural order, for `Array.prototype.sort`; ties (ids equal to the
 * collator) fall back to code-unit order so the result is total.
 *
 * Ids of one golden set mostly differ only in the digits of an equal-length number
 * (`spider-dev-0093`, `spider-dev-0104`): when two ids have the same length and differ only
 * where both have an ASCII digit, their digit runs sit at the same places with the same
 * lengths, and equal-length digit runs compare as numbers exactly as they compare as text, so
 * the code-unit order is the collator's. Such pairs skip ICU, whose collator (a few
 * milliseconds to make) is made only for the first other pair.
 * @example ['q-10', 'q-2', 'a'].sort(naturalIdOrder) // ['a', 'q-2', 'q-10']
 */
export function naturalIdOrder(a: string, b: string): number {
  if (a.length === b.length && digitsOnlyDiffer(a, b)) return a < b ? -1 : a > b ? 1 : 0;
  collator ??= new Intl.Collator('en', { numeric: true, sensitivity: 'variant' });
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Whether two strings of one length differ only at positions where both hold an ASCII digit. */
function digitsOnlyDiffer(a: string, b: string): boolean {
  for (let i = 0; i < a.length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y && (x < 48 || x > 57 || y < 48 || y > 57)) return false;
  }
  return true;
}
