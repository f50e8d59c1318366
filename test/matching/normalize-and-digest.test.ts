import { describe, expect, it } from 'vitest';
import { exactCellKey, isOrderedSql, normalizeCell, resultDigest } from '../../src/matching/index.js';

describe('normalizeCell (relaxed)', () => {
  it.each([
    [6.9, 'n:6.9'],
    ['6.90', 'n:6.9'],
    ['6.9', 'n:6.9'],
    [1, 'n:1'],
    [1.0, 'n:1'],
    ['1.0', 'n:1'],
    [2.99999, 'n:3'],
    [0.12344, 'n:0.1234'],
    [0.12346, 'n:0.1235'],
    [-0.00004, 'n:0'],
    [-0, 'n:0'],
    [-2.5, 'n:-2.5'],
    ['1e3', 'n:1000'],
    ['-.5', 'n:-0.5'],
    ['+5', 'n:5'],
    [9007199254740993n, 'n:9007199254740993'],
    ['9007199254740993', 'n:9007199254740993'],
    [9007199254740992, 'n:9007199254740992'],
    [1e21, 'n:1000000000000000000000'],
    [Infinity, 'n:Infinity'],
    [null, 'z'],
    [' 42', 's: 42'],
    ['007', 's:007'],
    ['NaN', 's:NaN'],
    ['Infinity', 's:Infinity'],
    ['0x1A', 's:0x1A'],
    ['1,000', 's:1,000'],
    [new Uint8Array([0, 255]), 'b:00ff'],
    [true, 'n:1'],
  ] as const)('%s → %s', (cell, key) => {
    expect(normalizeCell(cell)).toBe(key);
  });

  it('rounds half away from zero on the exact binary value', () => {
    // python3 -c "from decimal import Decimal; print(Decimal(2.00005), Decimal(1.00005))"
    // 2.00005 is 2.0000499999999998834… and 1.00005 is 1.0000500000000001055… as doubles;
    // 0.03125 is exact (2^-5): a true tie, rounded away from zero
    expect(normalizeCell(2.00005)).toBe('n:2');
    expect(normalizeCell(1.00005)).toBe('n:1.0001');
    expect(normalizeCell(0.03125)).toBe('n:0.0313');
    expect(normalizeCell(-0.03125)).toBe('n:-0.0313');
  });
});

describe('exactCellKey', () => {
  it('keeps text and numbers apart and does not round', () => {
    expect(exactCellKey('6.9')).not.toBe(exactCellKey(6.9));
    expect(exactCellKey(0.1 + 0.2)).not.toBe(exactCellKey(0.3));
    expect(exactCellKey(5n)).toBe(exactCellKey(5));
    expect(exactCellKey(-0)).toBe(exactCellKey(0));
  });
});

describe('isOrderedSql', () => {
  it.each([
    ['SELECT name FROM singer ORDER BY age', true],
    ['select name from singer order\n  by age desc limit 3', true],
    ['SELECT a FROM t UNION SELECT b FROM u ORDER BY 1', true],
    ['SELECT name FROM (SELECT * FROM t ORDER BY a) AS s', false],
    ['WITH x AS (SELECT a FROM t ORDER BY a LIMIT 3) SELECT a FROM x', false],
    ['SELECT a, rank() OVER (ORDER BY b) FROM t', false],
    ['SELECT group_concat(a ORDER BY a) FROM t', false],
    ["SELECT 'ORDER BY' FROM t", false],
    ['SELECT "order by" FROM t -- ORDER BY x', false],
    ['SELECT a FROM t /* ORDER BY a */', false],
    ['SELECT a FROM t; SELECT b FROM u ORDER BY b', false],
    ['SELECT [order] FROM t', false],
  ] as const)('%j → %s', (sql, ordered) => {
    expect(isOrderedSql(sql)).toBe(ordered);
  });
});

describe('resultDigest', () => {
  it('is equal for relaxed-equal results in any row order, with sha256: prefix', () => {
    const a = resultDigest({ columns: ['x', 'y'], rows: [[6.9, 'a'], [1, null]] });
    const b = resultDigest({ columns: ['p', 'q'], rows: [['1.0', null], ['6.90', 'a']] });
    expect(a).toBe(b);
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/u);
  });

  it('differs for a different column order, column count, duplicates or truncation', () => {
    const base = resultDigest({ columns: ['x', 'y'], rows: [[1, 'a']] });
    expect(resultDigest({ columns: ['y', 'x'], rows: [['a', 1]] })).not.toBe(base);
    expect(resultDigest({ columns: ['x'], rows: [] })).not.toBe(resultDigest({ columns: ['x', 'y'], rows: [] }));
    expect(resultDigest({ columns: ['x'], rows: [[1], [1]] })).not.toBe(resultDigest({ columns: ['x'], rows: [[1]] }));
    expect(resultDigest({ columns: ['x'], rows: [[1], [1]] }, { set: true })).toBe(resultDigest({ columns: ['x'], rows: [[1]] }, { set: true }));
    expect(resultDigest({ columns: ['x', 'y'], rows: [[1, 'a']], truncated: true })).not.toBe(base);
  });

  it('keeps row order when ordered', () => {
    const rows = { columns: ['x'], rows: [[1], [2]] };
    const reversed = { columns: ['x'], rows: [[2], [1]] };
    expect(resultDigest(rows)).toBe(resultDigest(reversed));
    expect(resultDigest(rows, { ordered: true })).not.toBe(resultDigest(reversed, { ordered: true }));
  });

  it('tells bigint 9007199254740993 from 9007199254740992', () => {
    expect(resultDigest({ columns: ['n'], rows: [[9007199254740993n]] })).not.toBe(resultDigest({ columns: ['n'], rows: [[9007199254740992]] }));
  });
});
