import { describe, expect, it } from 'vitest';
import { citeNumbers, writtenNumbers } from '../../src/confidence/uncited-numbers.js';
import { result } from './helpers.js';

describe('writtenNumbers', () => {
  it('reads thousands separators, decimals, signs and percentages; ignores numbers glued to words', () => {
    expect(writtenNumbers('Revenue rose 12.5% to 1,234 units in 2014-2015, −3 vs Q3 and v2.').map((w) => [w.text, w.value, w.decimals])).toEqual([
      ['12.5%', 12.5, 1],
      ['1,234', 1234, 0],
      ['2014', 2014, 0],
      ['2015', 2015, 0],
      ['−3', -3, 0],
    ]);
  });
});

describe('citeNumbers (paper §3.2, SCHEMA)', () => {
  const r = result([['France', 0.4531, 1200], ['Spain', 0.12, 800]]);

  it('a number is cited by a cell within half a unit of its last decimal, by cell × 100, or by the row count', () => {
    const c = citeNumbers('France leads with 1,200 (45.3% of sales, 0.45 as a share); 2 countries in total.', r, []);
    expect(c.cited.map((w) => w.text)).toEqual(['1,200', '45.3%', '0.45', '2']);
    expect(c.uncited).toEqual([]);
  });

  it('numbers of the question or hint and the integers 1–5 are ignored; others are uncited', () => {
    const c = citeNumbers('Of the top 3 countries since 2010, Spain sold 799 and France 1,250.', r, ['Which countries sold most since 2010?']);
    expect(c.ignored.map((w) => w.text)).toEqual(['3', '2010']);
    expect(c.uncited.map((w) => w.text)).toEqual(['799', '1,250']);
  });

  it('a number written with fewer decimals gets a wider tolerance (|x − c| ≤ ½·10^−d)', () => {
    expect(citeNumbers('about 45%', r, []).cited).toHaveLength(1); // 45.31 → |45 − 45.31| ≤ 0.5
    expect(citeNumbers('about 45.0%', r, []).uncited).toHaveLength(1); // |45.0 − 45.31| > 0.05
  });
});
